"""`tilecheck server`: a Language Server Protocol server over stdio (pygls 2 + lsprotocol).

A thin adapter over `tilecheck.app.workspace.Workspace`: one module per LSP concern (`diagnostics`,
`code_actions`, `hover`, `commands`, `configuration`), a `Session` that owns the open documents,
and conversions (`positions`, `convert`) that are unit-tested on their own.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server on stdin/stdout until the client exits it."""
    del argv  # no options yet: everything comes from the client's settings
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
