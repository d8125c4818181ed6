"""The TileLang versions a project declares: `[project] dependencies` or a requirements file.

Walking up from a file's directory, the first directory that declares `tilelang` decides: its
`pyproject.toml` (`[project] dependencies` and `optional-dependencies`), else its
`requirements*.txt` files. The walk stops at a project root (a `pyproject.toml` with a
`[project]` table, or a `.git`) that declares nothing: such a project does not say.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass

from tilecheck.config.file import read_bytes, tomllib
from tilecheck.core.errors import ConfigError
from tilecheck.report import display_path

# PEP 508: a name, optional extras, then the version specifier (up to a marker or a URL).
_REQUIREMENT = re.compile(
    r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(\(?)([^;@#]*?)\)?\s*(?:[;#@].*)?$"
)


@dataclass(frozen=True)
class Declaration:
    spec: str  # "" when the requirement names no version
    origin: str  # "pyproject.toml: [project] dependencies", for messages


def _is_tilelang(name: str) -> bool:
    return re.sub(r"[-_.]+", "-", name).lower() == "tilelang"


def requirement_spec(line: str) -> str | None:
    """The version specifier of a `tilelang` requirement line ("" for none), else None."""
    match = _REQUIREMENT.match(line)
    if match is None or not _is_tilelang(match.group(1)):
        return None
    return re.sub(r"\s+", "", match.group(4))


def _from_pyproject(path: str) -> tuple[Declaration | None, bool]:
    """(the declaration, whether the file has a `[project]` table)."""
    try:
        data = tomllib.loads(read_bytes(path).decode("utf-8"))
    except (ConfigError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):  # not ours to judge
        return None, False
    project = data.get("project")
    if not isinstance(project, dict):
        return None, False
    groups: list[tuple[str, object]] = [("dependencies", project.get("dependencies"))]
    optional = project.get("optional-dependencies")
    if isinstance(optional, dict):
        groups += [(f"optional-dependencies.{name}", items) for name, items in optional.items()]
    for key, items in groups:
        for item in items if isinstance(items, list) else ():
            spec = requirement_spec(item) if isinstance(item, str) else None
            if spec is not None:
                return Declaration(spec, f"{display_path(path)}: [project] {key}"), True
    return None, True


def _from_requirements(directory: str) -> Declaration | None:
    for path in sorted(glob.glob(os.path.join(glob.escape(directory), "requirements*.txt"))):
        try:
            text = read_bytes(path).decode("utf-8", errors="replace")
        except ConfigError:  # unreadable: it declares nothing we can use
            continue
        for line in text.splitlines():
            spec = requirement_spec(line)
            if spec is not None:
                return Declaration(spec, display_path(path))
    return None


def find_declaration(
    directory: str, cache: dict[str, Declaration | None] | None = None
) -> Declaration | None:
    """The nearest declaration of `tilelang` at or above `directory` (None: none declared)."""
    cache = cache if cache is not None else {}
    visited: list[str] = []
    current = os.path.abspath(directory)
    found: Declaration | None = None
    while True:
        if current in cache:
            found = cache[current]
            break
        visited.append(current)
        pyproject = os.path.join(current, "pyproject.toml")
        is_root = os.path.exists(os.path.join(current, ".git"))
        if os.path.isfile(pyproject):
            found, has_project = _from_pyproject(pyproject)
            is_root = is_root or has_project
        if found is None:
            found = _from_requirements(current)
        parent = os.path.dirname(current)
        if found is not None or is_root or parent == current:
            break
        current = parent
    for seen in visited:
        cache[seen] = found
    return found
