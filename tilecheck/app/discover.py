"""Which files to check: explicit files always, directories recursively minus the usual noise.

With a configuration, `excluded(path, explicit)` decides instead of the built-in list: it is
asked about every directory and file met while walking, by absolute path (`explicit=False`), and, under
`--force-exclude`, about the paths given on the command line (`explicit=True`).

Walking also skips what the project's ignore files ignore (`respect_gitignore`, on by default,
as in ruff): `.gitignore` files and `.git/info/exclude` inside a git repository, and `.ignore`
files anywhere, each read with `pathspec`'s gitignore semantics (negation, anchoring,
directory-only patterns; see `IgnoreFiles` for which file wins). Paths named on the command
line are checked even when ignored, as ruff does.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

SKIPPED_DIRECTORIES = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "node_modules", "build", ".venv", "venv", ".tox", ".nox",
     ".mypy_cache", ".ruff_cache", ".pytest_cache", ".tilecheck_cache", ".eggs", "site-packages"}
)  # fmt: skip
SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")  # notebooks: tilecheck.source.notebook

Excluded = Callable[[str, bool], bool]
Chain = tuple[tuple[str, "GitIgnoreSpec"], ...]  # (folder, its ignore file's patterns), deciding first first


def is_virtualenv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def _default_excluded(path: str, explicit: bool) -> bool:
    if explicit:
        return False
    name = os.path.basename(path)
    return name in SKIPPED_DIRECTORIES or name.endswith(".egg-info")


def discover(
    paths: list[str],
    excluded: Excluded | None = None,
    force_exclude: bool = False,
    respect_gitignore: bool = True,
    included: Callable[[str], bool] | None = None,
) -> Iterator[str]:
    """Files to check, in a stable order, each once. A missing path is yielded too (it gets TL003).
    A walk yields the files `included` accepts (default: Python sources and notebooks)."""
    test = excluded or _default_excluded
    accept = included or _default_included
    ignores = IgnoreFiles() if respect_gitignore else None
    seen: set[str] = set()
    for path in paths:
        if force_exclude and test(path, True):
            continue
        found = _walk(path, test, ignores, accept) if os.path.isdir(path) else iter((path,))
        for file in found:
            key = os.path.normpath(file)
            if key not in seen:
                seen.add(key)
                yield file


def _default_included(path: str) -> bool:
    return path.endswith(SOURCE_SUFFIXES)


def _walk(
    root: str, excluded: Excluded, ignores: IgnoreFiles | None, included: Callable[[str], bool]
) -> Iterator[str]:
    """The source files under `root`, and every directory that could not be listed (the engine
    reports it as unreadable, TL003; the walk goes on). os.walk does not follow symlinked
    directories, so a symlink loop cannot recurse forever; a symlinked file is checked only when
    it stays inside `root` (as ruff: a link to /etc/shadow or /proc/self/environ is not quoted)."""
    unlisted: list[str] = []
    inside = os.path.realpath(root)
    # The callbacks are asked about absolute paths, each made once per entry from its
    # directory's (os.walk's `join(directory, name)` stays the path yielded, and the one the
    # file system is asked about: `abspath` turns `link/..` into the link's folder, the system
    # into its target's parent): `abspath` of a relative path asks for the working directory.
    absolute = {root: os.path.abspath(root)}
    for directory, subdirectories, files in os.walk(
        root, onerror=lambda error: unlisted.append(error.filename)
    ):
        yield from _drain(unlisted)
        here = absolute.pop(directory)  # os.walk enters only the root and the folders kept below
        kept = []
        for name in sorted(subdirectories):
            listed, full = os.path.join(directory, name), os.path.join(here, name)
            if (
                not excluded(full, False)
                and not is_virtualenv(listed)
                and not (ignores is not None and ignores.ignored(full, True))
            ):
                kept.append(name)
                absolute[listed] = full
        subdirectories[:] = kept
        for name in sorted(files):
            listed, full = os.path.join(directory, name), os.path.join(here, name)
            if (
                included(full)
                and not excluded(full, False)
                and not (ignores is not None and ignores.ignored(full, False))
                and not _leaves(listed, inside)
            ):
                yield listed
    yield from _drain(unlisted)


def _drain(unlisted: list[str]) -> Iterator[str]:
    while unlisted:
        yield unlisted.pop(0)


def _leaves(path: str, inside: str) -> bool:
    """Whether `path` is a symbolic link whose target is outside the directory `inside`."""
    if not os.path.islink(path):
        return False
    target = os.path.realpath(path)
    return not (target == inside or target.startswith(inside.rstrip(os.sep) + os.sep))


class IgnoreFiles:
    """The ignore files that apply to paths met while walking, each read once.

    As in ripgrep's `ignore` crate (which ruff uses): `.ignore` files of the path's folder and
    every folder above it come first, deepest first; then `.gitignore` files up to the root of
    the git work tree; then its `.git/info/exclude`. The first that matches decides.
    """

    def __init__(self) -> None:
        self._specs: dict[str, GitIgnoreSpec | None] = {}  # ignore file -> its patterns
        self._repository: dict[str, str | None] = {}  # directory -> root of its git work tree
        # directory -> the (folder, patterns) that decide there, in order; built from the
        # parent's, so a path costs its own folder's look-up, not one per folder above it
        self._ignores: dict[str, Chain] = {}
        self._gitignores: dict[str, Chain] = {}
        self._chains: dict[str, Chain] = {}

    def ignored(self, path: str, is_directory: bool) -> bool:
        absolute = os.path.abspath(path)
        for base, spec in self._chain(os.path.dirname(absolute)):
            decision = _decide(spec, absolute, base, is_directory)
            if decision is not None:
                return decision
        return False

    def _chain(self, directory: str) -> Chain:
        found = self._chains.get(directory)
        if found is None:
            found = self._layered(self._ignores, directory, ".ignore", lambda folder: False)
            repository = self._repository_of(directory)
            if repository is not None:
                found += self._layered(self._gitignores, directory, ".gitignore", lambda f: f == repository)
                exclude = self._spec(os.path.join(repository, ".git", "info", "exclude"))
                found += ((repository, exclude),) if exclude is not None else ()
            self._chains[directory] = found
        return found

    def _layered(
        self, known: dict[str, Chain], directory: str, name: str, top: Callable[[str], bool]
    ) -> Chain:
        """The `name` files of `directory` and the folders above it up to `top` (or the root),
        nearest first; the folders not yet in `known` are added, from the top down."""
        unknown = []
        folder = directory
        while folder not in known:
            unknown.append(folder)
            parent = os.path.dirname(folder)
            if parent == folder or top(folder):
                break
            folder = parent
        for folder in reversed(unknown):
            parent = os.path.dirname(folder)
            above = () if parent == folder or top(folder) else known[parent]
            spec = self._spec(os.path.join(folder, name))
            known[folder] = (((folder, spec),) if spec is not None else ()) + above
        return known[directory]

    def _spec(self, file: str) -> GitIgnoreSpec | None:
        if file not in self._specs:
            self._specs[file] = _read_spec(file)
        return self._specs[file]

    def _repository_of(self, directory: str) -> str | None:
        """The root of the git work tree `directory` is in (the nearest folder with `.git`)."""
        unknown = []
        folder = directory
        found: str | None = None
        while folder not in self._repository:
            unknown.append(folder)
            if os.path.exists(os.path.join(folder, ".git")):
                found = folder
                break
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        else:
            found = self._repository[folder]
        for folder in unknown:
            self._repository[folder] = found
        return self._repository[directory]


def _decide(spec: GitIgnoreSpec, path: str, base: str, is_directory: bool) -> bool | None:
    """True: ignored; False: re-included by a `!` pattern; None: no pattern of `spec` matches."""
    relative = os.path.relpath(path, base).replace(os.sep, "/")
    if relative.startswith("../"):
        return None
    return spec.check_file(relative + "/" if is_directory else relative).include


MAX_IGNORE_FILE_BYTES = 1024 * 1024


def _read_spec(path: str) -> GitIgnoreSpec | None:
    """The patterns of an ignore file; None when there is none to read: absent (the usual case),
    a directory, unreadable, a FIFO or a device (never blocking), or past 1 MiB (never read whole:
    `.gitignore -> /dev/zero`)."""
    from tilecheck.source.reading import ReadFailure, read_bytes

    data = read_bytes(path, MAX_IGNORE_FILE_BYTES)
    if isinstance(data, ReadFailure):
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    from pathspec import GitIgnoreSpec  # only when a project has ignore files

    return GitIgnoreSpec.from_lines(lines)
