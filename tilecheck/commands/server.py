"""`tilecheck server`: the language server over stdio (see `tilecheck.server`)."""

from __future__ import annotations

import argparse


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    subparsers.add_parser("server", help="run the language server (LSP) on stdin/stdout")


def run(args: argparse.Namespace) -> int:
    from tilecheck.server import main as serve

    return serve()
