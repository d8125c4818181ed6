"""`tilecheck explain FILE[:LINE]`: each kernel's loop nest as a tree, with its diagnostics."""

from __future__ import annotations

import argparse
import os
import sys

from tilecheck.cli.options import add_config_options, dump_json, require_paths, workspace_from
from tilecheck.core.errors import UsageError
from tilecheck.explain.attach import explain, split_target
from tilecheck.report import display_path


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("explain", help="draw a file's loop nests with their diagnostics")
    parser.add_argument("target", metavar="FILE[:LINE]")
    parser.add_argument("--output-format", choices=("text", "json", "html", "svg"), default="text")
    add_config_options(parser)


def run(args: argparse.Namespace) -> int:
    path, line = split_target(args.target)
    require_paths([path])
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory (explain draws one file)")
    workspace = workspace_from(args)
    workspace.validate_selectors([path])
    analysis = workspace.check_file(path)
    roots, rest, problem = explain(analysis, line)
    backend = workspace.file_settings(path).backend
    backend_name = backend.name if backend is not None else None
    if args.output_format == "json":
        dump_json(
            {
                "file": display_path(path),
                "line": line,
                "backend": backend_name,
                "kernels": [root.as_json() for root in roots],
                "other_diagnostics": [
                    {"line": d.span.line, "column": d.span.column + 1, "code": d.code, "message": d.message}
                    for d in rest
                ],
                "problem": problem,
            }
        )
        return 0
    from tilecheck.explain import html, svg, text

    picture = text.Picture(path, analysis.text or "", line, backend_name, roots, rest, problem)
    {"text": text, "html": html, "svg": svg}[args.output_format].render(picture, sys.stdout)
    return 0
