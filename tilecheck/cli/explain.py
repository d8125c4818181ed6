"""`tilecheck explain FILE[:LINE]`: each kernel's loop nest as a tree, with its diagnostics."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from tilecheck.app.workspace import Workspace
from tilecheck.cli.check import Output
from tilecheck.cli.options import add_config_options, dump_json, require_paths, workspace_from
from tilecheck.core.errors import UsageError
from tilecheck.explain.attach import explain, split_target
from tilecheck.lint.engine import FileAnalysis
from tilecheck.report import data_path, display_path, fails


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("explain", help="draw a file's loop nests with their diagnostics")
    parser.add_argument("target", metavar="FILE[:LINE]")
    parser.add_argument("--output-format", choices=("text", "json", "html", "svg"), default="text")
    parser.add_argument("-o", "--output-file", metavar="FILE", help="write the picture to FILE (atomically)")
    add_config_options(parser)


def run(args: argparse.Namespace) -> int:
    path, line = split_target(args.target)
    require_paths([path])
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory (explain draws one file)")
    workspace = workspace_from(args)
    workspace.validate_selectors([path])
    analysis = workspace.check_file(path)
    if line is not None and analysis.text is not None:
        count = len(analysis.text.splitlines())
        if not 1 <= line <= count:
            lines = f"{count} line{'' if count == 1 else 's'}"
            raise UsageError(f"{args.target}: no line {line} in {display_path(path)} (it has {lines})")
    with Output(args.output_file) as out:
        _draw(args, workspace, path, line, analysis, out)
    # A file with nothing to draw because it could not be read, decoded or parsed (TL001-TL003)
    # fails as `check` fails on it: a picture of nothing is no pass.
    unread = analysis.context is None and any(fails(d) for d in analysis.diagnostics)
    return 1 if unread else 0


def _draw(
    args: argparse.Namespace,
    workspace: Workspace,
    path: str,
    line: int | None,
    analysis: FileAnalysis,
    out: TextIO,
) -> None:
    roots, rest, problem = explain(analysis, line)
    backend = workspace.file_settings(path).backend
    backend_name = backend.name if backend is not None else None
    if args.output_format == "json":
        dump_json(
            {
                "file": data_path(path),
                "line": line,
                "backend": backend_name,
                "kernels": [root.as_json() for root in roots],
                "other_diagnostics": [
                    {"line": d.span.line, "column": d.span.column + 1, "code": d.code, "message": d.message}
                    for d in rest
                ],
                "problem": problem,
            },
            out,
        )
        return
    from tilecheck.explain import html, svg, text

    picture = text.Picture(path, analysis.text or "", line, backend_name, roots, rest, problem)
    {"text": text, "html": html, "svg": svg}[args.output_format].render(picture, out)
