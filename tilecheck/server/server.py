"""Build the language server: one pygls server, one session, the handlers of each module."""

from __future__ import annotations

import sys

from lsprotocol import types

from tilecheck import __version__
from tilecheck.server import code_actions, commands, configuration, diagnostics, hover
from tilecheck.server.framing import FramedInput
from tilecheck.server.protocol import TilecheckServer
from tilecheck.server.session import Session

NAME = "tilecheck"


def create_server() -> tuple[TilecheckServer, Session]:
    server = TilecheckServer(
        NAME,
        __version__,
        text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        # a notebook's Python cells are checked together, each cell's diagnostics on its document
        notebook_document_sync=types.NotebookDocumentSyncOptions(
            notebook_selector=[
                types.NotebookDocumentFilterWithCells(cells=[types.NotebookCellLanguage(language="python")])
            ]
        ),
    )
    session = Session(server)
    for module in (configuration, diagnostics, code_actions, hover, commands):
        module.register(server, session)
    return server, session


def serve() -> int:
    server, session = create_server()
    session.worker.start()  # it imports the rules while the client initializes

    def broken(message: str) -> None:  # the editor shows a server's standard error as its log
        print(f"tilecheck server: error: {message}", file=sys.stderr, flush=True)

    try:
        # pygls types stdin as BinaryIO; FramedInput is a reader with the read/readline it calls
        server.start_io(stdin=FramedInput(sys.stdin.buffer, broken))  # type: ignore[arg-type]  # see above
    finally:
        session.executor.shutdown(wait=False, cancel_futures=True)
        session.worker.close()
    return server.protocol.final_exit_code()  # pygls swallows `exit`'s SystemExit
