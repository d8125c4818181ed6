"""Reading one configuration file: find the tilecheck table, validate its keys and value types,
and follow `extend`. Resolving what applies to a file is `tilecheck.config.resolver`'s job.

Only regular files are read (a FIFO, a device or a directory named `pyproject.toml` is an
error, never a blocking read), with a size bound that holds while reading.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tilecheck.core.errors import ConfigError
from tilecheck.report import OUTPUT_FORMATS, display_path

__all__ = ["CONFIG_FILES", "KEYS", "ConfigFile", "config_in", "load", "read_bytes", "read_table"]

CONFIG_FILES = (".tilecheck.toml", "tilecheck.toml", "pyproject.toml")
MAX_CONFIG_BYTES = 64 * 1024 * 1024
SEVERITIES = ("error", "warning", "info")


def describe_value(value: object) -> str:
    """What a TOML value is, for messages: `a string`, `an integer`, `a table`..."""
    return {str: "a string", bool: "a boolean", int: "an integer", float: "a number", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)  # fmt: skip


def _shown(value: object) -> str:
    return f"`{value}`" if isinstance(value, str) else describe_value(value)


def _string(value: object) -> str | None:
    return None if isinstance(value, str) else f"got {_shown(value)}"


def _strings(value: object) -> str | None:
    """None when `value` is an array of strings; else what it is instead."""
    if not isinstance(value, list):
        return f"got {_shown(value)}"
    for item in value:
        if not isinstance(item, str):
            shown = repr(item) if len(repr(item)) <= 60 else repr(item)[:57] + "..."
            return f"got an array containing {describe_value(item)} (`{shown}`)"
    return None


def _boolean(value: object) -> str | None:
    return None if isinstance(value, bool) else f"got {_shown(value)}"


def _one_of(choices: tuple[str, ...]) -> Callable[[object], str | None]:
    return lambda value: None if value in choices else f"got {_shown(value)}"


def _table_of(check: Callable[[object], str | None]) -> Callable[[object], str | None]:
    def table(value: object) -> str | None:
        if not isinstance(value, dict):
            return f"got {_shown(value)}"
        for key, item in value.items():
            problem = check(item)
            if problem is not None:
                return f"but `{key}` {problem.replace('got', 'is', 1)}"
        return None

    return table


def _budget(kind: type) -> Callable[[object], str | None]:
    """A per-file budget: a non-negative `kind` (an int is a float too); 0 means no limit."""

    def check(value: object) -> str | None:
        from tilecheck.config import budgets

        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return f"got {_shown(value)}"
        reason = budgets.problem(value, whole=kind is int)
        shown = repr(value) if len(repr(value)) <= 40 else _shown(value)
        return None if reason is None else f"got {shown} ({reason})"

    return check


def _table(value: object) -> str | None:
    return None if isinstance(value, dict) else f"got {_shown(value)}"


_SELECTORS = "an array of rule codes, prefixes or names"
# key -> (check returning None or what is wrong, what the value must be)
SCHEMA: dict[str, tuple[Callable[[object], str | None], str]] = {
    "extend": (_string, "a path (string)"),
    "select": (_strings, _SELECTORS),
    "extend-select": (_strings, _SELECTORS),
    "ignore": (_strings, _SELECTORS),
    "per-file-ignores": (_table_of(_strings), "a table of glob pattern = array of rule codes"),
    "extend-per-file-ignores": (_table_of(_strings), "a table of glob pattern = array of rule codes"),
    "exclude": (_strings, "an array of glob patterns"),
    "extend-exclude": (_strings, "an array of glob patterns"),
    "extend-include": (_strings, "an array of glob patterns"),
    "fixable": (_strings, _SELECTORS),
    "unfixable": (_strings, _SELECTORS),
    "extend-safe-fixes": (_strings, _SELECTORS),
    "extend-unsafe-fixes": (_strings, _SELECTORS),
    "backend": (_string, "a backend profile name (string)"),
    "tilelang-version": (_string, 'a TileLang version or range (string, e.g. "0.1.15" or ">=0.1.9,<0.2")'),
    "plugins": (_strings, "an array of module names"),
    "respect-gitignore": (_boolean, "a boolean"),
    "output-format": (_one_of(OUTPUT_FORMATS), "one of " + ", ".join(OUTPUT_FORMATS)),
    "severity": (_table_of(_one_of(SEVERITIES)), 'a table of grade or rule = "error" | "warning" | "info"'),
    "backends": (_table_of(_table), "a table of backend profile tables"),
    "per-file-timeout": (_budget(float), "a number of seconds, 0 or more (0: no limit)"),
    "per-file-memory": (_budget(int), "a whole number of MiB, 0 or more (0: no limit)"),
}
KEYS = tuple(SCHEMA)


@dataclass
class ConfigFile:
    """One configuration file's validated table."""

    path: str  # absolute
    values: dict[str, object]
    extends: ConfigFile | None = None
    name: str = ""  # how messages name it when it is no file (the command line's `--config KEY=VALUE`)

    @property
    def directory(self) -> str:
        return os.path.dirname(self.path)

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        table = " [tool.tilecheck]" if os.path.basename(self.path) == "pyproject.toml" else ""
        return display_path(self.path) + table

    def strings(self, key: str) -> tuple[str, ...] | None:
        """An array-of-strings value (validated on reading); None when absent."""
        value = self.values.get(key)
        return tuple(str(item) for item in value) if isinstance(value, list) else None

    def table(self, key: str) -> dict[str, Any]:
        """A table value (validated on reading); empty when absent."""
        value = self.values.get(key)
        return value if isinstance(value, dict) else {}

    def chain(self) -> list[ConfigFile]:
        """This file and the ones it extends, farthest first."""
        files: list[ConfigFile] = []
        current: ConfigFile | None = self
        while current is not None:
            files.append(current)
            current = current.extends
        return files[::-1]


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(path: str) -> bytes:
    """The contents of the regular file `path`, never blocking on a FIFO or device."""
    label = display_path(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise ConfigError(f"Cannot read configuration file {label}: {error.strerror or error}") from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):  # before `fdopen`, which refuses a directory with IsADirectoryError
        os.close(descriptor)
        raise ConfigError(f"Cannot read configuration file {label}: it is {_kind(mode)}")
    with os.fdopen(descriptor, "rb") as handle:
        try:
            data = handle.read(MAX_CONFIG_BYTES + 1)
        except OSError as error:
            raise ConfigError(f"Cannot read configuration file {label}: {error.strerror or error}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"Configuration file {label} is larger than {MAX_CONFIG_BYTES // 2**20} MB")
    return data


def read_table(path: str) -> dict[str, object] | None:
    """The tilecheck table of `path`; None for a pyproject.toml without one."""
    from tilecheck.config.toml import tomllib

    data = read_bytes(path)
    label = display_path(path)
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"Invalid TOML in {label}: {error}") from None
    except ValueError as error:  # an integer past Python's 4,300 digits: no budget, no code is
        reason = str(error).split(";")[0]
        raise ConfigError(f"Invalid TOML in {label}: {reason}") from None
    except RecursionError:
        raise ConfigError(f"Invalid TOML in {label}: nested too deeply to read") from None
    document = dict(document)  # `tomllib` is typed as returning `dict[str, Any]`
    if os.path.basename(path) == "pyproject.toml":
        tool = document.get("tool")
        table = tool.get("tilecheck") if isinstance(tool, dict) else None
        if table is None:
            return None
        if not isinstance(table, dict):
            raise ConfigError(f"{label}: `tool.tilecheck` must be a table")
        return {str(key): value for key, value in table.items()}
    return document


def check_values(path: str, table: dict[str, object], label: str = "") -> dict[str, object]:
    """Validate the keys and value types of one table (rule names are checked later);
    messages start with `label` (default: the file's path)."""
    label = label or display_path(path)
    for key, value in table.items():
        if key not in SCHEMA:
            import difflib  # only for an unknown key

            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            raise ConfigError(f"{label}: unknown key `{key}`{hint}; known keys: {', '.join(KEYS)}")
        check, expected = SCHEMA[key]
        problem = check(value)
        if problem is not None:
            raise ConfigError(f"{label}: `{key}` must be {expected}, {problem}")
    return table


def config_in(directory: str, tables: dict[str, dict[str, object]] | None = None) -> str | None:
    """The configuration file of `directory` (one that exists but cannot be a file is an error).
    A pyproject.toml read to see whether it has a table is kept in `tables` for `load`."""
    for name in CONFIG_FILES:
        candidate = os.path.join(directory, name)
        try:
            mode = os.stat(candidate).st_mode
        except FileNotFoundError:
            if os.path.islink(candidate):
                raise ConfigError(
                    f"Cannot read configuration file {display_path(candidate)}: it is a broken symbolic link"
                ) from None
            continue
        except OSError as error:
            if error.errno != errno.ELOOP:
                # The directory cannot be searched (no permission), or the path is too long: as
                # for a directory never reached, there is no configuration here.
                continue
            raise ConfigError(
                f"Cannot read configuration file {display_path(candidate)}: {error.strerror or error}"
            ) from None
        if not stat.S_ISREG(mode):
            raise ConfigError(
                f"Cannot read configuration file {display_path(candidate)}: it is {_kind(mode)}"
            )
        if name == "pyproject.toml":
            table = read_table(candidate)
            if table is None:
                continue
            if tables is not None:
                tables[os.path.abspath(candidate)] = table
        return candidate
    return None


def load(
    path: str, seen: tuple[str, ...] = (), tables: dict[str, dict[str, object]] | None = None
) -> ConfigFile | None:
    """Read one file and what it extends; None for a pyproject.toml without the table.
    `tables` holds tables `config_in` has read already."""
    path = os.path.abspath(path)
    if os.path.realpath(path) in map(os.path.realpath, seen):  # a cycle through a link is one too
        cycle = " -> ".join(display_path(p) for p in (*seen, path))
        raise ConfigError(f"Circular `extend` in configuration: {cycle}")
    known = tables.pop(path, None) if tables is not None else None
    table = known if known is not None else read_table(path)
    if table is None:
        if seen:
            raise ConfigError(
                f"{display_path(seen[-1])}: `extend`: {display_path(path)} has no [tool.tilecheck] table"
            )
        return None
    values = check_values(path, table)
    config = ConfigFile(path, values)
    extend = values.get("extend")
    if isinstance(extend, str):
        target = os.path.join(os.path.dirname(path), os.path.expanduser(extend))
        if not os.path.exists(target):
            raise ConfigError(
                f"{display_path(path)}: `extend`: no such file {display_path(os.path.abspath(target))}"
            )
        config.extends = load(target, (*seen, path))
    return config
