"""`tilecheck check PATH...` (the default command): check, fix, diff or baseline files."""

from __future__ import annotations

import argparse
import io
import sys
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from tilecheck.cli.options import add_budget_options, add_config_options, require_paths, warn, workspace_from
from tilecheck.cli.progress import ProgressLine
from tilecheck.cli.progress import wanted as progress_wanted
from tilecheck.cli.style import add_color_option, wants_color
from tilecheck.core.catalogue import builtin_entries
from tilecheck.core.errors import UsageError
from tilecheck.report import OUTPUT_FORMATS, Run, display_path, fails, plural
from tilecheck.source.reading import read_text

if TYPE_CHECKING:
    from tilecheck.app.workspace import Workspace
    from tilecheck.config.resolver import FileSettings
    from tilecheck.core.types import Diagnostic
    from tilecheck.lint.analysis import FileAnalysis


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = subparsers.add_parser("check", help="check files and directories (the default command)")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    check.add_argument(
        "--output-format", default=None, help=f"{', '.join(OUTPUT_FORMATS)} (or TILECHECK_OUTPUT_FORMAT)"
    )
    check.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE")
    check.add_argument(
        "--statistics",
        action="store_true",
        help="count diagnostics per rule, and the kernels and loops modeled per file, instead",
    )
    check.add_argument("--show-fixes", action="store_true", help="list the files and rules --fix fixed")
    check.add_argument("--exit-zero", action="store_true", help="exit with 0 even with diagnostics")
    check.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="check files in N processes (default: one per core)",
    )
    add_budget_options(check, "checking")
    check.add_argument(
        "--exit-non-zero-on-fix", action="store_true", help="exit with 1 when a fix was applied"
    )
    check.add_argument("--fix", action="store_true", default=None, help="apply safe fixes")
    check.add_argument(
        "--no-fix", dest="fix", action="store_false", help="do not fix (overrides an earlier --fix)"
    )
    check.add_argument(
        "--fix-only",
        action="store_true",
        help="apply fixes, but do not report or exit non-zero for what is left (implies --fix)",
    )
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
    _add_discovery_and_cache_options(check)
    add_config_options(check)
    _add_verbosity_options(check)


def _add_verbosity_options(check: argparse.ArgumentParser) -> None:
    add_color_option(check)
    verbosity = check.add_mutually_exclusive_group()
    verbosity.add_argument(
        "-q", "--quiet", action="store_true", help="print the diagnostics, but nothing else (no summary)"
    )
    verbosity.add_argument(
        "-s",
        "--silent",
        action="store_true",
        help="print nothing but errors (the exit status still says whether there were diagnostics)",
    )


def _add_discovery_and_cache_options(check: argparse.ArgumentParser) -> None:
    check.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    check.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="result cache (default: TILECHECK_CACHE_DIR, else .tilecheck_cache)",
    )
    gitignore = check.add_mutually_exclusive_group()
    gitignore.add_argument(
        "--respect-gitignore",
        action="store_true",
        default=None,
        help="skip files .gitignore ignores (default)",
    )
    gitignore.add_argument(
        "--no-respect-gitignore",
        dest="respect_gitignore",
        action="store_false",
        help="check files .gitignore, .ignore and .git/info/exclude ignore too",
    )
    check.add_argument("--show-files", action="store_true", help="list the files that would be checked")
    check.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="the path of the source read from stdin (`tilecheck check -`)",
    )


is_failure = fails  # errors and warnings fail a run; notes (optimization findings) never do


def _settle_fix_flags(args: argparse.Namespace) -> None:
    """`--fix-only` implies `--fix`; `--no-fix` turns both off (the last of --fix/--no-fix wins)."""
    if args.fix_only and args.fix is False:
        raise UsageError("--fix-only and --no-fix cannot be combined")
    args.fix = bool(args.fix or args.fix_only)


def say(args: argparse.Namespace, message: str) -> None:
    """A status line on stderr (`Would fix ...`), which `-q` and `-s` leave out."""
    if not (args.quiet or args.silent):
        print(message, file=sys.stderr)


BUDGETED_RULE = "shared-memory-exceeds-limit"  # judges a profile's per-block shared-memory budget


def _warn_unbudgeted(workspace: Workspace, files: list[str]) -> None:
    """The budget rule selected on the command line (`--select TL501`, `TL5`) checks nothing on a
    file whose backend gives no shared-memory budget: said once, or its silence reads as a pass."""
    code = next(entry.CODE for entry in builtin_entries() if entry.NAME == BUDGETED_RULE)
    selectors = [*(workspace.options.select or ()), *workspace.options.extend_select]
    if not any(len(s) >= 3 and code.startswith(s.upper()) for s in selectors):
        return
    judged = [
        settings
        for settings in map(workspace.file_settings, files)
        if any(code == r.CODE for r in settings.rules)
    ]
    if not judged:
        return
    from tilecheck.tilelang.sizing import sized_class  # only with the rule selected by hand

    if any(s.backend is not None and sized_class(s.backend) is not None for s in judged):
        return
    from tilecheck.tilelang.shared_memory import unsized_reason

    unsized = {
        s.backend.name: unsized_reason(s.backend.backend)
        for s in judged
        if s.backend is not None and s.backend.shared_memory_per_block > 0
    }
    why = "".join(f"; not sized on {name}: {reason}" for name, reason in unsized.items())
    warn(
        f"{code} needs a backend with a shared-memory budget whose kernels it sizes (e.g. `--backend "
        f"cuda-sm80`; `tilecheck backends` lists them): it checked no kernel{why}"
    )


def run(args: argparse.Namespace) -> int:
    _settle_fix_flags(args)
    if args.diff and args.add_ignore is not None:
        raise UsageError("--diff and --add-ignore cannot be combined")
    if args.fix and args.add_ignore is not None:
        raise UsageError("--fix and --add-ignore cannot be combined")
    if args.add_ignore is not None and any(c in args.add_ignore for c in "\r\n#"):
        raise UsageError("--add-ignore reason must be one line without `#`")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.paths == ["-"]:
        return _run_stdin(args)
    if "-" in args.paths:
        raise UsageError("`-` (standard input) cannot be combined with other paths")
    require_paths(args.paths)
    workspace = workspace_from(args, args.output_format)
    files = workspace.discover(args.paths, force_exclude=args.force_exclude)
    if args.show_files:
        for path in files:
            print(display_path(path))
        return 0
    if not files and not args.silent:
        print("tilecheck: warning: No Python files found under the given path(s)", file=sys.stderr)
    workspace.validate_selectors(files)
    if not args.silent:
        _warn_unbudgeted(workspace, files)
    output_format = workspace.output_format(args.output_format)
    rewriting = args.fix or args.diff or args.add_ignore is not None

    diagnostics: list[Diagnostic] = []
    sources: dict[str, str] = {}
    write_errors: list[str] = []
    diffs: list[str] = []
    changed = 0  # diagnostics fixed, or suppression comments added
    fixes: list[Diagnostic] = []  # the diagnostics --fix fixed
    progress = ProgressLine(len(files)) if progress_wanted(output_format) else None
    settings: list[FileSettings] | None = None  # the files' settings, when the check resolved them
    if rewriting:
        from tilecheck.app.rewrites import RewriteRequest, plan_rewrites

        request = RewriteRequest(unsafe=bool(args.unsafe_fixes), reason=args.add_ignore)
        try:
            planned = plan_rewrites(workspace, files, request, jobs=args.jobs, progress=progress)
        finally:
            if progress is not None:
                progress.close()
        analyses = []
        for plan in planned:
            rewrite = Rewrite(args, plan)
            analyses.append(rewrite.result)
            changed += rewrite.count
            fixes += rewrite.applied
            if rewrite.problem:
                write_errors.append(f"{display_path(plan.path)}: {rewrite.problem}")
            if rewrite.diff:
                diffs.append(rewrite.diff)
    else:
        try:
            checked = workspace.check_files(files, jobs=args.jobs, progress=progress)
        finally:
            if progress is not None:
                progress.close()
        analyses = [checked.analyses[path] for path in files]
        settings = checked.settings
    internal_error = any(analysis.internal_error for analysis in analyses)
    coverage = {analysis.path: analysis.coverage for analysis in analyses}
    for analysis in analyses:
        if analysis.diagnostics:
            diagnostics.extend(analysis.diagnostics)
            if analysis.text is not None:
                sources[analysis.path] = analysis.text
    for path in {r.path for d in diagnostics for r in d.related if r.path is not None} - set(sources):
        text = read_text(path)  # a macro's module: its line in the excerpt
        if text is not None:
            sources[path] = text
    for message in write_errors:
        print(f"tilecheck: error: {message}", file=sys.stderr)
    failed = internal_error or bool(write_errors)

    if args.add_ignore is not None:
        say(args, f"Added {changed} suppression comment{'' if changed == 1 else 's'}.")
        return 2 if failed else 0
    if args.diff:
        with Output(args.output_file) as out:
            if args.statistics:  # what the diff is about, per rule
                from tilecheck.report import statistics

                diagnostics.sort(key=lambda d: (display_path(d.path), d.span.line, d.span.column, d.code))
                statistics.render(
                    Run(
                        diagnostics,
                        sources,
                        len(files),
                        unsafe_fixes=bool(args.unsafe_fixes),
                        coverage=coverage,
                    ),
                    output_format,
                    out,
                )
            elif not args.silent:
                out.writelines(diffs)
        say(args, would_fix(changed, diagnostics, bool(args.unsafe_fixes)))
        return 2 if failed else (1 if diffs else 0)
    if args.fix_only:
        if changed:
            say(args, f"Fixed {plural(changed, 'diagnostic')}.")
        return 2 if failed else (1 if args.exit_non_zero_on_fix and changed else 0)

    diagnostics.sort(key=lambda d: (display_path(d.path), d.span.line, d.span.column, d.code, d.message))
    report = Run(
        diagnostics,
        sources,
        len(files),
        rules=workspace.enabled_rules(files, settings),
        fixed=changed,
        unsafe_fixes=bool(args.unsafe_fixes),
        show_fix_hint=not args.fix,
        successful=not internal_error,
        fixes=fixes,
        show_fixes=args.show_fixes,
        coverage=coverage,
    )
    _render(report, args, output_format)
    return _status(args, diagnostics, changed, failed)


def would_fix(fixed: int, diagnostics: list[Diagnostic], unsafe_fixes: bool) -> str:
    """`Would fix 2 diagnostics.`, naming the fixes `--unsafe-fixes` would add (as ruff does)."""
    held = 0 if unsafe_fixes else sum(1 for d in diagnostics if d.fix is not None and not d.fix.safe)
    if not held:
        return f"Would fix {plural(fixed, 'diagnostic')}."
    fixes = "fix" if held == 1 else "fixes"
    if not fixed:
        return f"No diagnostics would be fixed ({held} {fixes} available with `--unsafe-fixes`)."
    return f"Would fix {plural(fixed, 'diagnostic')} ({held} more {fixes} available with `--unsafe-fixes`)."


def _render(report: Run, args: argparse.Namespace, output_format: str, stream: TextIO | None = None) -> None:
    if args.silent:
        return
    report.quiet = bool(args.quiet)
    target = stream if stream is not None else (None if args.output_file else sys.stdout)
    report.color = wants_color(args.color, target)
    with Output(args.output_file, stream) as out:
        if args.statistics:
            from tilecheck.report import statistics  # only with --statistics

            statistics.render(report, output_format, out)
        else:
            reporter = __import__(f"tilecheck.report.{output_format.replace('-', '_')}", fromlist=["render"])
            reporter.render(report, out)


def _status(args: argparse.Namespace, diagnostics: list[Diagnostic], changed: int, failed: bool) -> int:
    if failed:
        return 2
    if args.exit_zero:
        return 0
    if args.fix and args.exit_non_zero_on_fix and changed:
        return 1
    return 1 if any(is_failure(d) for d in diagnostics) else 0


def _run_stdin(args: argparse.Namespace) -> int:
    """`tilecheck check -`: see `tilecheck.app.stdin`."""
    from tilecheck.app.stdin import check_stdin, read_stdin

    if args.add_ignore is not None:
        raise UsageError("--add-ignore cannot be used with standard input")
    workspace = workspace_from(args, args.output_format)
    workspace.validate_selectors()
    output_format = workspace.output_format(args.output_format)
    unsafe = bool(args.unsafe_fixes)
    outcome = check_stdin(
        workspace, read_stdin(), args.stdin_filename, fix=args.fix, diff=args.diff, unsafe=unsafe
    )
    result = outcome.analysis
    if args.diff:
        with Output(args.output_file) as out:
            out.write(outcome.diff)
        say(args, would_fix(outcome.fixed, list(outcome.analysis.diagnostics), unsafe))
        return 2 if result.internal_error else (1 if outcome.diff else 0)
    if args.fix and outcome.output is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(outcome.output)
        sys.stdout.flush()
    if args.fix_only:
        return 2 if result.internal_error else (1 if args.exit_non_zero_on_fix and outcome.fixed else 0)
    diagnostics = sorted(result.diagnostics, key=lambda d: (d.span.line, d.span.column, d.code, d.message))
    report = Run(
        diagnostics,
        {result.path: result.text} if result.text is not None and diagnostics else {},
        1,
        rules=workspace.enabled_rules([result.path]),
        fixed=outcome.fixed,
        unsafe_fixes=unsafe,
        show_fix_hint=not args.fix,
        successful=not result.internal_error,
        coverage={result.path: result.coverage},
    )
    _render(report, args, output_format, sys.stderr if args.fix else None)  # stdout carries the source
    return _status(args, diagnostics, outcome.fixed, result.internal_error)


class Output:
    """stdout, or a file written when the report is complete."""

    def __init__(self, path: str | None, stream: TextIO | None = None) -> None:
        self.path = path
        self.stream = stream
        self.buffer = io.StringIO()

    def __enter__(self) -> TextIO:
        return self.buffer if self.path else (self.stream or sys.stdout)

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if not self.path or kind is not None:
            return
        from tilecheck.app.files import WriteError, write_output

        try:
            write_output(self.path, self.buffer.getvalue().encode("utf-8"))
        except WriteError as error:
            raise UsageError(f"--output-file: cannot write {self.path}: {error}") from None


class Rewrite:
    """`--fix`, `--diff` or `--add-ignore` on one file, from what a worker planned for it
    (`tilecheck.app.rewrites`): the final result, how many diagnostics were fixed (or suppressions
    added), a problem writing the file, and the diff."""

    def __init__(self, args: argparse.Namespace, plan: FileAnalysis) -> None:
        from tilecheck.app.rewrites import PlannedRewrite, write_planned

        self.result = plan.detached()  # a file the worker could not finish gets its TL004/TL005
        self.count = 0
        self.problem = ""
        self.diff = ""
        self.applied: list[Diagnostic] = []  # the diagnostics whose fix was applied
        if not isinstance(plan, PlannedRewrite) or plan.rewritten is None or plan.text is None:
            return
        if args.diff:
            import difflib

            from tilecheck.source.notebook import Notebook, read_notebook
            from tilecheck.source.notebook_path import is_notebook

            name = display_path(plan.path)
            notebook = read_notebook(plan.data, plan.path) if is_notebook(plan.path) else None
            if isinstance(notebook, Notebook):  # its cells as written, not the Python text tilecheck checks
                self.diff = notebook.diff(plan.rewritten, name)
            else:
                lines, fixed = plan.text.splitlines(keepends=True), plan.rewritten.splitlines(keepends=True)
                self.diff = "".join(difflib.unified_diff(lines, fixed, f"a/{name}", f"b/{name}"))
            self.count, self.applied = plan.count, plan.applied
            return
        self.problem = write_planned(plan)
        if not self.problem:
            assert plan.after is not None
            self.result, self.count, self.applied = plan.after, plan.count, plan.applied
