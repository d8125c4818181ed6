"""`tilecheck server`: a Language Server Protocol server over stdio (pygls 2 + lsprotocol).

A thin adapter over `tilecheck.app.workspace.Workspace`: one module per LSP concern (`diagnostics`,
`code_actions`, `hover`, `commands`, `configuration`), a `Session` that owns the open documents,
and conversions (`positions`, `convert`) that are unit-tested on their own.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

DESCRIPTION = (
    "Run tilecheck's Language Server Protocol server, speaking JSON-RPC on stdin and stdout, "
    "for an editor to start: it checks each open buffer as you type, with the diagnostics, "
    "fixes and configuration of `tilecheck check`, and takes its settings from the client. "
    "Setting it up in Neovim, VS Code, Emacs and Helix: docs/editors.md."
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server on stdin/stdout until the client exits it (`tilecheck server`)."""
    import argparse

    parser = argparse.ArgumentParser(prog="tilecheck server", description=DESCRIPTION)
    parser.parse_args(list(sys.argv[1:] if argv is None else argv))  # no options: the client sets them
    try:
        from tilecheck.server.server import serve
    except ImportError as error:  # pygls/lsprotocol missing from a partial install
        print(
            f"tilecheck: error: the language server needs pygls and lsprotocol ({error}); "
            "install them with: pip install 'pygls>=2,<3' lsprotocol",
            file=sys.stderr,
        )
        return 2
    return serve()
