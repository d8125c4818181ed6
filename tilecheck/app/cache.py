"""A content cache of check results, as ruff has: a warm re-run reads results instead of parsing.

An entry answers "what did checking this file give": it is found by the file's absolute path
and its resolved settings (the rule set, the suppressible rules, the backend profile's contents,
the severities) under one tool fingerprint (tilecheck's version and source, libcst's version),
and it holds the SHA-256 of the bytes it was computed from plus the content of every other file
the analysis may have read (the sibling modules PyPTO follows imports into, or their absence).
A changed file, a changed sibling or a configuration change that alters a file's settings
misses for exactly the files it affects; the other entries stay valid.

Layout: `<cache dir>/<tool fingerprint>/<key[:2]>/<key>.json`, with `CACHEDIR.TAG` and a
`.gitignore` (`*`) at the top, as ruff's `.ruff_cache`. Entries are JSON, never pickles (a
cache directory can come with a checked-out tree), written to a temporary file and renamed into
place, so concurrent runs never see half an entry; an entry that cannot be read or does not
match is a miss, never an error. Results with an internal error, or that gave up on a file
(TL004, TL005: budgets depend on the machine's load), are never stored.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from tilecheck import __version__
from tilecheck.core import codec, meta
from tilecheck.core.meta import Problem
from tilecheck.lint.coverage import Coverage
from tilecheck.source.project_files import imported_files

if TYPE_CHECKING:
    from tilecheck.config.resolver import FileSettings
    from tilecheck.core.rule import Rule
    from tilecheck.lint.engine import FileAnalysis

CACHE_DIR_NAME = ".tilecheck_cache"
CACHE_DIR_ENV = "TILECHECK_CACHE_DIR"
FORMAT = 3  # bump when the entry layout changes (2: the coverage counts; 3: core.codec records)
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by tilecheck.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)

Task = tuple[str, "FileSettings", bytes | None]
Progress = Callable[[int], None]
CheckMany = Callable[[Sequence[Task], "Progress | None"], list["FileAnalysis"]]


def default_cache_dir(project_root: str, explicit: str | None = None) -> str:
    """`--cache-dir`, else `TILECHECK_CACHE_DIR`, else `.tilecheck_cache` in the project root."""
    chosen = explicit or os.environ.get(CACHE_DIR_ENV)
    return os.path.abspath(chosen) if chosen else os.path.join(project_root, CACHE_DIR_NAME)


def clean(directory: str) -> bool:
    """Remove a cache directory (`tilecheck clean`); False when there was none."""
    if not os.path.isdir(directory):
        return False
    shutil.rmtree(directory)
    return True


def _digest(*parts: str | bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()


def _file_digest(path: str) -> str | None:
    if not os.path.lexists(path):
        # Most dependencies are places an import could resolve to and does not (recorded so
        # that creating one invalidates): one stat, not the engine's reader and its diagnostic.
        return None
    data = _read(path)  # a FIFO or a device never blocks the run
    return hashlib.sha256(data).hexdigest() if data is not None else None


def tool_fingerprint() -> str:
    """tilecheck's version and the size and time of each of its source files (an edited
    development checkout must not reuse results), and libcst's version."""
    from importlib import metadata

    import tilecheck

    parts: list[str] = [__version__, f"format {FORMAT}", sys.version]
    with contextlib.suppress(metadata.PackageNotFoundError):
        parts.append("libcst " + metadata.version("libcst"))
    package = os.path.dirname(os.path.abspath(tilecheck.__file__))
    roots = [package, os.path.realpath(os.path.join(package, "rules"))]
    for root in roots:
        for directory, subdirectories, files in os.walk(root):
            subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".toml")):
                    path = os.path.join(directory, name)
                    with contextlib.suppress(OSError):
                        status = os.stat(path)
                        parts.append(f"{os.path.relpath(path, root)}:{status.st_size}:{status.st_mtime_ns}")
    return _digest(*parts)[:16]


def _rule_identity(rule: type[Rule]) -> str:
    """A rule by code and class; a rule outside tilecheck (a plugin) also by its module's source."""
    module = sys.modules.get(rule.__module__)
    identity = f"{rule.CODE}={rule.__module__}.{rule.__qualname__}"
    if not rule.__module__.startswith("tilecheck."):
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
        "tilelang",
        *settings.tilelang.versions,
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

    # keys --------------------------------------------------------------------------------
    def _settings_key(self, settings: FileSettings) -> str:
        known = self._settings.get(id(settings))
        if known is None or known[0] is not settings:
            known = self._settings[id(settings)] = (settings, settings_fingerprint(settings))
        return known[1]

    def _entry_path(self, path: str, settings: FileSettings) -> str:
        key = _digest(self.tool, self._settings_key(settings), os.path.abspath(path))
        return os.path.join(self.directory, self.tool, key[:2], key + ".json")

    # reading -----------------------------------------------------------------------------
    def load(self, path: str, settings: FileSettings, data: bytes) -> FileAnalysis | None:
        """The stored result of checking `data` as `path`, or None (a miss; never raises)."""
        from tilecheck.lint.engine import FileAnalysis

        try:
            with open(self._entry_path(path, settings), encoding="utf-8") as handle:
                entry = json.load(handle)
            if entry["content"] != hashlib.sha256(data).hexdigest():
                return None
            if entry["path"] != os.path.abspath(path):
                return None
            for dependency, digest in entry["dependencies"]:
                if _file_digest(dependency) != digest:
                    return None
            diagnostics = [codec.decode(item, path) for item in entry["diagnostics"]]
            text = entry["text"]
            if diagnostics and not isinstance(text, str):
                return None
            kernels, loops = entry["coverage"]
            measured = Coverage(int(kernels), int(loops))
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
        absolute = os.path.abspath(path)
        dependencies = [[file, _file_digest(file)] for file in imported_files(absolute, result.text)]
        entry = {
            "path": absolute,
            "content": hashlib.sha256(data).hexdigest(),
            "dependencies": dependencies,
            "text": result.text if result.diagnostics else None,
            "diagnostics": [codec.encode(d, "") for d in result.diagnostics],
            "coverage": [result.coverage.kernels, result.coverage.loops],
        }
        target = self._entry_path(path, settings)
        with contextlib.suppress(OSError, ValueError):
            self._prepare(os.path.dirname(target))
            _write_atomic(target, json.dumps(entry, ensure_ascii=False, separators=(",", ":")))

    def _prepare(self, directory: str) -> None:
        if not os.path.isdir(self.directory):
            os.makedirs(self.directory, exist_ok=True)
            _write_atomic(os.path.join(self.directory, "CACHEDIR.TAG"), CACHEDIR_TAG)
            _write_atomic(
                os.path.join(self.directory, ".gitignore"), "# Automatically created by tilecheck.\n*\n"
            )
        os.makedirs(directory, exist_ok=True)

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
        for path, settings in tasks:
            data = _read(path)
            found = self.load(path, settings, data) if data is not None else None
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


def _write_atomic(path: str, text: str) -> None:
    directory = os.path.dirname(path)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
