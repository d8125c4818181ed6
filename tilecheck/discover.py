"""Which files to check: explicit files always, directories recursively minus the usual noise."""

from __future__ import annotations

import os
from collections.abc import Iterator

SKIPPED_DIRECTORIES = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "node_modules", "build", ".venv", "venv", ".tox", ".nox",
     ".mypy_cache", ".ruff_cache", ".pytest_cache", ".eggs", "site-packages"}
)  # fmt: skip
SOURCE_SUFFIXES = (".py", ".pyi")


def is_virtualenv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def discover(paths: list[str]) -> Iterator[str]:
    """Files to check, in a stable order. A missing path is yielded too (it gets TL003)."""
    for path in paths:
        if os.path.isdir(path):
            yield from _walk(path)
        else:
            yield path


def _walk(root: str) -> Iterator[str]:
    # os.walk does not follow symlinked directories, so a symlink loop cannot recurse forever.
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(
            name
            for name in subdirectories
            if name not in SKIPPED_DIRECTORIES
            and not name.endswith(".egg-info")
            and not is_virtualenv(os.path.join(directory, name))
        )
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(directory, name)
