"""`tilecheck server` in the command line's help: the `tilecheck` command starts the language
server itself (`tilecheck.__main__`), so that the command line and the server never import
each other."""

from __future__ import annotations

import argparse

from tilecheck.core.errors import UsageError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    subparsers.add_parser(
        "server",
        help="run the language server (LSP) on stdin/stdout",
        description="Run tilecheck's Language Server Protocol server (see `tilecheck server --help`).",
    )


def run(args: argparse.Namespace) -> int:
    raise UsageError("the language server is started by the `tilecheck` command: run `tilecheck server`")
