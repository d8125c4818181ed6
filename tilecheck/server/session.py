"""The server's state: open documents, client settings, one `Workspace` per workspace folder,
and the analysis of each document's current text.

Analyses run on a worker thread (the event loop keeps answering requests) and are cached by
text and settings generation, not by version number: an editor that reopens a file at version 0
still gets fresh results. Every result carries the text it was computed from, so positions are
always converted against that text.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from pygls.uris import to_fs_path

from tilecheck.app.workspace import Options, Workspace
from tilecheck.config.resolver import ConfigError
from tilecheck.core import meta
from tilecheck.core.meta import Problem
from tilecheck.server.convert import lsp_diagnostics
from tilecheck.server.hover_data import HoverData
from tilecheck.server.notebook_cells import cell_diagnostics, notebook_cells
from tilecheck.server.positions import PositionMap
from tilecheck.server.settings import ClientSettings
from tilecheck.server.worker import AnalysisWorker
from tilecheck.server.worker_answers import Request

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from tilecheck.core.types import Span
    from tilecheck.lint.analysis import FileAnalysis
    from tilecheck.pypto.api import LowerResult
    from tilecheck.source.notebook import Notebook

logger = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class Checked:
    """The analysis of one text of a document under one settings generation."""

    uri: str
    path: str
    text: str
    generation: int
    positions: PositionMap
    analysis: FileAnalysis | None = None
    workspace: Workspace | None = None
    problem: str | None = None  # a configuration error, or a crash outside the rules
    lsp: list[types.Diagnostic] = field(default_factory=list)
    superseded: bool = False  # not checked: the document's text had changed already
    document: OpenDocument | None = None
    hovers: HoverData = field(default_factory=HoverData)  # computed by the worker with the check
    dependencies: tuple[str, ...] = ()  # the other files the check read (absolute paths)
    options: Options | None = None  # what the worker resolved this document's settings with
    cells: dict[str, list[types.Diagnostic]] | None = None  # a notebook's: each code cell's, by its URI
    notebook: tuple[Notebook, dict[int, str]] | None = None  # the cells `text` was joined from, their URIs

    @property
    def result_id(self) -> str:
        return f"{self.generation}:{hash(self.text) & 0xFFFFFFFF:08x}"


@dataclass
class OpenDocument:
    uri: str
    path: str
    pending: asyncio.Task[None] | None = None  # the scheduled check and publication
    published: tuple[int | None, str] | None = None  # (version, result id) last pushed
    cached: tuple[tuple[str, int], asyncio.Future[Checked]] | None = None  # (text, generation)
    published_cells: frozenset[str] = frozenset()  # a notebook's cells diagnostics were pushed to


class Session:
    """What the handlers share. Handlers run on the event loop; `_check` runs on the analysis
    thread, which asks the worker process (`worker.AnalysisWorker`) and waits for its answer."""

    def __init__(self, server: LanguageServer, *, workers: int = 1) -> None:
        self.server = server
        self.settings = ClientSettings()
        self.settings_given = False  # by initializationOptions (else asked with workspace/configuration)
        self.generation = 0  # bumped by settings and configuration-file changes
        self.documents: dict[str, OpenDocument] = {}
        self.executor = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="tilecheck-check")
        self._workspaces: dict[str | None, Workspace] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.worker = AnalysisWorker(self.settings.per_file_memory)  # runs the checks: see worker.py
        self._warned: set[str] = set()
        self.watches_configuration = False  # the client tells us of configuration-file changes

    # -- client facts ----------------------------------------------------------------------
    @property
    def capabilities(self) -> types.ClientCapabilities:
        return self.server.client_capabilities

    @property
    def pulls(self) -> bool:
        """Whether the client pulls diagnostics (then the server never pushes them)."""
        text_document = self.capabilities.text_document
        return text_document is not None and text_document.diagnostic is not None

    @property
    def encoding(self) -> str:
        encoding = self.server.workspace.position_encoding
        return str(getattr(encoding, "value", encoding) or types.PositionEncodingKind.Utf16.value)

    # -- logging ---------------------------------------------------------------------------
    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """window/logMessage, from any thread."""
        logger.log(logging.ERROR if kind is types.MessageType.Error else logging.INFO, message)
        self._send(self.server.window_log_message, types.LogMessageParams(type=kind, message=message))

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """window/showMessage plus the log, from any thread."""
        self.log(message, kind)
        self._send(
            self.server.window_show_message,
            types.ShowMessageParams(type=kind, message=f"tilecheck: {message}"),
        )

    def _send(self, notify: Callable[[Any], None], params: object) -> None:
        loop = self._loop
        if loop is not None and not _on_loop(loop):
            loop.call_soon_threadsafe(notify, params)
        else:
            notify(params)

    # -- settings and workspaces -----------------------------------------------------------
    def _warn_once(self, warnings: tuple[str, ...]) -> None:
        """Configuration warnings (local plugins that were not trusted), shown once each."""
        for warning in warnings:
            if warning not in self._warned:
                self._warned.add(warning)
                self.tell(warning)

    def apply_settings(self, raw: object) -> None:
        settings = ClientSettings.from_client(raw)
        for problem in settings.problems:
            self.tell(problem)
        if settings.per_file_memory != self.worker.memory:  # after the check in progress, if any
            self.executor.submit(self.worker.restart, settings.per_file_memory)
        self.settings = settings
        self.reset()

    def reset(self) -> None:
        """Forget resolved configuration: the next analysis of every document resolves it again."""
        with self._lock:
            self._workspaces.clear()
            self.generation += 1
        self.worker.reset()

    def folders(self) -> list[str]:
        workspace = self.server.workspace
        uris = [folder.uri for folder in workspace.folders.values()]
        if workspace.root_uri:
            uris.append(workspace.root_uri)
        return [path for path in (to_fs_path(uri) for uri in uris) if path]

    def folder_for(self, path: str) -> str | None:
        """The innermost workspace folder holding `path` (multi-root: each folder its own cwd)."""
        absolute = os.path.abspath(path)
        best: str | None = None
        for folder in self.folders():
            folder = os.path.abspath(folder)
            if (absolute == folder or absolute.startswith(folder.rstrip(os.sep) + os.sep)) and (
                best is None or len(folder) > len(best)
            ):
                best = folder
        return best

    def workspace_for(self, path: str) -> Workspace:
        """The server's Workspace for `path`'s folder (configuration files and folders, never
        rules: it does not import local plugins, which only the worker does); raises ConfigError
        for a bad `configuration` file."""
        folder = self.folder_for(path)
        with self._lock:
            workspace = self._workspaces.get(folder)
            if workspace is None:
                options = dataclasses.replace(self.settings.options(folder), allow_plugins=False)
                workspace = Workspace(options, cwd=folder or os.path.dirname(os.path.abspath(path)))
                self._workspaces[folder] = workspace
        return workspace

    # -- documents -------------------------------------------------------------------------
    def open(self, uri: str) -> OpenDocument:
        document = self.documents.get(uri)
        if document is None:
            document = self.documents[uri] = OpenDocument(uri, to_fs_path(uri) or uri)
        return document

    def dependents(self, uri: str) -> list[str]:
        """The other open documents whose last check read `uri`'s file (or could have: see
        `tilecheck.source.project_files`)."""
        path = os.path.abspath(to_fs_path(uri) or uri)
        found = []
        for other, document in self.documents.items():
            cached = document.cached
            if other == uri or cached is None or not cached[1].done() or cached[1].cancelled():
                continue
            if cached[1].exception() is None and path in cached[1].result().dependencies:
                found.append(other)
        return found

    def close(self, uri: str) -> None:
        document = self.documents.pop(uri, None)
        if document is not None and document.pending is not None:
            document.pending.cancel()
        self.worker.abandon(uri)  # its check in flight, if any, is for nobody now
        self.worker.forget(uri)

    def supersede(self, uri: str) -> None:
        """`uri`'s text changed: a check of an older text in flight is abandoned (the session
        checks the newest text instead: see `checked`)."""
        self.worker.abandon(uri)

    def text_of(self, uri: str) -> tuple[str, int | None] | None:
        """The current text and version of an open document (a notebook's: its code cells' Python)."""
        if uri not in self.documents:
            return None
        cells = notebook_cells(self.server.workspace, uri)
        if cells is not None:
            return cells[0].text, cells[2]
        try:
            document = self.server.workspace.get_text_document(uri)
            return document.source, document.version
        except Exception as error:  # pygls reads the file when the document is not open
            self.log(f"cannot read {uri}: {error}", types.MessageType.Warning)
            return None

    async def checked(self, uri: str) -> Checked | None:
        """The analysis of `uri`'s current text (shared by pushes, pulls, hovers and code actions);
        None when the document is not open."""
        self._loop = asyncio.get_running_loop()
        changed_after = 0
        while True:
            current = self.text_of(uri)
            document = self.documents.get(uri)
            if current is None or document is None:
                return None
            text = current[0]
            key = (text, self.generation)
            if document.cached is None or document.cached[0] != key:
                future = self._loop.run_in_executor(self.executor, self._check, document, text, key[1])
                document.cached = (key, future)
            cached = document.cached
            checked = await asyncio.shield(cached[1])
            if checked.superseded:  # the text changed before its check began: check the new one
                if document.cached is cached:
                    document.cached = None
                continue
            latest = self.text_of(uri)
            if latest is None or latest == current:
                return checked
            changed_after += 1
            if changed_after == 3:  # changing faster than it is checked: the newest result will do
                return checked

    async def off_loop(self, work: Callable[..., T], *arguments: object) -> T:
        """`work(*arguments)` on the analysis thread (after the checks queued before it)."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, work, *arguments)

    def request(self, kind: str, checked: Checked) -> Request:
        """A question for the worker about `checked`'s text, under its workspace's configuration."""
        assert checked.workspace is not None
        workspace = checked.workspace
        first = checked.analysis if kind == "fix" else None
        options = checked.options or self.settings.options(self.folder_for(checked.path))
        cells = checked.cells is not None
        return Request(
            kind, checked.uri, workspace.resolver.cwd, options, checked.path, checked.text, first, cells=cells
        )

    def fixed_text(self, checked: Checked, asked: bool = True) -> str:
        """`checked`'s text with every safe fix applied (as `--fix`), computed by the worker;
        when it could not be, the text unchanged and the user told why (when they `asked` for
        it: a list of actions computed in advance only logs it)."""
        text, problem = self.worker.fix(self.request("fix", checked), self.settings.per_file_timeout)
        if problem is not None:
            message = f"{checked.path}: the fixes were not applied: {problem}"
            if asked:
                self.tell(message, types.MessageType.Error)
            else:
                self.log(message, types.MessageType.Error)
        return text

    def lowered(self, checked: Checked) -> LowerResult:
        """The PyPTO lowering of `checked`'s text, computed by the worker within the budget."""
        return self.worker.lower(self.request("lower", checked), self.settings.per_file_timeout)

    def model_hovers(self, checked: Checked, line: int, column: int) -> tuple[tuple[Span, str], ...]:
        """The `T.Kernel` calls (their shared memory) and loop headers holding the position,
        described by the worker (which keeps the last checked texts' models), within the
        per-file budget."""
        request = dataclasses.replace(self.request("hover", checked), position=(line, column))
        return self.worker.model_hovers(request, self.settings.per_file_timeout)

    def _current_text(self, uri: str) -> str | None:
        """The document's text as the event loop last left it (read from the worker thread)."""
        cells = notebook_cells(self.server.workspace, uri)
        if cells is not None:
            return cells[0].text
        try:
            return self.server.workspace.get_text_document(uri).source
        except Exception:
            return None

    def _check(self, document: OpenDocument, text: str, generation: int) -> Checked:
        """On the worker thread: never raises. What `Workspace.check_text` does, parsing through
        the document's chunk cache; nothing when the text was replaced while this check waited
        for the thread (typing faster than it is checked: only the newest text is checked)."""
        path = document.path
        checked = Checked(
            document.uri, path, text, generation, PositionMap(text, self.encoding), document=document
        )
        if self.documents.get(document.uri) is not document or self._current_text(document.uri) != text:
            checked.superseded = True
            return checked
        cells = notebook_cells(self.server.workspace, document.uri)  # the cells `text` was joined from
        if cells is not None:
            if cells[0].text != text:  # changed between the two reads: check the newest text
                checked.superseded = True
                return checked
            checked.cells, checked.notebook = {}, cells[:2]
        try:
            checked.workspace = self.workspace_for(path)
            checked.options = self.settings.options(self.folder_for(path))
            answer = self.worker.check(self.request("check", checked), self.settings.per_file_timeout)
            if answer.abandoned:
                checked.superseded = True
                return checked
            self._warn_once(answer.warnings)
            if answer.problem is not None:
                raise ConfigError(answer.problem.removeprefix("configuration error: "))
            checked.analysis = answer.analysis
            checked.hovers = answer.hovers or HoverData()
            checked.dependencies = answer.dependencies
        except ConfigError as error:
            checked.problem = f"configuration error: {error}"
            self.log(f"{path}: {checked.problem}", types.MessageType.Error)
        except Exception as error:  # a bug outside the rules (which the engine isolates)
            checked.problem = f"internal error: {type(error).__name__}: {error}"
            logger.exception("checking %s", path)
            self.log(f"{path}: {checked.problem}", types.MessageType.Error)
        else:
            for diagnostic in checked.analysis.diagnostics if checked.analysis is not None else ():
                if meta.is_problem(diagnostic, Problem.INTERNAL_ERROR):  # a crash: the user sees a diagnostic
                    self.log(f"{path}: {diagnostic.message}", types.MessageType.Error)
        try:
            if cells is not None:
                checked.cells = cell_diagnostics(checked, *cells[:2])
            else:
                checked.lsp = lsp_diagnostics(checked)
        except Exception as error:
            logger.exception("converting the diagnostics of %s", path)
            self.log(f"{path}: internal error: {type(error).__name__}: {error}", types.MessageType.Error)
        return checked


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
