"""`tilecheck lower FILE... [--diff | --write | -o/--output-file OUT]`: PyPTO's LowerPipelineLoops.

The lowered file goes to stdout (or a diff with `--diff`, the files themselves with `--write`,
OUT with `-o`); the diagnostics go to stderr in `--output-format` (full, concise, json,
json-lines, sarif, github), as `check` writes them. Files are read as the engine reads them (a
BOM or PEP 263 coding cookie), and configuration applies as for `check`: `backend`,
`select`/`ignore`, `per-file-ignores`, severities and suppression comments.

Every file is attempted, each in a crash-isolated worker within the per-file budget (the
`per-file-timeout` and `per-file-memory` configuration): a file that crashes its worker or
exceeds the budget gets TL005 or TL004 and the others are lowered. Exit status, the worst over
the files (as `check`): 0 success, 1 when an error or warning was reported (an error prevents
lowering the file) or a lowered result does not compile, 2 for usage and configuration errors,
files that could not be written and crashed workers.
`--output` is a deprecated alias of `--output-file` (hidden; it warns).
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import difflib
import gc
import os
import sys
import warnings
from collections.abc import Iterator
from typing import TextIO

from tilecheck.app.files import WriteError, encode_like, write_atomic
from tilecheck.app.lowering import Lowered
from tilecheck.app.workspace import Workspace
from tilecheck.cli.options import add_budget_options, add_config_options, require_paths, workspace_from
from tilecheck.core.errors import UsageError
from tilecheck.core.types import Diagnostic, Grade, Severity
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.pypto.api import LowerResult
from tilecheck.report import OUTPUT_FORMATS, Run, display_path


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "lower",
        help="show what PyPTO's LowerPipelineLoops pass makes of pl.pipeline loops",
        description="Lower every pl.pipeline(..., stage=F) loop of the @pl.function functions in FILE.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--diff", action="store_true", help="print a unified diff instead of the file")
    output.add_argument("--write", action="store_true", help="rewrite the files in place (atomically)")
    output.add_argument(
        "-o", "--output-file", metavar="OUT", help="write the lowered file to OUT (one FILE only)"
    )
    output.add_argument("--output", dest="deprecated_output", metavar="OUT", help=argparse.SUPPRESS)
    parser.add_argument(
        "--output-format",
        default=None,
        help=f"format of the diagnostics on stderr: {', '.join(OUTPUT_FORMATS)} (or TILECHECK_OUTPUT_FORMAT)",
    )
    parser.add_argument("--exit-zero", action="store_true", help="exit with 0 even with diagnostics")
    add_budget_options(parser, "lowering")
    add_config_options(parser)


def _write(path: str, target: str, original: bytes, text: str) -> None:
    """Write `text` to `target` with `app.files.write_atomic`, encoded as `original` (the
    bytes of `path`) was. In place, the file is left alone when it changed since it was read."""
    if text.startswith("\ufeff") and original.startswith(codecs.BOM_UTF8):
        text = text[1:]  # `encode_like` puts the byte-order mark back
    data = encode_like(original, text)
    in_place = os.path.realpath(target) == os.path.realpath(path)
    created = not os.path.exists(target)
    if created:
        # `write_atomic` replaces an existing file; a new -o file starts empty (mode from umask).
        try:
            with open(target, "xb"):
                pass
        except OSError as error:
            raise WriteError(error.strerror or str(error)) from None
    try:
        write_atomic(target, data, expected=original if in_place else None)
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                os.unlink(target)
        raise


def compiles(text: str) -> bool:
    """Whether `text` compiles: parses, and passes the compiler's checks `ast.parse` skips
    (`break` outside a loop, `return` outside a function, ...). Here, in the command, because
    silencing the compiler's warnings changes process-wide state."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings belong to the input, not the lowering
            compile(text, "<lowered>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _is_failure(diagnostic: Diagnostic) -> bool:
    return diagnostic.severity is not Severity.INFO and diagnostic.grade is not Grade.OPTIMIZATION


class _Lowering:
    """One `tilecheck lower` run over its files."""

    def __init__(self, args: argparse.Namespace, workspace: Workspace, out: TextIO, err: TextIO) -> None:
        self.args = args
        self.workspace = workspace
        self.out = out
        self.err = err
        self.target = args.output_file or args.deprecated_output
        self.diagnostics: list[Diagnostic] = []
        self.sources: dict[str, str] = {}
        self.status = 0
        self.unchanged: list[str] = []  # files in which no loop was lowered, with no finding saying why

    def file(self, lowered: FileAnalysis) -> None:
        if not isinstance(lowered, Lowered):  # unreadable, or over the budget, or crashed
            self._report(lowered.diagnostics)
            if lowered.internal_error:
                self.status = 2
            return
        path, data, result = lowered.path, lowered.data, lowered.result
        if result.original is not None:
            self.sources[path] = result.original
        self._report(result.diagnostics)
        if result.blocked or result.original is None:
            return
        args = self.args
        if lowered.nothing_lowered:
            self.unchanged.append(path)
        if args.diff:
            name = display_path(path)
            diff = list(
                difflib.unified_diff(
                    result.original.splitlines(keepends=True),
                    result.source.splitlines(keepends=True),
                    fromfile=name,
                    tofile=name + " (lowered)",
                )
            )
            self.out.writelines(diff)
            if diff and not args.exit_zero:  # as `check --diff`: there is something to apply
                self.status = max(self.status, 1)
        elif args.write or self.target:
            self._save(path, data, result)
        else:
            self._echo(data, result.source)

    def _echo(self, original: bytes, text: str) -> None:
        """The lowered file on stdout, encoded as the input was (a coding cookie's encoding, a
        BOM), so that `lower k.py > out.py` is the file `-o out.py` writes."""
        buffer = getattr(self.out, "buffer", None)
        if buffer is None:  # a text stream (tests, an embedding caller)
            self.out.write(text)
            return
        if text.startswith("\ufeff") and original.startswith(codecs.BOM_UTF8):
            text = text[1:]  # `encode_like` puts the byte-order mark back
        self.out.flush()
        buffer.write(encode_like(original, text))
        buffer.flush()

    def _report(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics.extend(diagnostics)
        if any(_is_failure(d) for d in diagnostics) and not self.args.exit_zero:
            self.status = max(self.status, 1)

    def _save(self, path: str, data: bytes, result: LowerResult) -> None:
        if self.args.write and not result.changed:
            return
        if not compiles(result.source):
            self._problem(f"not writing {path}: the lowered result does not compile", 1)
            return
        target = self.target or path
        try:
            _write(path, target, data, result.source)
        except WriteError as error:
            self._problem(f"cannot write {target}: {error}", 2)

    def _problem(self, message: str, status: int) -> None:
        print(f"tilecheck lower: {message}", file=self.err)
        self.status = max(self.status, status)

    def report(self, output_format: str) -> None:
        if output_format in ("full", "concise", "grouped"):
            for path in self.unchanged:
                print(
                    f"tilecheck lower: {display_path(path)}: no `pl.pipeline(..., stage=F)` loop to lower; "
                    "the file is unchanged",
                    file=self.err,
                )
        if not self.diagnostics and output_format in ("full", "concise", "grouped", "github", "gitlab"):
            return  # nothing to say: stderr stays empty
        self.diagnostics.sort(key=lambda d: (display_path(d.path), d.span.line, d.span.column, d.code))
        rules = self.workspace.enabled_rules(self.args.files)
        run = Run(self.diagnostics, self.sources, len(self.args.files), rules=rules, fix_hints=False)
        module = f"tilecheck.report.{output_format.replace('-', '_')}"
        reporter = __import__(module, fromlist=["render"])
        reporter.render(run, self.err)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while this command lowers its files.

    A parsed module is some 10^5 objects, and the automatic collections while they are alive
    walk them again and again (a third of the time after parsing, on `tools/bench_lower.py`).
    Nothing the lowering builds needs the collector (`tests/pypto/test_splice.py` pins that
    it leaves no cycles). This is the command's choice, made once for its run as an entry
    point does; the library (`lower_source`) leaves the collector alone.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def run(args: argparse.Namespace, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    target = args.output_file or args.deprecated_output
    if args.deprecated_output:
        print("tilecheck lower: warning: `--output` is deprecated; use `-o/--output-file`", file=err)
    if target and len(args.files) != 1:
        raise UsageError("-o/--output-file takes exactly one FILE")
    require_paths(args.files)  # as `check` does: a missing FILE is a usage error, before any output
    workspace = workspace_from(args, args.output_format)
    output_format = workspace.output_format(args.output_format)
    for path in args.files:
        workspace.file_settings(path)  # an unknown backend or selector stops before any output
    workspace.validate_selectors(args.files)
    lowering = _Lowering(args, workspace, out, err)
    with _collector_paused():  # the workers fork with the collector paused too
        for lowered in workspace.lower_files(args.files):
            lowering.file(lowered)
    lowering.report(output_format)
    return lowering.status
