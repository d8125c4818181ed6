"""The command line's configuration values: `--config KEY=VALUE` (a TOML assignment, as ruff
takes it, or a configuration file's path) and the exclude / per-file-ignores flags. They form
one last configuration layer over every file's (`Options.config_values`)."""

from __future__ import annotations

import argparse
import json
import os
import re

from tilecheck.config.file import check_values
from tilecheck.config.selection import split
from tilecheck.core.errors import ConfigError, UsageError

_BARE_VALUE = re.compile(r"\s*([A-Za-z0-9_.-]+)\s*=\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*")


def add_config_value_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--exclude", action="append", metavar="PATTERNS", help="replace `exclude` (comma-separated globs)"
    )
    group.add_argument(
        "--extend-exclude", action="append", metavar="PATTERNS", help="exclude these globs as well"
    )
    group.add_argument(
        "--per-file-ignores",
        action="append",
        metavar="PATTERN:CODES",
        help="replace `per-file-ignores` (comma-separated PATTERN:CODE pairs, e.g. `tests/*.py:nested-parallel`)",
    )
    group.add_argument(
        "--extend-per-file-ignores",
        action="append",
        metavar="PATTERN:CODES",
        help="ignore these rules in these files as well",
    )


def config_arguments(given: list[str] | None) -> tuple[str | None, list[str]]:
    """`--config` values: (the configuration file, if one was named; the KEY=VALUE assignments)."""
    path: str | None = None
    assignments: list[str] = []
    for value in given or ():
        if "=" in value and not os.path.lexists(value):
            assignments.append(value)
        elif path is not None:
            raise UsageError(f"--config: only one configuration file can be given (got {path} and {value})")
        else:
            path = value
    return path, assignments


def parse_assignment(text: str) -> dict[str, object]:
    """One `--config KEY=VALUE`, validated: UsageError naming it and the key otherwise."""
    from tilecheck.config.toml import tomllib

    label = f"--config `{text}`"
    try:
        table = dict(tomllib.loads(text))
    except tomllib.TOMLDecodeError as error:
        bare = _BARE_VALUE.fullmatch(text)
        hint = _quoted(bare[1], bare[2]) if bare and bare[2] not in ("true", "false") else ""
        raise UsageError(f"{label}: not a TOML `KEY = VALUE` assignment{hint}: {error}") from None
    if not table:
        raise UsageError(f"{label}: not a TOML `KEY = VALUE` assignment")
    if "extend" in table:
        raise UsageError(f"{label}: `extend` names a file to inherit; give it as --config PATH")
    try:
        return check_values("<command line>", table, label)
    except ConfigError as error:  # the key, and what its value must be
        raise UsageError(str(error)) from None


def _quoted(key: str, value: str) -> str:
    """The hint for a bare value: quoted as the string it was meant to be, or, for a key that
    takes an array (`select=TL101`), as an array of its comma-separated parts, whichever the key accepts."""
    string = f'{key} = "{value}"'
    array = f"{key} = [{', '.join(json.dumps(part.strip()) for part in value.split(','))}]"
    from tilecheck.config.toml import tomllib

    for assignment, kind in ((string, "a TOML string needs quotes"), (array, "a TOML array of strings")):
        try:
            check_values("<command line>", dict(tomllib.loads(assignment)), key)
        except (ConfigError, tomllib.TOMLDecodeError):
            continue
        return f" ({kind}: {assignment})"
    return f" (a TOML string needs quotes: {string})"


def _merge(into: dict[str, object], table: dict[str, object]) -> None:
    for key, value in table.items():
        known = into.get(key)
        if isinstance(known, dict) and isinstance(value, dict):
            into[key] = {**known, **value}
        else:
            into[key] = value


def _pattern_codes(values: list[str], flag: str) -> dict[str, list[str]]:
    """`PATTERN:CODE` pairs (comma-separated, as ruff's flag takes them) -> pattern -> codes."""
    table: dict[str, list[str]] = {}
    for pair in split(values):
        pattern, colon, code = pair.rpartition(":")
        if not colon or not pattern.strip() or not code.strip():
            raise UsageError(f"{flag}: `{pair}` is not PATTERN:CODE (e.g. `tests/*.py:nested-parallel`)")
        table.setdefault(pattern.strip(), []).append(code.strip())
    return table


def config_values(args: argparse.Namespace, assignments: list[str]) -> tuple[tuple[str, object], ...]:
    """The configuration keys the command line sets: `--config` assignments in order, then the
    flags (which win)."""
    values: dict[str, object] = {}
    for text in assignments:
        _merge(values, parse_assignment(text))
    for flag, key in (("exclude", "exclude"), ("extend_exclude", "extend-exclude")):
        given = getattr(args, flag, None)
        if given:
            values[key] = split(given)
    for flag, key in (
        ("per_file_ignores", "per-file-ignores"),
        ("extend_per_file_ignores", "extend-per-file-ignores"),
    ):
        given = getattr(args, flag, None)
        if given:
            values[key] = _pattern_codes(given, "--" + flag.replace("_", "-"))
    return tuple(values.items())
