"""`tilecheck server`: a Language Server Protocol server over stdio (pygls 2 + lsprotocol).

A thin adapter over `tilecheck.app.workspace.Workspace`: one module per LSP concern (`diagnostics`,
`code_actions`, `hover`, `commands`, `configuration`), a `Session` that owns the open documents,
and conversions (`positions`, `convert`) that are unit-tested on their own.
"""

from __future__ import annotations

import os
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
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser.parse_args(arguments)  # no options: the client sets them
    reexec_isolated(arguments)
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


# The server, its `sys.path` restored, as an isolated (`-I`) interpreter runs it (see below).
_ISOLATED_PROGRAM = (
    "import sys; sys.path[:] = {path!r}; from tilecheck.server import main; sys.exit(main(sys.argv[1:]))"
)


def reexec_isolated(arguments: Sequence[str]) -> None:
    """On Python 3.10 (no `PYTHONSAFEPATH`), become an isolated interpreter before starting any
    worker: multiprocessing's `spawn` starts the analysis worker (and its resource tracker) as
    `python <the parent's flags> -c ...` in the server's working directory, the editor's
    workspace, so the child would import the workspace's `multiprocessing/`, `pickle.py`, ...
    at its first line. With `-I` the parent's flag is passed on and no child puts its working
    directory on `sys.path`; the children then take the parent's `sys.path` (spawn's
    preparation), so the user site and `PYTHONPATH` entries this program carries are kept.
    The server keeps its working directory (untitled buffers resolve against it). POSIX only:
    `exec` on Windows would end the process the editor talks to."""
    if sys.version_info >= (3, 11) or sys.flags.isolated or os.name != "posix" or not sys.executable:
        return
    path = [entry for entry in sys.path if entry]  # `isolate` already dropped the working directory
    program = _ISOLATED_PROGRAM.format(path=path)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, "-I", "-c", program, *arguments])
