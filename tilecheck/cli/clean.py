"""`tilecheck clean`: remove the result cache (`.tilecheck_cache` in the project root, or
`--cache-dir`), only when it is one: a directory with tilecheck's `CACHEDIR.TAG`."""

from __future__ import annotations

import argparse
import sys

from tilecheck.app.cache import NotACache, clean, default_cache_dir
from tilecheck.app.workspace import Workspace
from tilecheck.report import display_path


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("clean", help="remove the result cache")
    parser.add_argument(
        "--cache-dir", metavar="DIR", help="the cache to remove (default: as `check` finds it)"
    )


def run(args: argparse.Namespace) -> int:
    directory = default_cache_dir(Workspace().project_root(), args.cache_dir)
    try:
        removed = clean(directory)
    except NotACache as refusal:  # e.g. `TILECHECK_CACHE_DIR=src`: never delete what we did not make
        print(f"tilecheck: error: not removing {display_path(directory)}: {refusal}", file=sys.stderr)
        return 2
    if removed:
        print(f"Removed {display_path(directory)}", file=sys.stderr)
    else:
        print(f"No cache at {display_path(directory)}", file=sys.stderr)
    return 0
