"""Document synchronisation and diagnostics: debounced checks on didOpen/didChange/didSave,
push (`textDocument/publishDiagnostics`) for clients that do not pull, pull
(`textDocument/diagnostic`) for those that do — never both for one client."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from tilecheck.server.session import Session

DEBOUNCE = 0.05  # seconds of quiet after a change before it is checked (coalesces typing bursts)
IDENTIFIER = "tilecheck"


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        session.open(params.text_document.uri)
        schedule(session, params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        schedule(session, params.text_document.uri, DEBOUNCE)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        schedule(session, params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        session.close(uri)
        if not session.pulls:
            server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier=IDENTIFIER, inter_file_dependencies=False, workspace_diagnostics=False
        ),
    )
    async def pull(params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        uri = params.text_document.uri
        if uri not in session.documents:  # a file the editor has not opened: check it from disk
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        checked = await session.checked(uri)
        if checked is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        if params.previous_result_id == checked.result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=checked.result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=checked.lsp, result_id=checked.result_id)


def schedule(session: Session, uri: str, delay: float) -> None:
    """Check `uri` after `delay` seconds, replacing a check that has not started publishing."""
    document = session.documents.get(uri)
    if document is None:
        return
    if document.pending is not None:
        document.pending.cancel()
    document.pending = asyncio.ensure_future(_check_and_publish(session, uri, delay))


def recheck(session: Session, uris: list[str] | None = None) -> None:
    """After a settings or configuration change: push again, or ask a pulling client to pull."""
    if session.pulls:
        workspace = session.capabilities.workspace
        refresh = (
            workspace is not None
            and workspace.diagnostics is not None
            and workspace.diagnostics.refresh_support
        )
        if refresh:
            session.server.workspace_diagnostic_refresh(None)
        return
    for uri in list(session.documents) if uris is None else uris:
        schedule(session, uri, 0.0)


async def _check_and_publish(session: Session, uri: str, delay: float) -> None:
    try:
        if delay:
            await asyncio.sleep(delay)
        checked = await session.checked(uri)  # in pull mode: computed ahead of the client's pull
        if checked is None or session.pulls:
            return
        current = session.text_of(uri)
        if current is None or current[0] != checked.text:
            return  # stale: a newer change has scheduled its own check
        version = current[1]
        document = session.documents.get(uri)
        if document is None:
            return
        stamp = (version, checked.result_id)
        if document.published == stamp:
            return
        document.published = stamp
        session.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=checked.lsp)
        )
    except asyncio.CancelledError:
        raise
    except Exception as error:  # never let one document's failure stop the server
        session.log(f"checking {uri} failed: {type(error).__name__}: {error}", types.MessageType.Error)
