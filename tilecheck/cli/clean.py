"""`tilecheck clean`: remove the result cache (`.tilecheck_cache` in the project root, or `--cache-dir`)."""

from __future__ import annotations

import argparse
import sys

from tilecheck.app.cache import clean, default_cache_dir
from tilecheck.app.workspace import Workspace
from tilecheck.report import display_path


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("clean", help="remove the result cache")
    parser.add_argument(
        "--cache-dir", metavar="DIR", help="the cache to remove (default: as `check` finds it)"
    )


def run(args: argparse.Namespace) -> int:
    directory = default_cache_dir(Workspace().project_root(), args.cache_dir)
    if clean(directory):
        print(f"Removed {display_path(directory)}", file=sys.stderr)
    else:
        print(f"No cache at {display_path(directory)}", file=sys.stderr)
    return 0
