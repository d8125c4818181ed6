"""Which files to check: explicit files always, directories recursively minus the usual noise.

With a configuration, `excluded(path, explicit)` decides instead of the built-in list: it is
asked about every directory and file met while walking (`explicit=False`), and, under
`--force-exclude`, about the paths given on the command line (`explicit=True`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

SKIPPED_DIRECTORIES = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "node_modules", "build", ".venv", "venv", ".tox", ".nox",
     ".mypy_cache", ".ruff_cache", ".pytest_cache", ".eggs", "site-packages"}
)  # fmt: skip
SOURCE_SUFFIXES = (".py", ".pyi")

Excluded = Callable[[str, bool], bool]


def is_virtualenv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def _default_excluded(path: str, explicit: bool) -> bool:
    if explicit:
        return False
    name = os.path.basename(path)
    return name in SKIPPED_DIRECTORIES or name.endswith(".egg-info")


def discover(
    paths: list[str], excluded: Excluded | None = None, force_exclude: bool = False
) -> Iterator[str]:
    """Files to check, in a stable order, each once. A missing path is yielded too (it gets TL003)."""
    test = excluded or _default_excluded
    seen: set[str] = set()
    for path in paths:
        if force_exclude and test(path, True):
            continue
        found = _walk(path, test) if os.path.isdir(path) else iter((path,))
        for file in found:
            key = os.path.normpath(file)
            if key not in seen:
                seen.add(key)
                yield file


def _walk(root: str, excluded: Excluded) -> Iterator[str]:
    # os.walk does not follow symlinked directories, so a symlink loop cannot recurse forever.
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            name
            for name in subdirectories
            if not excluded(os.path.join(directory, name), False)
            and not is_virtualenv(os.path.join(directory, name))
        )
        for name in sorted(files):
            path = os.path.join(directory, name)
            if name.endswith(SOURCE_SUFFIXES) and not excluded(path, False):
                yield path
