"""Which other files the analysis of a file may read: what a cached result depends on.

The TileLang model reads the project modules a kernel file takes `T`, macros or loaders from
(`tilecheck/tilelang/project.py`), with `find_module` below. The PyPTO checks read the module-level
constants of project modules the file imports (`tilecheck/pypto/consts.py`), found in the
file's folder and the folders above it, and follow those modules' imports in turn. This module
lists, for a PyPTO file, every file such an import can resolve to, transitively, and every
candidate location looked at before it (a file created there later would win): a superset of
what the analysis reads, so a cached result is never reused after one of them changed.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator

from tilecheck.source import python_ast
from tilecheck.source.kernel_code import may_hold_kernel_code
from tilecheck.source.reading import read_text

MAX_FILES = 64  # as many as the constant reader follows (the TileLang reader follows fewer)
_PARENT_FOLDERS = 6  # an absolute import is looked up in the file's folder and 5 above it


def imported_files(path: str, text: str | None) -> list[str]:
    """Absolute paths (present or not) whose content can change `path`'s results, sorted."""
    if not text or not may_hold_kernel_code(text):
        return []
    origin = os.path.abspath(path)
    found: set[str] = set()
    pending = [(origin, text)]
    visited = {origin}
    while pending and len(visited) <= MAX_FILES:
        file, source = pending.pop()
        for candidate, exists in _candidates(file, source):
            found.add(candidate)
            if exists and candidate not in visited:
                visited.add(candidate)
                nested = read_text(candidate)
                if nested is not None:
                    pending.append((candidate, nested))
    found.discard(origin)
    return sorted(found)


def _candidates(file: str, source: str) -> Iterator[tuple[str, bool]]:
    """Every location an import of `source` is looked up at, up to the first that exists."""
    try:
        tree = python_ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level and not base:  # `from . import T`: the package's `__init__.py`
                folder = os.path.dirname(file)
                for _ in range(node.level - 1):
                    folder = os.path.dirname(folder)
                init = os.path.join(folder, "__init__.py")
                yield init, os.path.isfile(init)
            names = [base] if base else []
            names += [f"{base}.{alias.name}" if base else alias.name for alias in node.names]
            for name in names:
                yield from _lookups(file, node.level, name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                for end in range(1, len(parts) + 1):  # `import a.b` binds `a`: a/__init__.py too
                    yield from _lookups(file, 0, ".".join(parts[:end]))


def find_module(file: str, level: int, dotted_name: str) -> str | None:
    """The project file an import in `file` resolves to (`from ..a.b import c` is level 2,
    `a.b`): in the folder `level` steps up, or for an absolute import in the file's folder,
    the folders above it and the project root (the nearest configuration file's folder); None when no such file exists. PyPTO's constant reader uses this."""
    for candidate, exists in _lookups(file, level, dotted_name):
        if exists:
            return candidate
    return None


def _lookups(file: str, level: int, dotted_name: str) -> Iterator[tuple[str, bool]]:
    """Each location looked at, and whether it exists, up to the first that does."""
    if not dotted_name or dotted_name == "*":
        return
    parts = dotted_name.split(".")
    here = os.path.dirname(file)
    bases: list[str] = []
    if level:
        for _ in range(level - 1):
            here = os.path.dirname(here)
        bases.append(here)
    else:
        for _ in range(_PARENT_FOLDERS):
            bases.append(here)
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
        root = project_root(file)
        if root is not None:  # the configuration's project root however deep the file is, and
            for base in (root, os.path.join(root, "src")):  # its `src/` layout
                if base not in bases:
                    bases.append(base)
    for base in bases:
        stem = os.path.join(base, *parts)
        for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
            exists = os.path.isfile(candidate)
            yield candidate, exists
            if exists:
                return


CONFIG_FILES = ("pyproject.toml", "tilecheck.toml", ".tilecheck.toml")


def project_root(file: str) -> str | None:
    """The folder of the configuration file nearest above `file` (its project root), if any."""
    folder = os.path.dirname(os.path.abspath(file))
    while True:
        if any(os.path.isfile(os.path.join(folder, name)) for name in CONFIG_FILES):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
