"""A content cache of check results, as ruff has: a warm re-run reads results instead of parsing.

An entry answers "what did checking this file give": it is found by the file's absolute path
and its resolved settings (the rule set, the suppressible rules, the backend profile's contents,
the severities) under one tool fingerprint (tilecheck's version and source, libcst's version),
and it holds the SHA-256 of the bytes it was computed from plus the content of every other file
the analysis may have read (the sibling modules PyPTO follows imports into, or their absence).
A changed file, a changed sibling or a configuration change that alters a file's settings
misses for exactly the files it affects; the other entries stay valid.

Layout: `<cache dir>/<tool fingerprint>/<key[:2]>/<key>.json`, with `CACHEDIR.TAG` and a
`.gitignore` (`*`) at the top, as ruff's `.ruff_cache`. Entries are JSON, never pickles, sealed
with a MAC of the user's (`cache_store`: a cache directory can come with a checked-out tree),
written to a temporary file and renamed into place, so concurrent runs never see half an entry;
an entry that cannot be read, is not sealed by this user or does not match is a miss, never an
error. A cache directory that cannot be used (not a directory, someone else's, unwritable,
full) costs only the caching: `problem` says why, once. Results with an internal error, or that gave up on a file
(TL004, TL005: budgets depend on the machine's load), are never stored.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from tilecheck import __version__
from tilecheck.app import cache_store
from tilecheck.app.cache_store import CACHEDIR_TAG, FORMAT, NotACache, clean
from tilecheck.core import codec, meta
from tilecheck.core.meta import Problem
from tilecheck.lint.coverage import Coverage, SharedCoverage

if TYPE_CHECKING:
    from tilecheck.config.resolver import FileSettings
    from tilecheck.core.catalogue import RuleEntry
    from tilecheck.lint.analysis import FileAnalysis

__all__ = [
    "CACHEDIR_TAG",
    "CACHE_DIR_ENV",
    "FORMAT",
    "NotACache",
    "ResultCache",
    "clean",
    "default_cache_dir",
    "settings_fingerprint",
    "tool_fingerprint",
]

CACHE_DIR_NAME = ".tilecheck_cache"
CACHE_DIR_ENV = "TILECHECK_CACHE_DIR"
Task = tuple[str, "FileSettings", bytes | None]
Progress = Callable[[int], None]
CheckMany = Callable[[Sequence[Task], "Progress | None"], list["FileAnalysis"]]


def default_cache_dir(project_root: str, explicit: str | None = None) -> str:
    """`--cache-dir`, else `TILECHECK_CACHE_DIR`, else `.tilecheck_cache` in the project root."""
    chosen = explicit or os.environ.get(CACHE_DIR_ENV)
    return os.path.abspath(chosen) if chosen else os.path.join(project_root, CACHE_DIR_NAME)


def _digest(*parts: str | bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()


def _file_digest(path: str) -> str | None:
    if not os.path.lexists(path):  # one stat, not the engine's reader and its diagnostic
        return None
    data = _read(path)  # a FIFO or a device never blocks the run
    return hashlib.sha256(data).hexdigest() if data is not None else None


def _dependencies(files: Iterable[str]) -> tuple[list[list[str | None]], list[str]]:
    """The digest of each file an analysis read or could have read that exists; and for the
    places an import could resolve to and does not (most of them), the first absent directory or
    file on the way to each: anything made there invalidates the entry, as making the file would
    (a run stats the corpus's 2,142 such places instead of 10,774 paths)."""
    present: list[list[str | None]] = []
    absent: dict[str, None] = {}
    for file in files:
        if os.path.lexists(file):
            present.append([file, _file_digest(file)])
        else:
            absent.setdefault(_first_absent(file))
    return present, list(absent)


def _first_absent(path: str) -> str:
    parent = os.path.dirname(path)
    while parent != path and not os.path.lexists(parent):
        path, parent = parent, os.path.dirname(parent)
    return path


class SeenFiles:
    """What one run has found of the files cache entries depend on: each is looked at once."""

    def __init__(self) -> None:
        self._digests: dict[str, str | None] = {}
        self._exists: dict[str, bool] = {}
        self._directories: dict[str, bool] = {}

    def is_directory(self, path: str) -> bool:
        if path not in self._directories:
            self._directories[path] = os.path.isdir(path)
        return self._directories[path]

    def digest(self, path: str) -> str | None:
        if path not in self._digests:
            self._digests[path] = _file_digest(path)
        return self._digests[path]

    def any_exists(self, paths: list[str]) -> bool:
        known = self._exists
        for path in paths:
            if path not in known:
                known[path] = os.path.lexists(path)
        return any(map(known.__getitem__, paths))  # an entry lists dozens: no call per path


def tool_fingerprint() -> str:
    """tilecheck's version and the size and time of each of its source files (an edited
    development checkout must not reuse results), and libcst's version."""
    import tilecheck
    from tilecheck.core.catalogue import rules_directory

    parts: list[str] = [__version__, f"format {FORMAT}", sys.version, "libcst", *_installed("libcst")]
    package = os.path.dirname(os.path.abspath(tilecheck.__file__))
    roots = [package, os.path.realpath(rules_directory())]
    for root in roots:
        _source_stats(root, "", parts)
    return _digest(*parts)[:16]


def _source_stats(directory: str, relative: str, parts: list[str]) -> None:
    """`relative/name:size:mtime` of every .py and .toml file under `directory`, in name order
    (scandir: a cached run stats ~300 files, and os.walk's path arithmetic cost more than that)."""
    try:
        with os.scandir(directory) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        name = f"{relative}{entry.name}"
        with contextlib.suppress(OSError):
            if entry.is_dir():
                if entry.name != "__pycache__":
                    _source_stats(entry.path, f"{name}/", parts)
            elif entry.name.endswith((".py", ".toml")):
                status = entry.stat()
                parts.append(f"{name}:{status.st_size}:{status.st_mtime_ns}")


def _installed(name: str) -> list[str]:
    """Where package `name` is installed, its distribution's metadata directories and the size and
    time of its `__init__.py` (a reinstall changes them), found without importing it or
    importlib.metadata (which alone costs a cached run a third of its time)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin:
        return ["missing"]
    found = [spec.origin]
    with contextlib.suppress(OSError):
        status = os.stat(spec.origin)
        found.append(f"{status.st_size}:{status.st_mtime_ns}")
    site = os.path.dirname(os.path.dirname(spec.origin))
    with contextlib.suppress(OSError):
        found += sorted(
            entry for entry in os.listdir(site) if entry.startswith(f"{name}-") and entry.endswith("-info")
        )
    return found


def _rule_identity(rule: RuleEntry) -> str:
    """A rule by code and class; a rule outside tilecheck (a plugin) also by its module's source."""
    identity = f"{rule.CODE}={rule.module}.{rule.qualname}"
    if not rule.module.startswith("tilecheck."):
        module = sys.modules.get(rule.module)
        source = getattr(module, "__file__", None)
        identity += f"@{_file_digest(source) if source else 'unknown'}"
    return identity


def _backend_identity(backend: object) -> str:
    if backend is None:
        return "none"
    if dataclasses.is_dataclass(backend) and not isinstance(backend, type):
        return json.dumps(dataclasses.asdict(backend), sort_keys=True, default=str)
    return repr(backend)


def settings_fingerprint(settings: FileSettings) -> str:
    """Everything in a file's resolved settings that can change its results."""
    return _digest(
        "rules",
        *(_rule_identity(rule) for rule in settings.rules),
        "known",
        *(_rule_identity(rule) for rule in settings.known),
        "backend",
        _backend_identity(settings.backend),
        "severities",
        *(f"{code}={severity.value}" for code, severity in sorted(settings.severities.items())),
        "fixes",
        *(f"{code}={safe}" for code, safe in sorted(settings.fix_policy.items())),
        "tilelang",
        *settings.tilelang.versions,
        # the unmeasured release the nearest measured ones stand in for: TL210 names it
        "stand-in-for",
        settings.tilelang.stand_in_for or "",
    )


# -- entries -------------------------------------------------------------------------------------


class ResultCache:
    """Check results on disk, under `directory` (created on the first write)."""

    def __init__(self, directory: str) -> None:
        self.directory = os.path.abspath(directory)
        self.tool = tool_fingerprint()
        self._settings: dict[int, tuple[FileSettings, str]] = {}
        self.hits = 0
        self.misses = 0
        self.problem: str | None = None  # why the directory cannot be used (then it is not)
        self._usable: bool | None = None  # None: not looked at yet
        self._secret: bytes | None = None
        self._secret_sought = False

    # keys --------------------------------------------------------------------------------
    def _settings_key(self, settings: FileSettings) -> str:
        known = self._settings.get(id(settings))
        if known is None or known[0] is not settings:
            known = self._settings[id(settings)] = (settings, settings_fingerprint(settings))
        return known[1]

    def _entry(self, absolute: str, settings: FileSettings) -> tuple[str, str]:
        """The entry's key and its file, for the file at `absolute`."""
        key = _digest(self.tool, self._settings_key(settings), absolute)
        return key, os.path.join(self.directory, self.tool, key[:2], key + ".json")

    def _secret_key(self) -> bytes | None:
        """The user's MAC key; None (and the cache is not used, `problem` says why) without one."""
        if not self._secret_sought:
            self._secret_sought = True
            self._secret = cache_store.user_secret()
            if self._secret is None:
                places = ", ".join(cache_store.secret_places()) or "no home directory"
                self.problem = f"no private key to seal its entries with ({places}: cannot be read or made)"
                self._usable = False
        return self._secret

    def usable(self) -> bool:
        """Whether the directory is (or was made) a tilecheck cache; else `problem` says why."""
        if self._usable is None:
            self.problem = cache_store.adopt(self.directory)
            self._usable = self.problem is None
        return self._usable

    # reading -----------------------------------------------------------------------------
    def load(
        self, path: str, settings: FileSettings, data: bytes, seen: SeenFiles | None = None
    ) -> FileAnalysis | None:
        """The stored result of checking `data` as `path`, or None (a miss; never raises).
        `seen` is what the loads of one run have found of the files entries depend on."""
        from tilecheck.lint.analysis import FileAnalysis

        seen = seen if seen is not None else SeenFiles()
        absolute = os.path.abspath(path)
        key, location = self._entry(absolute, settings)
        if not seen.is_directory(self.directory):
            return None
        secret = self._secret_key()
        if secret is None:
            return None
        entry = cache_store.unseal(secret, key, location)
        if entry is None:
            return None
        try:
            if entry["content"] != hashlib.sha256(data).hexdigest():
                return None
            if entry["path"] != absolute:
                return None
            for dependency, digest in entry["dependencies"]:
                if seen.digest(dependency) != digest:
                    return None
            if seen.any_exists(entry["absent"]):
                return None
            diagnostics = [codec.decode(item, path) for item in entry["diagnostics"]]
            text = entry["text"]
            if diagnostics and not isinstance(text, str):
                return None
            kernels, loops, shared = entry["coverage"]  # an entry without the shared counts: a miss
            measured = Coverage(
                int(kernels), int(loops), SharedCoverage.decode(shared) if shared is not None else None
            )
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None  # missing or corrupt: check the file again
        return FileAnalysis(path, diagnostics, False, text if diagnostics else None, measured=measured)

    # writing -----------------------------------------------------------------------------
    def store(self, path: str, settings: FileSettings, data: bytes, result: FileAnalysis) -> None:
        """Remember `result` for `data` as `path`; silently does nothing when it cannot."""
        # "Too complex to analyze" may come from a time or memory budget that a loaded machine
        # missed, and crashes are worth retrying: such results are checked again next time.
        if result.internal_error or any(
            meta.is_problem(d, Problem.TOO_COMPLEX, Problem.INTERNAL_ERROR) for d in result.diagnostics
        ):
            return
        from tilecheck.source.project_files import imported_files  # ast: only for a new entry

        absolute = os.path.abspath(path)
        dependencies, absent = _dependencies(imported_files(absolute, result.text))
        entry = {
            "path": absolute,
            "content": hashlib.sha256(data).hexdigest(),
            "dependencies": dependencies,
            "absent": absent,
            "text": result.text if result.diagnostics else None,
            "diagnostics": [codec.encode(d, "") for d in result.diagnostics],
            "coverage": [
                result.coverage.kernels,
                result.coverage.loops,
                result.coverage.shared.encode() if result.coverage.shared is not None else None,
            ],
        }
        if not self.usable():
            return
        secret = self._secret_key()
        if secret is None:
            return
        key, target = self._entry(absolute, settings)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            cache_store.write_atomic(target, cache_store.seal(secret, key, entry))
        except (OSError, ValueError) as error:  # full, or made read-only meanwhile: stop trying
            self.problem = f"cannot write it: {getattr(error, 'strerror', None) or error}"
            self._usable = False

    # a whole run -------------------------------------------------------------------------
    def check(
        self,
        tasks: Iterable[tuple[str, FileSettings]],
        check_many: CheckMany,
        progress: Progress | None = None,
    ) -> dict[str, FileAnalysis]:
        """Results for every task: stored ones where they are valid, `check_many` for the rest.

        The bytes hashed are the bytes checked: they travel with each missed task, so a file
        that changes during the run cannot store one content's results under another's hash.
        """
        results: dict[str, FileAnalysis] = {}
        missed: list[Task] = []
        seen = SeenFiles()  # the files of a directory share most dependencies
        for path, settings in tasks:
            data = _read(path)
            found = self.load(path, settings, data, seen) if data is not None else None
            if found is not None:
                results[path] = found
                self.hits += 1
            else:
                missed.append((path, settings, data))
        self.misses += len(missed)
        hits = len(results)
        if progress is not None and hits:
            progress(hits)
        counted: Progress | None = None
        if progress is not None:
            report = progress
            counted = lambda done: report(hits + done)  # noqa: E731
        for (path, settings, data), result in zip(missed, check_many(missed, counted), strict=True):
            results[path] = result
            if data is not None:
                self.store(path, settings, data, result)
        return results


def _read(path: str) -> bytes | None:
    """The bytes the engine would check; None for what it reports instead (a FIFO, a device,
    too large, unreadable): read through `source.reading`, never blocking."""
    from tilecheck.source.reading import read_source

    data, failure = read_source(path)
    return data if failure is None else None
