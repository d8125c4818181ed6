"""Option groups and argument conversions shared by the subcommands (never a command's own logic)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from tilecheck.app.budget import DEFAULT_MEMORY, DEFAULT_TIMEOUT
from tilecheck.app.workspace import Options, Workspace
from tilecheck.cli.config_flags import add_config_value_options, config_arguments, config_values
from tilecheck.config.resolver import GRADES
from tilecheck.config.selection import split
from tilecheck.core.errors import UsageError


def _budget(kind: type[int] | type[float]) -> Callable[[str], float]:
    """A per-file budget: a non-negative number, 0 meaning no limit."""

    def parse(value: str) -> float:
        from tilecheck.config import budgets

        try:
            return budgets.parse(value, whole=kind is int)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parse


def add_budget_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup, doing: str) -> None:
    """`--per-file-timeout` and `--per-file-memory` (`doing`: "checking", "lowering")."""
    parser.add_argument(
        "--per-file-timeout",
        type=_budget(float),
        default=None,
        metavar="SECONDS",
        help=f"stop {doing} a file after SECONDS, reporting it too complex (0: no limit; default: `per-file-timeout`, else {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--per-file-memory",
        type=_budget(int),
        default=None,
        metavar="MIB",
        help=f"memory a file may take, in MiB, beyond which it is too complex (0: no limit; default: `per-file-memory`, else {DEFAULT_MEMORY})",
    )


def add_trust_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """Which configuration files apply, and whether their local plugins may run."""
    group = parser.add_argument_group("configuration")
    group.add_argument(
        "--config",
        action="append",
        metavar="PATH|KEY=VALUE",
        help='use this configuration file for every file; or set one key (TOML, e.g. `select = ["TL1"]`), over every file\'s',
    )
    group.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    group.add_argument(
        "--allow-plugins",
        action="store_true",
        default=None,
        help="import the local plugin modules configuration files name (or TILECHECK_ALLOW_PLUGINS=1)",
    )
    return group


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """The trust options plus rule selection, grades and the backend."""
    group = add_trust_options(parser)
    group.add_argument(
        "--select", action="append", metavar="CODES", help="rules to enable (codes, prefixes, names)"
    )
    group.add_argument("--extend-select", action="append", metavar="CODES", help="rules to enable as well")
    group.add_argument("--ignore", action="append", metavar="CODES", help="rules to disable")
    group.add_argument(
        "--grade", metavar="GRADES", help=f"only rules of these grades ({','.join(GRADES)}; comma-separated)"
    )
    group.add_argument("--backend", metavar="NAME", help="backend capability profile (e.g. cuda-sm90)")
    group.add_argument(
        "--tilelang-version",
        metavar="VERSION",
        help='TileLang version or range to check against (e.g. 0.1.15 or ">=0.1.9,<0.2")',
    )
    add_config_value_options(group)


def options_from(args: argparse.Namespace, output_format: str | None = None) -> Options:
    """The application layer's options from parsed arguments (absent groups are defaults)."""
    grades = None
    grade = getattr(args, "grade", None)
    if grade is not None:
        grades = frozenset(split([grade]))
        unknown = sorted(grades - set(GRADES))
        if unknown or not grades:
            raise UsageError(
                f"--grade: unknown grade `{', '.join(unknown)}` (choose from {', '.join(GRADES)})"
            )
    select = getattr(args, "select", None)
    nothing = select is not None and not split(select) and not split(getattr(args, "extend_select", None))
    if nothing and not getattr(args, "silent", False):
        # ruff refuses an empty selector; checking with no rule must at least not look like a pass
        warn(
            "No rules are selected (`--select` was given no rule code), so only files that cannot "
            "be read or parsed are reported"
        )
    config_path, assignments = config_arguments(getattr(args, "config", None))
    return Options(
        select=tuple(split(select)) if select else None,
        extend_select=tuple(split(getattr(args, "extend_select", None))),
        ignore=tuple(split(getattr(args, "ignore", None))),
        backend=getattr(args, "backend", None),
        tilelang_version=getattr(args, "tilelang_version", None),
        grades=grades,
        output_format=output_format,
        config_path=config_path,
        config_values=config_values(args, assignments),
        isolated=bool(getattr(args, "isolated", False)),
        allow_plugins=getattr(args, "allow_plugins", None),
        cache=args.command == "check" and not getattr(args, "no_cache", False),
        cache_dir=getattr(args, "cache_dir", None),
        respect_gitignore=getattr(args, "respect_gitignore", None),
        per_file_timeout=getattr(args, "per_file_timeout", None),  # None: the configuration's
        per_file_memory=getattr(args, "per_file_memory", None),
    )


def workspace_from(args: argparse.Namespace, output_format: str | None = None) -> Workspace:
    return Workspace(options_from(args, output_format), on_warning=warn)


def warn(message: str) -> None:
    print(f"tilecheck: warning: {message}", file=sys.stderr)


def require_paths(paths: Sequence[str]) -> None:
    """A path named on the command line must exist (ruff: `No such file or directory`)."""
    missing = [path for path in paths if _missing(path)]
    if missing:
        names = ", ".join(missing)
        raise UsageError(f"{names}: no such file or directory")


def _missing(path: str) -> bool:
    """Only a path that is known not to exist: one that cannot be looked up (a directory on the
    way without search permission, a name too long) is the file's TL003, saying why."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a NUL byte in it
        return True
    except OSError:
        return False
    return False


def dump_json(value: object, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    json.dump(value, out, indent=2, ensure_ascii=False)
    out.write("\n")
