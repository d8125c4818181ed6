"""Document synchronisation and diagnostics: checks on didOpen/didChange/didSave, coalesced
(a change is checked at once when the analysis thread is free; changes that arrive while it is
busy are checked as one, the newest text: `Session.checked`),
push (`textDocument/publishDiagnostics`) for clients that do not pull, pull
(`textDocument/diagnostic`, and `workspace/diagnostic` for every open document) for those that
do — never both for one client. Pull reports carry result ids, so a document whose text and
settings are unchanged is reported `unchanged`; after a settings or configuration change a
pulling client that supports it is asked to pull again (`workspace/diagnostic/refresh`).
A notebook (`notebookDocument/didOpen/didChange/didClose`) is checked as one document, its
diagnostics pushed, or pulled, per cell document (`server.notebook_cells`)."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from tilecheck.server.notebook_cells import cell_reports
from tilecheck.server.session import Checked, OpenDocument, Session

IDENTIFIER = "tilecheck"


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        session.open(params.text_document.uri)
        schedule(session, params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        session.supersede(params.text_document.uri)
        schedule(session, params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        if not session.watches_configuration:
            # The client cannot tell us when a configuration file changes (Neovim 0.7): a save
            # is when they are read again, and every open document is checked under them.
            session.reset()
            recheck(session)
            return
        uri = params.text_document.uri
        dependents = session.dependents(uri)
        if dependents:  # kernels that read the saved module (its macros, its `T`) see it now
            session.reset()
            session.log(f"{uri} was saved: re-checking {len(dependents)} document(s) that read it")
            recheck(session, [uri, *dependents])
            return
        schedule(session, uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        session.close(uri)
        if not session.pulls:
            server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(params: types.DidOpenNotebookDocumentParams) -> None:
        session.open(params.notebook_document.uri)
        schedule(session, params.notebook_document.uri, 0.0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(params: types.DidChangeNotebookDocumentParams) -> None:
        session.supersede(params.notebook_document.uri)
        schedule(session, params.notebook_document.uri, 0.0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(params: types.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        document = session.documents.get(uri)
        cells = (document.published_cells if document is not None else frozenset()) | {
            cell.uri for cell in params.cell_text_documents
        }
        session.close(uri)
        if not session.pulls:
            for cell in sorted(cells):
                server.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=cell, diagnostics=[])
                )

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier=IDENTIFIER, inter_file_dependencies=True, workspace_diagnostics=True
        ),
    )
    async def pull(params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        uri = params.text_document.uri
        notebook = session.server.workspace.get_notebook_document(cell_uri=uri)
        if notebook is not None and notebook.uri in session.documents:  # a cell: its notebook's check
            checked = await session.checked(notebook.uri)
            items = cell_reports(checked, uri) if checked is not None else None
            if checked is None or items is None:
                return types.RelatedFullDocumentDiagnosticReport(items=[])
            if params.previous_result_id == checked.result_id:
                return types.RelatedUnchangedDocumentDiagnosticReport(result_id=checked.result_id)
            return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=checked.result_id)
        if uri not in session.documents:  # a file the editor has not opened: check it from disk
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        checked = await session.checked(uri)
        if checked is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        if params.previous_result_id == checked.result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=checked.result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=checked.lsp, result_id=checked.result_id)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def pull_workspace(params: types.WorkspaceDiagnosticParams) -> types.WorkspaceDiagnosticReport:
        previous = {result.uri: result.value for result in params.previous_result_ids}
        return types.WorkspaceDiagnosticReport(items=await workspace_reports(session, previous))


async def workspace_reports(
    session: Session, previous: dict[str, str]
) -> list[types.WorkspaceDocumentDiagnosticReport]:
    """A report for every open document (`unchanged` when its result id is `previous`'s), and an
    empty one without a result id for each previously reported document that is closed now,
    so the client drops what it showed for it."""
    reports: list[types.WorkspaceDocumentDiagnosticReport] = []
    reported: set[str] = set()
    for uri in list(session.documents):
        checked = await session.checked(uri)
        current = session.text_of(uri)
        if checked is None or current is None:
            continue  # closed while it was checked
        version = current[1] if current[0] == checked.text else None
        if checked.cells is not None:  # a notebook: a report per cell document
            for cell, items in checked.cells.items():
                reported.add(cell)
                reports.append(
                    types.WorkspaceFullDocumentDiagnosticReport(
                        uri=cell, version=None, items=items, result_id=checked.result_id
                    )
                )
            continue
        if previous.get(uri) == checked.result_id:
            reports.append(
                types.WorkspaceUnchangedDocumentDiagnosticReport(
                    uri=uri, version=version, result_id=checked.result_id
                )
            )
        else:
            reports.append(
                types.WorkspaceFullDocumentDiagnosticReport(
                    uri=uri, version=version, items=checked.lsp, result_id=checked.result_id
                )
            )
    for uri in previous:
        if uri not in session.documents and uri not in reported:
            reports.append(types.WorkspaceFullDocumentDiagnosticReport(uri=uri, version=None, items=[]))
    return reports


def schedule(session: Session, uri: str, delay: float) -> None:
    """Check `uri` after `delay` seconds, replacing a check that has not started publishing."""
    document = session.documents.get(uri)
    if document is None:
        return
    if document.pending is not None:
        document.pending.cancel()
    document.pending = asyncio.ensure_future(_check_and_publish(session, uri, delay))


def recheck(session: Session, uris: list[str] | None = None) -> None:
    """After a settings or configuration change: check the documents again (pushing the results,
    or computing them ahead of a pulling client's pull) and ask a pulling client to pull."""
    for uri in list(session.documents) if uris is None else uris:
        schedule(session, uri, 0.0)
    if session.pulls and refreshes(session.capabilities):
        asked = session.server.workspace_diagnostic_refresh(None)

        def answered(done: Future[None]) -> None:
            if not done.cancelled() and done.exception() is not None:
                session.log(
                    f"workspace/diagnostic/refresh failed: {done.exception()}", types.MessageType.Warning
                )

        asked.add_done_callback(answered)


def refreshes(capabilities: types.ClientCapabilities) -> bool:
    """Whether the client re-pulls its diagnostics when asked (`workspace/diagnostic/refresh`)."""
    workspace = capabilities.workspace
    return bool(
        workspace is not None and workspace.diagnostics is not None and workspace.diagnostics.refresh_support
    )


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
        if checked.cells is not None:
            _publish_cells(session, document, checked)
            return
        session.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=checked.lsp)
        )
    except asyncio.CancelledError:
        raise
    except Exception as error:  # never let one document's failure stop the server
        session.log(f"checking {uri} failed: {type(error).__name__}: {error}", types.MessageType.Error)


def _publish_cells(session: Session, document: OpenDocument, checked: Checked) -> None:
    """Push a notebook's diagnostics to each of its code cells, and clear the cells that are gone."""
    assert checked.cells is not None
    for uri, items in checked.cells.items():
        session.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items)
        )
    for uri in sorted(document.published_cells - set(checked.cells)):
        session.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )
    document.published_cells = frozenset(checked.cells)
