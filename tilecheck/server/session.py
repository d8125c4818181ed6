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
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types
from pygls.uris import to_fs_path

from tilecheck.config import ConfigError
from tilecheck.selection import SelectionError, validate
from tilecheck.server.convert import lsp_diagnostics
from tilecheck.server.positions import PositionMap
from tilecheck.server.settings import ClientSettings
from tilecheck.workspace import Workspace

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from tilecheck.engine import FileAnalysis

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

    @property
    def result_id(self) -> str:
        return f"{self.generation}:{hash(self.text) & 0xFFFFFFFF:08x}"


@dataclass
class OpenDocument:
    uri: str
    path: str
    pending: asyncio.Task | None = None  # the debounced check
    published: tuple[int | None, str] | None = None  # (version, result id) last pushed
    cached: tuple[tuple[str, int], asyncio.Future[Checked]] | None = None  # (text, generation)


class Session:
    """What the handlers share. Handlers run on the event loop; `_check` runs on the worker."""

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
        params = types.LogMessageParams(type=kind, message=message)
        loop = self._loop
        if loop is not None and not _on_loop(loop):
            loop.call_soon_threadsafe(self.server.window_log_message, params)
        else:
            self.server.window_log_message(params)

    def tell(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """window/showMessage plus the log."""
        self.log(message, kind)
        self.server.window_show_message(types.ShowMessageParams(type=kind, message=f"tilecheck: {message}"))

    # -- settings and workspaces -----------------------------------------------------------
    def apply_settings(self, raw: object) -> None:
        settings = ClientSettings.from_client(raw)
        for problem in settings.problems:
            self.tell(problem)
        self.settings = settings
        self.reset()

    def reset(self) -> None:
        """Forget resolved configuration: the next analysis of every document resolves it again."""
        with self._lock:
            self._workspaces.clear()
            self.generation += 1

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
        """The Workspace for `path`'s folder; raises ConfigError for a bad `configuration` file."""
        folder = self.folder_for(path)
        with self._lock:
            workspace = self._workspaces.get(folder)
            if workspace is None:
                options = self.settings.options(folder)
                workspace = Workspace(options, cwd=folder or os.path.dirname(os.path.abspath(path)))
                self._workspaces[folder] = workspace
        _validate_selectors(workspace, path)
        return workspace

    # -- documents -------------------------------------------------------------------------
    def open(self, uri: str) -> OpenDocument:
        document = self.documents.get(uri)
        if document is None:
            document = self.documents[uri] = OpenDocument(uri, to_fs_path(uri) or uri)
        return document

    def close(self, uri: str) -> None:
        document = self.documents.pop(uri, None)
        if document is not None and document.pending is not None:
            document.pending.cancel()

    def text_of(self, uri: str) -> tuple[str, int | None] | None:
        """The current text and version of an open document."""
        if uri not in self.documents:
            return None
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
        for _ in range(3):  # the text may change while we wait: analyse the newest one
            current = self.text_of(uri)
            document = self.documents.get(uri)
            if current is None or document is None:
                return None
            text = current[0]
            key = (text, self.generation)
            if document.cached is None or document.cached[0] != key:
                future = self._loop.run_in_executor(
                    self.executor, self._check, uri, document.path, text, key[1]
                )
                document.cached = (key, future)
            checked = await asyncio.shield(document.cached[1])
            if self.text_of(uri) == current or self.text_of(uri) is None:
                return checked
        return checked

    async def off_loop(self, work: Callable[..., T], *arguments: object) -> T:
        """`work(*arguments)` on the analysis thread (after the checks queued before it)."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, work, *arguments)

    def _check(self, uri: str, path: str, text: str, generation: int) -> Checked:
        """On the worker thread: never raises."""
        checked = Checked(uri, path, text, generation, PositionMap(text, self.encoding))
        try:
            checked.workspace = self.workspace_for(path)
            checked.analysis = checked.workspace.check_text(text, path)
        except ConfigError as error:
            checked.problem = f"configuration error: {error}"
            self.log(f"{path}: {checked.problem}", types.MessageType.Error)
        except Exception as error:  # a bug outside the rules (which the engine isolates)
            checked.problem = f"internal error: {type(error).__name__}: {error}"
            logger.exception("checking %s", path)
            self.log(f"{path}: {checked.problem}", types.MessageType.Error)
        else:
            for diagnostic in checked.analysis.diagnostics:
                if diagnostic.code == "TL005":  # a crashing rule or model: the user sees a diagnostic
                    self.log(f"{path}: {diagnostic.message}", types.MessageType.Error)
        try:
            checked.lsp = lsp_diagnostics(checked)
        except Exception as error:
            logger.exception("converting the diagnostics of %s", path)
            self.log(f"{path}: internal error: {type(error).__name__}: {error}", types.MessageType.Error)
        return checked


def _validate_selectors(workspace: Workspace, path: str) -> None:
    """Unknown codes in the client's `select`/`ignore` are errors, as the CLI's flags are."""
    options = workspace.options
    selectors = [*(options.select or ()), *options.ignore]
    if selectors:
        try:
            validate(selectors, workspace.settings_for(path).rules)
        except SelectionError as error:
            raise ConfigError(f"settings `tilecheck.select`/`tilecheck.ignore`: {error}") from None


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False
