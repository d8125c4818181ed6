"""`tilecheck lower FILE... [--backend NAME] [--diff | --write | -o OUT]`.

Exit codes: 0 success, 1 diagnostics prevented lowering, 2 usage error (including unreadable
files and an unknown backend). Default output is the lowered file on stdout.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import difflib
import os
import sys
from typing import TextIO

from tilecheck.fixes import WriteError, encode_like, write_atomic
from tilecheck.pypto import backends, codes
from tilecheck.pypto.api import lower_source
from tilecheck.pypto.lower import reparses
from tilecheck.types import Diagnostic


def add_lower_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "lower",
        help="show what PyPTO's LowerPipelineLoops pass makes of pl.pipeline loops",
        description="Lower every pl.pipeline(..., stage=F) loop of the @pl.function functions in FILE.",
    )
    _configure(parser)


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--backend", default=None, help=f"backend profile ({', '.join(backends.names())})")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--diff", action="store_true", help="print a unified diff instead of the file")
    output.add_argument("--write", action="store_true", help="rewrite the files in place (atomically)")
    output.add_argument("-o", "--output", metavar="OUT", help="write the lowered file to OUT (one FILE only)")
    parser.set_defaults(handler=run_lower)


def _format(diagnostic: Diagnostic) -> str:
    span = diagnostic.span
    text = f"{diagnostic.path}:{span.line}:{span.column + 1}: {diagnostic.code} {diagnostic.message}"
    if diagnostic.help:
        text += f"\n  help: {diagnostic.help}"
    return text


def _write(path: str, target: str, original: bytes, text: str) -> None:
    """Write `text` to `target` with `tilecheck.fixes.write_atomic`, encoded as `original` (the
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


def run_lower(args: argparse.Namespace, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    if args.backend is not None and args.backend not in backends.names():
        print(
            f"tilecheck lower: unknown backend {args.backend!r} (known: {', '.join(backends.names())})",
            file=err,
        )
        return 2
    if args.output and len(args.files) != 1:
        print("tilecheck lower: -o/--output takes exactly one FILE", file=err)
        return 2
    status = 0
    for path in args.files:
        try:
            with open(path, "rb") as stream:
                original = stream.read()
            source = original.decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            print(f"tilecheck lower: cannot read {path}: {error}", file=err)
            return 2
        result = lower_source(source, path, backend=args.backend)
        for diagnostic in result.diagnostics:
            print(_format(diagnostic), file=err)
        if any(codes.blocks_lowering(diagnostic) for diagnostic in result.diagnostics):
            status = 1
            continue
        if args.diff:
            diff = difflib.unified_diff(
                source.splitlines(keepends=True),
                result.source.splitlines(keepends=True),
                fromfile=path,
                tofile=path + " (lowered)",
            )
            out.writelines(diff)
        elif args.write or args.output:
            if not reparses(result.source):
                print(f"tilecheck lower: not writing {path}: the lowered result does not compile", file=err)
                status = 1
                continue
            target = args.output or path
            if args.write and not result.changed:
                continue
            try:
                _write(path, target, original, result.source)
            except WriteError as error:
                print(f"tilecheck lower: cannot write {target}: {error}", file=err)
                return 2
        else:
            out.write(result.source)
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tilecheck lower")
    _configure(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return run_lower(args)


if __name__ == "__main__":
    sys.exit(main())
