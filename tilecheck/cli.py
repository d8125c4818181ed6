"""The `tilecheck` command line: a thin layer over the engine and the reporters."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from tilecheck import __version__
from tilecheck.discover import discover
from tilecheck.engine import check_file
from tilecheck.registry import builtin_rules
from tilecheck.report import Run, display_path
from tilecheck.selection import SelectionError, select, split, validate
from tilecheck.types import Diagnostic, Severity

OUTPUT_FORMATS = ("full", "concise", "json")
COMMANDS = ("check", "rule", "rules", "lower")


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # exit code 2 with a one-line message, as argparse does
        self.print_usage(sys.stderr)
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tilecheck", description="Static semantic checks for TileLang kernel loops.")
    parser.add_argument("--version", action="version", version=f"tilecheck {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    check = commands.add_parser("check", help="check files and directories (the default command)")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    check.add_argument("--output-format", choices=OUTPUT_FORMATS, default=None)
    check.add_argument(
        "--select", action="append", metavar="CODES", help="rules to enable (codes, prefixes, names)"
    )
    check.add_argument("--ignore", action="append", metavar="CODES", help="rules to disable")

    rule = commands.add_parser("rule", help="explain a rule")
    rule.add_argument("code", metavar="CODE")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    rules = commands.add_parser("rules", help="list the rules")
    rules.add_argument("--output-format", choices=("text", "json"), default="text")

    try:
        from tilecheck.pypto.cli import add_lower_parser
    except ImportError:  # the lowering core is optional at import time
        pass
    else:
        add_lower_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in COMMANDS and args_list[0] not in ("-h", "--help", "--version")):
        args_list.insert(0, "check")
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
        if args.command == "check":
            return run_check(args)
        if args.command in ("rule", "rules"):
            from tilecheck.explain_rule import run_rule, run_rules

            return run_rule(args) if args.command == "rule" else run_rules(args)
        if args.command == "lower":
            from tilecheck.pypto.cli import run_lower

            return run_lower(args)
        parser.print_help()
        return 2
    except UsageError as error:
        print(f"tilecheck: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def run_check(args: argparse.Namespace) -> int:
    rules = builtin_rules()
    chosen_select = split(args.select) or None
    chosen_ignore = split(args.ignore)
    try:
        validate([*(chosen_select or []), *chosen_ignore], rules)
    except SelectionError as error:
        raise UsageError(str(error)) from None
    selected = select(rules, chosen_select, chosen_ignore)
    output_format = args.output_format or os.environ.get("TILECHECK_OUTPUT_FORMAT") or "full"
    if output_format not in OUTPUT_FORMATS:
        raise UsageError(f"unknown output format `{output_format}` (choose from {', '.join(OUTPUT_FORMATS)})")

    diagnostics: list[Diagnostic] = []
    sources: dict[str, str] = {}
    files = 0
    internal_error = False
    for path in discover(args.paths):
        files += 1
        result = check_file(path, selected)
        internal_error = internal_error or result.internal_error
        if result.diagnostics:
            diagnostics.extend(result.diagnostics)
            if result.source is not None:
                sources[path] = result.source
    diagnostics.sort(key=lambda d: (display_path(d.path), d.span.line, d.span.column, d.code, d.message))
    run = Run(diagnostics, sources, files)
    reporter = __import__(f"tilecheck.report.{output_format}", fromlist=["render"])
    reporter.render(run, sys.stdout)
    if internal_error:
        return 2
    return 1 if any(d.severity is not Severity.INFO for d in diagnostics) else 0


def dump_json(value: object) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
