"""`tilecheck debug-config FILE`: the configuration that applies to FILE, and where each value came from."""

from __future__ import annotations

import argparse
import json

from tilecheck.app.supervisor import DEFAULT_MEMORY, DEFAULT_TIMEOUT
from tilecheck.cli.options import add_config_options, dump_json, require_paths, workspace_from
from tilecheck.config.resolver import DEFAULT_EXCLUDE, KEYS, Settings
from tilecheck.report import data_path, display_path
from tilecheck.tilelang.versions import VersionRange


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    debug = subparsers.add_parser("debug-config", help="show the configuration that applies to FILE")
    debug.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        default=".",
        help="a file or directory (default: the working directory)",
    )
    debug.add_argument("--output-format", choices=("text", "json"), default="text")
    add_config_options(debug)


def run(args: argparse.Namespace) -> int:
    path = args.file
    require_paths([path])
    workspace = workspace_from(args)
    settings = workspace.settings_for(path)
    file_settings = workspace.file_settings(path)
    workspace.validate_selectors([path])
    excluded = settings.is_excluded(path)
    rows = describe(settings)
    rows.append(_tilelang_row(file_settings.tilelang))
    chain = [config.label for config in settings.chain if not config.name]  # files, not the command line
    if args.output_format == "json":
        dump_json(
            {
                "file": data_path(path),
                "configuration": chain[::-1],
                "excluded": excluded,
                "settings": {key: {"value": value, "origin": origin} for key, value, origin in rows},
                "rules": [rule.CODE for rule in file_settings.rules],
            }
        )
        return 0
    print(f"File: {display_path(path)}")
    if chain:
        print(f"Configuration: {chain[-1]}")
        for label in chain[-2::-1]:
            print(f"  extends: {label}")
    else:
        reason = "--isolated" if workspace.options.isolated else "none found"
        print(f"Configuration: ({reason}; defaults)")
    print(
        f"Excluded: {'yes (checked only when given explicitly, without --force-exclude)' if excluded else 'no'}"
    )
    print("Settings:")
    width = max(len(key) for key, _, _ in rows)
    for key, value, origin in rows:
        print(f"  {key:<{width}} = {json.dumps(value)}  # {origin}")
    print(f"Rules enabled for this file ({len(file_settings.rules)}):")
    for rule in file_settings.rules:
        severity = file_settings.severity(rule.CODE, rule.SEVERITY).value
        print(f"  {rule.CODE}  {rule.NAME}  [{rule.GRADE.value}, {severity}]")
    return 0


# Keys every file of the chain adds to (the command line's layer too), rather than the nearest one setting.
STACKED = (
    "extend-select",
    "extend-exclude",
    "extend-per-file-ignores",
    "extend-safe-fixes",
    "extend-unsafe-fixes",
)


def describe(settings: Settings) -> list[tuple[str, object, str]]:
    """(key, value, origin) for every setting of a directory's configuration."""
    overrides = settings.resolver.overrides
    rows: list[tuple[str, object, str]] = []
    cli_values = {
        "select": overrides.select,
        "extend-select": overrides.extend_select or None,
        "ignore": overrides.ignore or None,
        "backend": overrides.backend,
        "output-format": overrides.output_format,
    }
    for key in KEYS:
        if key in ("extend", "tilelang-version"):  # tilelang-version: per file, from `run`
            continue
        if key in STACKED:
            collected = [(c.strings(key) or (), c.label) for c in settings.chain if key in c.values]
            value: object = [item for values, _ in collected for item in values]
            if key == "extend-per-file-ignores":
                value = {p: codes for c in settings.chain for p, codes in c.table(key).items()}
            origin = ", ".join(label for _, label in collected) or "default"
        else:
            value, config = settings.lookup(key)
            origin = config.label if config is not None else "default"
        if cli_values.get(key) is not None:
            value, origin = cli_values[key], "command line"
        if value is None:
            value = _default(key)
        rows.append((key, value, origin))
    if overrides.grades is not None:
        rows.append(("grade", sorted(overrides.grades), "command line"))
    return rows


def _tilelang_row(tilelang: VersionRange) -> tuple[str, object, str]:
    """The TileLang releases the file is checked against: the range as written (or the measured
    releases it selects, for the default) and its origin, with the releases it selects."""
    value = tilelang.spec if tilelang.spec is not None else list(tilelang.versions)
    return "tilelang-version", value, f"{tilelang.origin}; releases: {tilelang.describe()}"


def _default(key: str) -> object:
    return {
        "select": ["ALL"],
        "fixable": ["ALL"],
        "exclude": list(DEFAULT_EXCLUDE),
        "output-format": "full",
        "backend": None,
        "per-file-ignores": {},
        "extend-per-file-ignores": {},
        "severity": {},
        "respect-gitignore": True,
        "backends": {},
        "per-file-timeout": DEFAULT_TIMEOUT,
        "per-file-memory": DEFAULT_MEMORY,
    }.get(key, [])
