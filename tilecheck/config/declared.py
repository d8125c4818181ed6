"""The TileLang versions a project declares: `[project] dependencies` or a requirements file.

Walking up from a file's directory to its project root, the first directory that declares
`tilelang` decides: its `pyproject.toml` (`[project] dependencies` and `optional-dependencies`),
else its `requirements*.txt` files (read as pip reads them, see `requirements`). The project
root is the nearest directory with a `pyproject.toml`, `setup.cfg`, `setup.py`, `.git` or a
tilecheck configuration file, never above `$HOME`; without one only the file's own directory
is read, so a stray `~/requirements.txt` does not decide for an unrelated file.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass

from tilecheck.config.file import CONFIG_FILES, read_bytes
from tilecheck.core.errors import ConfigError
from tilecheck.report import display_path

# PEP 508: a name, optional extras, then the version specifier (up to a marker or a URL).
_REQUIREMENT = re.compile(
    r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(\(?)([^;@#]*?)\)?\s*(?:[;#@].*)?$"
)


ROOT_MARKERS = (*CONFIG_FILES, "setup.cfg", "setup.py", ".git")


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


def _from_pyproject(path: str) -> Declaration | None:
    from tilecheck.config.toml import tomllib

    try:
        data = tomllib.loads(read_bytes(path).decode("utf-8"))
    except (ConfigError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):  # not ours to judge
        return None
    project = data.get("project")
    if not isinstance(project, dict):
        return None
    groups: list[tuple[str, object]] = [("dependencies", project.get("dependencies"))]
    optional = project.get("optional-dependencies")
    if isinstance(optional, dict):
        groups += [(f"optional-dependencies.{name}", items) for name, items in optional.items()]
    for key, items in groups:
        for item in items if isinstance(items, list) else ():
            spec = requirement_spec(item) if isinstance(item, str) else None
            if spec is not None:
                return Declaration(spec, f"{display_path(path)}: [project] {key}")
    return None


def _from_requirements(directory: str, root: str) -> Declaration | None:
    for path in sorted(glob.glob(os.path.join(glob.escape(directory), "requirements*.txt"))):
        from tilecheck.config.requirements import read_requirements  # only where there is one

        found = read_requirements(path, root, requirement_spec)
        if found is not None:
            spec, origins = found
            return Declaration(spec, ", ".join(display_path(origin) for origin in origins))
    return None


def project_root(
    directory: str, roots: tuple[str, ...] = (), marked: dict[str, bool] | None = None
) -> str | None:
    """The nearest directory at or above `directory` with a root marker (or one of `roots`, the
    directory of a `--config` file), not above $HOME. `marked` remembers which directories have
    a marker (sibling directories share their ancestors)."""
    home = os.path.expanduser("~")
    home = os.path.abspath(home) if home != "~" else ""
    current = os.path.abspath(directory)
    marked = marked if marked is not None else {}
    while True:
        if current not in marked:
            marked[current] = any(os.path.lexists(os.path.join(current, m)) for m in ROOT_MARKERS)
        if current in roots or marked[current]:
            return current
        parent = os.path.dirname(current)
        if current == home or parent == current:
            return None
        current = parent


def find_declaration(
    directory: str,
    cache: dict[str, Declaration | None] | None = None,
    roots: tuple[str, ...] = (),
    marked: dict[str, bool] | None = None,
) -> Declaration | None:
    """The nearest declaration of `tilelang` at or above `directory`, inside its project
    (None: none declared); `marked` as `project_root` has it."""
    cache = cache if cache is not None else {}
    current = os.path.abspath(directory)
    if current in cache:  # before the walk up to the project root: that is a stat per level
        return cache[current]
    root = project_root(current, roots, marked) or current
    visited: list[str] = []
    found: Declaration | None = None
    while True:
        if current in cache:
            found = cache[current]
            break
        visited.append(current)
        pyproject = os.path.join(current, "pyproject.toml")
        if os.path.isfile(pyproject):
            found = _from_pyproject(pyproject)
        if found is None:
            found = _from_requirements(current, root)
        parent = os.path.dirname(current)
        if found is not None or current == root or parent == current:
            break
        current = parent
    for seen in visited:
        cache[seen] = found
    return found
