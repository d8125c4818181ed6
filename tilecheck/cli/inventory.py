"""`tilecheck inventory PATH...`: loop nesting pairs and nested pipeline requests (exits 0).

Files are scanned in crash-isolated workers within the per-file budget `tilecheck check` uses:
the `per-file-timeout` and `per-file-memory` of the working directory's configuration, else
the defaults (`Workspace.budget`)."""

from __future__ import annotations

import argparse
import sys

from tilecheck.app.inventory import build, render_text
from tilecheck.cli.options import dump_json, require_paths, workspace_from


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "inventory", help="count loop nesting pairs and nested pipeline requests (exits 0)"
    )
    parser.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    parser.add_argument("--examples", type=int, default=3, metavar="N", help="example locations per pair")


def run(args: argparse.Namespace) -> int:
    require_paths(args.paths)
    budget = workspace_from(args).budget()
    inventory = build(list(args.paths), max(args.examples, 0), budget=budget)
    if args.output_format == "json":
        dump_json(inventory.as_json())
    else:
        render_text(inventory, sys.stdout)
    return 0
