"""The questions the analysis worker is asked, its answers, and the state the worker process
keeps between questions to answer them (`worker` runs the process and talks to it).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tilecheck.app.workspace import Options, Workspace
from tilecheck.core.meta import Problem
from tilecheck.core.types import Span
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.source.notebook_path import is_notebook

if TYPE_CHECKING:
    from tilecheck.pypto.api import LowerResult
    from tilecheck.server.hover_data import HoverData

CHUNKS_PER_DOCUMENT = 1024  # a few versions of every top-level statement of a large file
_IMPORT_LINE = re.compile(r"^[ \t]*(?:from|import)[ \t\\][^\r\n]*", re.MULTILINE)  # and its line
CONTEXTS_KEPT = 4  # the last checked texts' contexts (CST, model), for loop hovers


@dataclass(frozen=True)
class Request:
    """One question for the worker: check `text` as `path` (or apply its safe fixes)."""

    kind: str  # "check", "fix", "lower" or "hover"
    uri: str
    cwd: str
    options: Options
    path: str
    text: str
    first: FileAnalysis | None = None  # "fix": the check's result for `text`
    position: tuple[int, int] | None = None  # "hover": (line, column), 1-based line, 0-based column
    cells: bool = False  # `text` is an open notebook's code cells joined (`server.notebook_cells`)


@dataclass(frozen=True)
class CheckAnswer:
    """The worker's answer to a check: the detached analysis (TL004/TL005 when the worker overran
    its budget or died) and what hovers show, or the configuration problem that stopped it; and
    the configuration warnings so far (e.g. local plugins that were not trusted)."""

    analysis: FileAnalysis | None
    hovers: HoverData | None = None
    problem: str | None = None
    warnings: tuple[str, ...] = ()
    dependencies: tuple[str, ...] = ()  # other files whose content can change the analysis
    abandoned: bool = False  # a newer text or a close superseded it mid-check (`abandon`)


@dataclass(frozen=True)
class ModelHovers:
    """The worker's answer to a hover: (span, Markdown) of each `T.Kernel` call (its shared
    memory) and each loop header under the position, in that order."""

    items: tuple[tuple[Span, str], ...]


class WorkerState:
    """What the worker keeps between questions (per document and per workspace), and how it
    answers one."""

    def __init__(self) -> None:
        self.chunks: dict[str, Any] = {}
        self.kernels: dict[str, Any] = {}  # uri -> its KernelMemo (tilelang.reuse)
        self.workspaces: dict[tuple[str, Options], Any] = {}
        self.contexts: OrderedDict[str, tuple[str, Any]] = OrderedDict()  # uri -> (text, context)
        self.dependencies: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}  # uri -> (imports, files)

    def tell(self, message: tuple[str, ...]) -> None:
        if message[0] == "forget":
            self.chunks.pop(message[1], None)
            self.kernels.pop(message[1], None)
            self.contexts.pop(message[1], None)
            self.dependencies.pop(message[1], None)
        elif message[0] == "reset":
            self.workspaces.clear()

    def answer(self, request: Request) -> CheckAnswer | ModelHovers | LowerResult | str:
        """Everything that reads the configuration happens here, in the worker: local plugins
        are imported (when trusted) by this process, never by the server."""
        from tilecheck.config.resolver import ConfigError
        from tilecheck.lint.engine import lint_source

        key = (request.cwd, request.options)
        workspace = self.workspaces.get(key)
        try:
            if workspace is None:
                workspace = self.workspaces[key] = Workspace(request.options, cwd=request.cwd)
            settings = workspace.file_settings(request.path)
            validate_client_selectors(workspace, request.path)
        except ConfigError as error:
            warnings = tuple(workspace.resolver.warnings) if workspace is not None else ()
            return CheckAnswer(None, problem=f"configuration error: {error}", warnings=warnings)
        if is_notebook(request.path) and not request.cells:  # its JSON is no Python text
            return _notebook_refusal(request)
        if request.kind == "lower":
            return workspace.lower_text(request.text, request.path)
        chunks = self.chunks.get(request.uri)
        if chunks is None:
            from tilecheck.source.chunks import ChunkCache

            chunks = self.chunks[request.uri] = ChunkCache(max_chunks=CHUNKS_PER_DOCUMENT)
        kernels = self.kernels.get(request.uri)
        if kernels is None:
            from tilecheck.tilelang.reuse import KernelMemo

            kernels = self.kernels[request.uri] = KernelMemo()
        if request.kind == "fix":
            from tilecheck.lint.fixes import fix_text

            def lint(text: str) -> FileAnalysis:
                return lint_source(text, request.path, settings, chunks=chunks, kernels=kernels)

            return fix_text(request.text, lint, first=request.first).text
        from tilecheck.server import hover_data

        if request.kind == "hover":
            assert request.position is not None
            kept = self.contexts.get(request.uri)
            if kept is None or kept[0] != request.text:
                kept = self._keep(
                    request, lint_source(request.text, request.path, settings, chunks=chunks, kernels=kernels)
                )
            if kept[1] is None:
                return ModelHovers(())
            launches = hover_data.launches_at(kept[1], *request.position)
            return ModelHovers(tuple(launches + hover_data.loops_at(kept[1], *request.position)))
        analysis = lint_source(request.text, request.path, settings, chunks=chunks, kernels=kernels)
        self._keep(request, analysis)
        hovers = hover_data.hover_data(analysis, settings)
        dependencies = self._dependencies(request)
        warnings = tuple(workspace.resolver.warnings)
        return CheckAnswer(analysis.detached(), hovers, warnings=warnings, dependencies=dependencies)

    def _dependencies(self, request: Request) -> tuple[str, ...]:
        """The files the text's imports can read (`tilecheck.source.project_files`), worked out again
        only when its import lines changed: typing elsewhere costs a regular-expression scan."""
        from tilecheck.source.project_files import imported_files

        imports = tuple(match.group() for match in _IMPORT_LINE.finditer(request.text))
        known = self.dependencies.get(request.uri)
        if known is None or known[0] != imports:
            known = self.dependencies[request.uri] = (
                imports,
                tuple(imported_files(request.path, request.text)),
            )
        return known[1]

    def _keep(self, request: Request, analysis: FileAnalysis) -> tuple[str, Any]:
        """Keep the context of a checked text for loop hovers (the last few documents only)."""
        usable = analysis.context is not None and not analysis.incomplete
        kept = self.contexts[request.uri] = (request.text, analysis.context if usable else None)
        self.contexts.move_to_end(request.uri)
        while len(self.contexts) > CONTEXTS_KEPT:
            self.contexts.popitem(last=False)
        return kept


def validate_client_selectors(workspace: Workspace, path: str) -> None:
    """Unknown codes in the client's `select`/`ignore` are configuration errors, as the CLI's
    flags are usage errors."""
    from tilecheck.config.resolver import ConfigError
    from tilecheck.config.selection import SelectionError, validate

    options = workspace.options
    selectors = [*(options.select or ()), *options.ignore]
    if selectors:
        try:
            validate(selectors, workspace.settings_for(path).rules)
        except SelectionError as error:
            raise ConfigError(f"settings `tilecheck.select`/`tilecheck.ignore`: {error}") from None


def _notebook_refusal(request: Request) -> CheckAnswer | ModelHovers | LowerResult | str:
    """A notebook opened as a text document: one diagnostic that says it is not checked here,
    never a silent pass over its JSON; fixes and hovers change and show nothing."""
    from tilecheck.core import meta
    from tilecheck.pypto.api import LowerResult

    if request.kind == "fix":
        return request.text
    if request.kind == "hover":
        return ModelHovers(())
    message = (
        "Cannot read file: it is a notebook; the language server checks Python documents"
        " (run `tilecheck check` on it)"
    )
    diagnostic = meta.at_start(Problem.UNREADABLE_FILE, request.path, message)
    if request.kind == "lower":
        return LowerResult(request.text, [diagnostic], False, request.text, blocked=True)
    return CheckAnswer(FileAnalysis(request.path, [diagnostic], text=request.text))
