"""The `tilecheck` command line: a thin layer over configuration, the engine and the reporters.

Exit codes (ruff's): 0 clean, 1 diagnostics (optimization-grade findings never count),
2 usage, configuration or plugin errors, failed writes, or an internal failure.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from tilecheck import __version__
from tilecheck.config import GRADES, ConfigError, Overrides, Resolver, Settings, describe
from tilecheck.engine import FileAnalysis, lint_file, lint_source, read_source
from tilecheck.report import FORMATS, Run, display_path
from tilecheck.runner import DEFAULT_MEMORY, DEFAULT_TIMEOUT
from tilecheck.selection import SelectionError, split, validate
from tilecheck.types import Diagnostic, Grade, Severity
from tilecheck.workspace import Options, Workspace

OUTPUT_FORMATS = FORMATS
COMMANDS = ("check", "rule", "rules", "debug-config", "lower", "inventory", "explain", "backends")


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # exit code 2 with a one-line message, as argparse does
        self.print_usage(sys.stderr)
        raise UsageError(message)


def _add_config_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("configuration")
    group.add_argument("--config", metavar="PATH", help="use this configuration file for every file")
    group.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    group.add_argument(
        "--select", action="append", metavar="CODES", help="rules to enable (codes, prefixes, names)"
    )
    group.add_argument("--extend-select", action="append", metavar="CODES", help="rules to enable as well")
    group.add_argument("--ignore", action="append", metavar="CODES", help="rules to disable")
    group.add_argument(
        "--grade", metavar="GRADES", help=f"only rules of these grades ({','.join(GRADES)}; comma-separated)"
    )
    group.add_argument("--backend", metavar="NAME", help="backend capability profile (e.g. cuda-sm90)")


def _budget(kind):
    def parse(value: str):
        try:
            number = kind(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
        if number < 0:
            raise argparse.ArgumentTypeError("must be 0 (no limit) or more")
        return number or None

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tilecheck", description="Static semantic checks for TileLang kernel loops.")
    parser.add_argument("--version", action="version", version=f"tilecheck {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    check = commands.add_parser("check", help="check files and directories (the default command)")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    check.add_argument(
        "--output-format", default=None, help=f"{', '.join(OUTPUT_FORMATS)} (or TILECHECK_OUTPUT_FORMAT)"
    )
    check.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE")
    check.add_argument("--statistics", action="store_true", help="count diagnostics per rule instead")
    check.add_argument("--show-fixes", action="store_true", help="list the files and rules --fix fixed")
    check.add_argument("--exit-zero", action="store_true", help="exit with 0 even with diagnostics")
    check.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="check files in N processes (default: one per core)",
    )
    check.add_argument(
        "--per-file-timeout",
        type=_budget(float),
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"stop checking a file after SECONDS (TL004; 0: no limit; default {DEFAULT_TIMEOUT:g})",
    )
    check.add_argument(
        "--per-file-memory",
        type=_budget(int),
        default=DEFAULT_MEMORY,
        metavar="MIB",
        help=f"memory a file may take, in MiB (TL004; 0: no limit; default {DEFAULT_MEMORY})",
    )
    check.add_argument(
        "--exit-non-zero-on-fix", action="store_true", help="exit with 1 when a fix was applied"
    )
    check.add_argument("--fix", action="store_true", help="apply safe fixes")
    check.add_argument("--unsafe-fixes", action="store_true", help="apply (with --fix) unsafe fixes as well")
    check.add_argument("--diff", action="store_true", help="print the fixes as a diff; change nothing")
    check.add_argument(
        "--add-ignore",
        nargs="?",
        const="",
        default=None,
        metavar="REASON",
        help="add `# tilecheck: ignore[...]` comments for every finding (a baseline); --add-ignore=REASON",
    )
    check.add_argument(
        "--force-exclude", action="store_true", help="apply exclusions to paths given explicitly too"
    )
    _add_config_options(check)

    rule = commands.add_parser("rule", help="explain a rule (Markdown)")
    rule.add_argument("code", metavar="CODE", nargs="?")
    rule.add_argument("--all", action="store_true", help="explain every rule")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")

    rules = commands.add_parser("rules", help="list the rules")
    rules.add_argument("--output-format", choices=("text", "json", "markdown"), default="text")

    debug = commands.add_parser("debug-config", help="show the configuration that applies to FILE")
    debug.add_argument("file", metavar="FILE")
    debug.add_argument("--output-format", choices=("text", "json"), default="text")
    _add_config_options(debug)

    try:
        from tilecheck.commands.lower import add_lower_parser
    except ImportError:  # the lowering core is optional at import time
        pass
    else:
        add_lower_parser(commands)
    from tilecheck import backends, explain, inventory  # issue 4: inventory, explain, backends

    for module in (inventory, explain, backends):
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in COMMANDS and args_list[0] not in ("-h", "--help", "--version")):
        args_list.insert(0, "check")
    # `--add-ignore[=REASON]`: a reason needs `=`, so a bare flag never swallows a path.
    args_list = ["--add-ignore=" if arg == "--add-ignore" else arg for arg in args_list]
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
        if args.command == "check":
            return run_check(args)
        if args.command in ("rule", "rules"):
            from tilecheck.explain_rule import run_rule, run_rules

            return run_rule(args) if args.command == "rule" else run_rules(args)
        if args.command == "debug-config":
            return run_debug_config(args)
        if args.command == "lower":
            from tilecheck.commands.lower import run_lower

            return run_lower(args)
        if args.command in ("inventory", "explain", "backends"):
            module = __import__(f"tilecheck.{args.command}", fromlist=["run"])
            return module.run(args)
        parser.print_help()
        return 2
    except UsageError as error:
        print(f"tilecheck: error: {error}", file=sys.stderr)
        return 2
    except ConfigError as error:  # includes plugin errors
        print(f"tilecheck: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tilecheck ... | head`
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as error:  # a bug in tilecheck: one clear line, the traceback only on request
        if os.environ.get("TILECHECK_TRACEBACK"):
            raise
        where = f" ({type(error).__name__} at {_origin(error)})"
        print(
            f"tilecheck: internal error: {error}{where}; set TILECHECK_TRACEBACK=1 for details",
            file=sys.stderr,
        )
        return 2


def _origin(error: BaseException) -> str:
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "?"
    frame = frames[-1]
    return f"{os.path.basename(frame.filename)}:{frame.lineno}"


# -- configuration -------------------------------------------------------------------------------


def options_from(args: argparse.Namespace) -> Options:
    grades = None
    if args.grade is not None:
        grades = frozenset(split([args.grade]))
        unknown = sorted(grades - set(GRADES))
        if unknown or not grades:
            raise UsageError(
                f"--grade: unknown grade `{', '.join(unknown)}` (choose from {', '.join(GRADES)})"
            )
    return Options(
        select=tuple(split(args.select)) if args.select else None,
        extend_select=tuple(split(args.extend_select)),
        ignore=tuple(split(args.ignore)),
        backend=args.backend,
        grades=grades,
        output_format=args.output_format if args.command == "check" else None,
        config_path=args.config,
        isolated=args.isolated,
        per_file_timeout=getattr(args, "per_file_timeout", DEFAULT_TIMEOUT),
        per_file_memory=getattr(args, "per_file_memory", DEFAULT_MEMORY),
    )


def workspace_from(args: argparse.Namespace) -> Workspace:
    return Workspace(options_from(args))


def _resolver(args: argparse.Namespace) -> Resolver:
    """The configuration resolver; `--backend` is validated with the first settings resolved."""
    return workspace_from(args).resolver


def _validate_cli_selectors(resolver: Resolver, overrides: Overrides) -> None:
    selectors = [*(overrides.select or ()), *overrides.extend_select, *overrides.ignore]
    if not selectors:
        return
    known = {rule for settings in resolver.all_settings() for rule in settings.rules}
    if not known:
        known = set(resolver.for_directory(resolver.cwd).rules)
    try:
        validate(selectors, known)
    except SelectionError as error:
        raise UsageError(str(error)) from None


# -- check ---------------------------------------------------------------------------------------


def run_check(args: argparse.Namespace) -> int:
    if args.diff and args.add_ignore is not None:
        raise UsageError("--diff and --add-ignore cannot be combined")
    if args.fix and args.add_ignore is not None:
        raise UsageError("--fix and --add-ignore cannot be combined")
    if args.add_ignore is not None and any(c in args.add_ignore for c in "\r\n#"):
        raise UsageError("--add-ignore reason must be one line without `#`")
    workspace = workspace_from(args)
    resolver = workspace.resolver
    overrides = resolver.overrides
    files = workspace.discover(args.paths, force_exclude=args.force_exclude)
    settings_of = {path: resolver.for_path(path) for path in files}
    _validate_cli_selectors(resolver, overrides)
    output_format = _output_format(args, resolver)
    unsafe = bool(args.unsafe_fixes)
    fixing = args.fix or args.diff

    diagnostics: list[Diagnostic] = []
    sources: dict[str, str] = {}
    internal_error = False
    write_errors: list[str] = []
    diffs: list[str] = []
    fixed = 0
    fixes: list[Diagnostic] = []
    added = 0
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    linted = {}
    if not fixing and args.add_ignore is None:
        linted = workspace.check_files(files, jobs=args.jobs).analyses
    for path in files:
        file_settings = settings_of[path].for_file(path)
        if path in linted:
            result = linted[path]
        elif fixing or args.add_ignore is not None:
            result, count, problem, diff, applied = _rewrite(path, file_settings, args, unsafe)
            if problem:
                write_errors.append(f"{display_path(path)}: {problem}")
            if diff:
                diffs.append(diff)
            if args.add_ignore is not None:
                added += count
            else:
                fixed += count
                fixes += applied
        else:
            result = lint_file(path, file_settings)
        internal_error = internal_error or result.internal_error
        if result.diagnostics:
            diagnostics.extend(result.diagnostics)
            if result.text is not None:
                sources[path] = result.text
    for message in write_errors:
        print(f"tilecheck: error: {message}", file=sys.stderr)

    if args.add_ignore is not None:
        print(f"Added {added} suppression comment{'' if added == 1 else 's'}.", file=sys.stderr)
        return 2 if internal_error or write_errors else 0
    if args.diff:
        with _output(args.output_file) as out:
            if args.statistics:  # what the diff is about, per rule
                from tilecheck.report import statistics

                diagnostics.sort(key=lambda d: (display_path(d.path), d.span.line, d.span.column, d.code))
                statistics.render(
                    Run(diagnostics, sources, len(files), unsafe_fixes=unsafe), output_format, out
                )
            else:
                for diff in diffs:
                    out.write(diff)
        would = fixed
        print(f"Would fix {would} diagnostic{'' if would == 1 else 's'}.", file=sys.stderr)
        return 2 if internal_error or write_errors else (1 if diffs else 0)

    diagnostics.sort(key=lambda d: (display_path(d.path), d.span.line, d.span.column, d.code, d.message))
    enabled = {rule for path in files for rule in settings_of[path].for_file(path).rules}
    run = Run(
        diagnostics,
        sources,
        len(files),
        rules=tuple(sorted(enabled, key=lambda r: r.CODE)),
        fixed=fixed,
        unsafe_fixes=unsafe,
        show_fix_hint=not args.fix,
        successful=not internal_error,
        fixes=fixes,
        show_fixes=args.show_fixes,
    )
    with _output(args.output_file) as out:
        if args.statistics:
            from tilecheck.report import statistics

            statistics.render(run, output_format, out)
        else:
            reporter = __import__(f"tilecheck.report.{output_format.replace('-', '_')}", fromlist=["render"])
            reporter.render(run, out)
    if internal_error or write_errors:
        return 2
    if args.exit_zero:
        return 0
    if args.fix and args.exit_non_zero_on_fix and fixed:
        return 1
    return 1 if any(is_failure(d) for d in diagnostics) else 0


def is_failure(diagnostic: Diagnostic) -> bool:
    """Errors and warnings fail a run; notes (optimization findings) never do."""
    return diagnostic.severity is not Severity.INFO and diagnostic.grade is not Grade.OPTIMIZATION


def _output_format(args: argparse.Namespace, resolver: Resolver) -> str:
    chosen = args.output_format or os.environ.get("TILECHECK_OUTPUT_FORMAT")
    where = "--output-format" if args.output_format else "TILECHECK_OUTPUT_FORMAT"
    if not chosen:
        value, origin = resolver.for_directory(resolver.cwd).lookup("output-format")
        chosen, where = (str(value), f"{origin.label}: `output-format`") if origin else ("full", "")
    if chosen not in OUTPUT_FORMATS:
        raise UsageError(
            f"{where}: unknown output format `{chosen}` (choose from {', '.join(OUTPUT_FORMATS)})"
        )
    return chosen


class _output:
    """stdout, or a file written when the report is complete."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.buffer: TextIO = io.StringIO() if path else sys.stdout

    def __enter__(self) -> TextIO:
        return self.buffer

    def __exit__(self, kind, value, traceback) -> None:
        if self.path and kind is None:
            try:
                directory = os.path.dirname(self.path)
                if directory:
                    os.makedirs(directory, exist_ok=True)
                with open(self.path, "w", encoding="utf-8") as handle:
                    handle.write(self.buffer.getvalue())  # type: ignore[attr-defined]
            except OSError as error:
                raise UsageError(
                    f"--output-file: cannot write {self.path}: {error.strerror or error}"
                ) from None


def _rewrite(
    path: str, settings, args: argparse.Namespace, unsafe: bool
) -> tuple[FileAnalysis, int, str, str, list[Diagnostic]]:
    """--fix, --diff or --add-ignore on one file: (final result, count, write problem, diff, fixed)."""
    from tilecheck.fixes import WriteError, encode_like, fix_text, fixable, write_atomic
    from tilecheck.suppressions import add_ignores

    data, failure = read_source(path)
    if failure is not None:
        return FileAnalysis(path, [failure]), 0, "", "", []
    assert data is not None
    first = lint_source(data, path, settings)
    if first.text is None:
        return first, 0, "", "", []
    original = first.text
    applied: list[Diagnostic] = []
    if args.add_ignore is not None:
        targets = [d for d in first.diagnostics if d.grade is not Grade.META]
        text, count = add_ignores(original, targets, args.add_ignore)
        result = lint_source(text, path, settings) if count else first
    else:
        if not any(fixable(d, unsafe) for d in first.diagnostics):
            return first, 0, "", "", []
        outcome = fix_text(
            original, lambda text: lint_source(text, path, settings), unsafe=unsafe, first=first
        )
        text, count, result = outcome.text, len(outcome.fixed), outcome.result  # type: ignore[assignment]
        applied = outcome.fixed
    if text == original:
        return result, 0, "", "", []
    if args.diff:
        name = display_path(path)
        diff = "".join(
            difflib.unified_diff(
                original.splitlines(keepends=True), text.splitlines(keepends=True), f"a/{name}", f"b/{name}"
            )
        )
        return first, count, "", diff, applied
    try:
        write_atomic(path, encode_like(data, text), expected=data)
    except WriteError as error:
        return first, 0, f"not modified: {error}", "", []
    return result, count, "", "", applied


# -- debug-config ----------------------------------------------------------------------------------


def run_debug_config(args: argparse.Namespace) -> int:
    resolver = _resolver(args)
    path = args.file
    settings: Settings = resolver.for_path(path)
    file_settings = settings.for_file(path)
    _validate_cli_selectors(resolver, resolver.overrides)
    excluded = settings.is_excluded(path)
    rows = describe(settings, path)
    chain = [config.label for config in settings.chain]
    if args.output_format == "json":
        dump_json(
            {
                "file": display_path(path),
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
        reason = "--isolated" if resolver.isolated else "none found"
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
        severity = file_settings.severity(rule.CODE, rule.severity()).value
        print(f"  {rule.CODE}  {rule.NAME}  [{rule.GRADE.value}, {severity}]")
    return 0


def dump_json(value: object) -> None:
    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
