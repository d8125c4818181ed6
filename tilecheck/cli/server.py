"""`tilecheck server`: the language server over stdio (see `tilecheck.server`)."""

from __future__ import annotations

import argparse


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    subparsers.add_parser(
        "server",
        help="run the language server (LSP) on stdin/stdout",
        description=(
            "Run tilecheck's Language Server Protocol server, speaking JSON-RPC on stdin and stdout, "
            "for an editor to start: it checks each open buffer as you type, with the diagnostics, "
            "fixes and configuration of `tilecheck check`, and takes its settings from the client. "
            "Setting it up in Neovim, VS Code, Emacs and Helix: docs/editors.md."
        ),
    )


def run(args: argparse.Namespace) -> int:
    from tilecheck.server import main as serve

    return serve()
