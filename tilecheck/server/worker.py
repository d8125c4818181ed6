"""The analysis worker: one persistent child process that runs the checks, the fix rounds
(the rules, plugin rules included) and the PyPTO lowering preview, so that a buffer or a rule that hangs, exhausts memory or
crashes the interpreter costs a restart of the worker, not the server.

The server asks one question at a time and waits at most the per-file time budget for the
answer; past it the worker is killed and replaced, and the document gets TL004 "too complex to
analyze within the budget", as `tilecheck check` reports it. A worker that dies gives TL005.
The worker limits its own address space to the memory budget (RLIMIT_AS), as the CLI's workers
do. It keeps, per open document, the chunk cache that lets an edit re-parse only the top-level
statements it touched, and one `Workspace` per (folder, options); both are dropped on restart.

The worker is started with `spawn` (a fresh interpreter): the server has threads, and forking
a threaded process can deadlock the child.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from tilecheck.app.supervisor import limit_memory
from tilecheck.app.workspace import Options, Workspace
from tilecheck.core.types import Span
from tilecheck.lint.engine import FileAnalysis, meta_diagnostic

if TYPE_CHECKING:
    from tilecheck.pypto.api import LowerResult
    from tilecheck.server.hover_data import HoverData

CHUNKS_PER_DOCUMENT = 1024  # a few versions of every top-level statement of a large file
_IMPORT_LINE = re.compile(r"^[ \t]*(?:from|import)[ \t\\][^\r\n]*", re.MULTILINE)  # and its line
CONTEXTS_KEPT = 4  # the last checked texts' contexts (CST, model), for loop hovers
START_SECONDS = 120.0  # for a fresh worker to import libcst and the rules and say it is ready


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


@dataclass(frozen=True)
class LoopHovers:
    """The worker's answer to a hover: (header span, Markdown) of each loop under the position."""

    items: tuple[tuple[Span, str], ...]


class AnalysisWorker:
    """The parent's handle on the worker process. Thread-safe: one question at a time."""

    def __init__(self, memory: int | None) -> None:
        self.memory = memory  # MiB (None: unlimited), fixed for the life of a worker process
        self.restarts = 0
        self._lock = threading.Lock()
        self._process: Any = None
        self._connection: Connection | None = None
        self._started = False  # the current worker said it is ready
        self._notes: list[tuple[str, ...]] = []  # forget/reset, sent before the next question
        self._notes_lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the worker now (it imports while the server initializes)."""
        with self._lock:
            self._ensure()

    def check(self, request: Request, seconds: float | None) -> CheckAnswer:
        """The worker's check of `request` (see `CheckAnswer`)."""
        answer = self._ask(request, seconds)
        if isinstance(answer, CheckAnswer):
            return answer
        if isinstance(answer, FileAnalysis):  # a crash outside the rules
            return CheckAnswer(answer)
        assert isinstance(answer, tuple)  # the worker overran its budget or died
        failure = meta_diagnostic(request.path, answer[0], Span.point(1, 0), answer[1])
        return CheckAnswer(FileAnalysis(request.path, [failure]))

    def fix(self, request: Request, seconds: float | None) -> tuple[str, str | None]:
        """The text with every safe fix applied, and why nothing was applied (None: fine)."""
        answer = self._ask(request, seconds)
        if isinstance(answer, str):
            return answer, None
        if isinstance(answer, CheckAnswer):  # a configuration problem
            return request.text, answer.problem
        if isinstance(answer, FileAnalysis):  # the worker could not fix: it says why in TL005
            return request.text, answer.diagnostics[0].message if answer.diagnostics else "fixing failed"
        assert isinstance(answer, tuple)
        return request.text, answer[1]

    def lower(self, request: Request, seconds: float | None) -> LowerResult:
        """What the PyPTO lowering makes of the text; when the worker overran `seconds` or died,
        the text unchanged with that TL004/TL005 as the reason nothing was lowered."""
        from tilecheck.pypto.api import LowerResult

        answer = self._ask(request, seconds)
        if isinstance(answer, LowerResult):
            return answer
        if isinstance(answer, CheckAnswer):  # a configuration problem
            problem = meta_diagnostic(request.path, "TL005", Span.point(1, 0), answer.problem or "")
            return LowerResult(request.text, [problem], False, request.text, blocked=True)
        if isinstance(answer, FileAnalysis):  # a crash in the worker
            return LowerResult(request.text, list(answer.diagnostics), False, request.text, blocked=True)
        assert isinstance(answer, tuple)  # the worker overran its budget or died
        failure = meta_diagnostic(request.path, answer[0], Span.point(1, 0), answer[1])
        return LowerResult(request.text, [failure], False, request.text, blocked=True)

    def loop_hovers(self, request: Request, seconds: float | None) -> tuple[tuple[Span, str], ...]:
        """(header span, Markdown) of the loops whose header holds `request.position` (none
        when the worker overran `seconds` or died: a hover is not worth a diagnostic)."""
        answer = self._ask(request, seconds)
        return answer.items if isinstance(answer, LoopHovers) else ()

    def forget(self, uri: str) -> None:
        """A closed document: drop its chunk cache (told before the next question)."""
        self._tell(("forget", uri))

    def reset(self) -> None:
        """Configuration changed: drop every resolved workspace (told before the next question)."""
        self._tell(("reset",))

    def restart(self, memory: int | None) -> None:
        """Replace the worker by one with the memory budget `memory` (started on first use)."""
        with self._lock:
            self._stop()
            self.memory = memory

    def close(self) -> None:
        """At exit: end the worker now, even in the middle of a question."""
        process = self._process
        if process is not None and process.is_alive():
            process.kill()
            process.join(5)

    # -- the parent's side ---------------------------------------------------------------------
    def _ask(
        self, request: Request, seconds: float | None
    ) -> CheckAnswer | LoopHovers | FileAnalysis | LowerResult | str | tuple[str, str]:
        with self._lock:
            connection = self._ready()
            if isinstance(connection, str):
                return "TL005", connection
            try:
                self._send_notes(connection)
                connection.send(request)
            except OSError:  # it died between questions: not this document's fault
                self._stop()
                connection = self._ready()
                if isinstance(connection, str):
                    return "TL005", connection
                connection.send(request)
            # The budget is the question's alone: a fresh worker's start-up was waited for above.
            if not connection.poll(seconds if seconds else None):
                self._kill()
                return "TL004", _too_complex(f"took longer than {seconds:g} s (per-file-timeout)")
            try:
                kind, value = connection.recv()
            except (EOFError, OSError):
                code = self._kill()
                return "TL005", _died(code, self.memory)
            if kind == "memory":  # the worker's heap may be in a bad state: replace it
                self._kill()
                return "TL004", _too_complex(f"needed more than {_mib(self.memory)} (per-file-memory)")
            return value

    def _tell(self, message: tuple[str, ...]) -> None:
        """Never waits for a question in progress (the event loop calls this)."""
        with self._notes_lock:
            self._notes.append(message)

    def _send_notes(self, connection: Connection) -> None:
        with self._notes_lock:
            notes, self._notes = self._notes, []
        for note in notes:
            connection.send(note)

    def _ensure(self) -> Connection:
        if self._process is None or self._connection is None:
            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe()
            process = context.Process(target=serve, args=(theirs, self.memory), daemon=True)
            process.start()
            theirs.close()
            self._process, self._connection = process, ours
            self._started = False
        return self._connection

    def _ready(self) -> Connection | str:
        """The worker's connection once it has imported the engine and the rules (it says so
        first); why not, when a fresh worker died on the way or did not within START_SECONDS."""
        connection = self._ensure()
        if self._started:
            return connection
        try:
            if not connection.poll(START_SECONDS):
                self._kill()
                return f"The tilecheck analysis process did not start within {START_SECONDS:g} s; no rule was run"
            if connection.recv() == ("ready", None):
                self._started = True
                return connection
        except (EOFError, OSError):
            pass
        return _died(self._kill(), self.memory, "starting") + "; no rule was run"

    def _kill(self) -> int | None:
        """Kill and reap the worker; its exit code. The next question starts a new one."""
        process, connection = self._process, self._connection
        self._process = self._connection = None
        self.restarts += 1
        if process is None:
            return None
        process.kill()
        process.join()
        if connection is not None:
            connection.close()
        return process.exitcode

    def _stop(self) -> None:
        process, connection = self._process, self._connection
        self._process = self._connection = None
        if connection is not None:
            with contextlib.suppress(OSError):
                connection.send(None)
            connection.close()
        if process is not None:
            process.join(2)
            if process.is_alive():
                process.kill()
                process.join()


def _too_complex(reason: str) -> str:
    """The TL004 message, worded as `tilecheck check` and `tilecheck lower` word it."""
    return f"File is too complex to analyze within the budget: checking it {reason}; no rule was run on it"


def _mib(memory: int | None) -> str:
    return f"{memory} MiB" if memory else "unlimited memory"


def _died(exitcode: int | None, memory: int | None, doing: str = "checking this file") -> str:
    cause = (
        f"it was killed by signal {-exitcode}"
        if exitcode is not None and exitcode < 0
        else f"it exited with code {exitcode}"
    )
    return (
        f"The tilecheck analysis process died while {doing}: {cause}; its memory limit was "
        f"{_mib(memory)} (per-file-memory). It was restarted"
    )


# -- the worker's side --------------------------------------------------------------------------
def serve(connection: Connection, memory: int | None) -> None:
    """The worker's life: answer questions until the parent closes the pipe."""
    import sys

    from tilecheck.lint.engine import RECURSION_LIMIT

    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))  # a process of its own
    limit_memory(memory)
    state = _State()
    # Import what every check needs before saying so: start-up is not charged to a question's
    # budget (configured local plugins are imported by the question that needs them, and are).
    import libcst  # noqa: F401

    from tilecheck.core.registry import builtin_rules
    from tilecheck.server import hover_data  # noqa: F401

    builtin_rules()
    connection.send(("ready", None))
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        if isinstance(message, tuple):
            state.tell(message)
            continue
        try:
            answer: tuple[str, Any] = ("ok", state.answer(message))
        except MemoryError:
            answer = ("memory", None)
        except Exception as error:  # a bug outside the rules (which the engine isolates)
            text = f"Checking this file crashed: {type(error).__name__}: {error}"
            answer = (
                "ok",
                FileAnalysis(
                    message.path, [meta_diagnostic(message.path, "TL005", Span.point(1, 0), text)], True
                ),
            )
        connection.send(answer)


class _State:
    def __init__(self) -> None:
        from tilecheck.source.chunks import ChunkCache

        self._new_cache = lambda: ChunkCache(max_chunks=CHUNKS_PER_DOCUMENT)
        self.chunks: dict[str, Any] = {}
        self.workspaces: dict[tuple[str, Options], Any] = {}
        self.contexts: OrderedDict[str, tuple[str, Any]] = OrderedDict()  # uri -> (text, context)
        self.dependencies: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}  # uri -> (imports, files)

    def tell(self, message: tuple[str, ...]) -> None:
        if message[0] == "forget":
            self.chunks.pop(message[1], None)
            self.contexts.pop(message[1], None)
            self.dependencies.pop(message[1], None)
        elif message[0] == "reset":
            self.workspaces.clear()

    def answer(self, request: Request) -> CheckAnswer | LoopHovers | LowerResult | str:
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
        if request.kind == "lower":
            return workspace.lower_text(request.text, request.path)
        chunks = self.chunks.get(request.uri)
        if chunks is None:
            chunks = self.chunks[request.uri] = self._new_cache()
        if request.kind == "fix":
            from tilecheck.lint.fixes import fix_text

            def lint(text: str) -> FileAnalysis:
                return lint_source(text, request.path, settings, chunks=chunks)

            return fix_text(request.text, lint, first=request.first).text
        from tilecheck.server import hover_data

        if request.kind == "hover":
            assert request.position is not None
            kept = self.contexts.get(request.uri)
            if kept is None or kept[0] != request.text:
                kept = self._keep(request, lint_source(request.text, request.path, settings, chunks=chunks))
            return LoopHovers(tuple(hover_data.loops_at(kept[1], *request.position)) if kept[1] else ())
        analysis = lint_source(request.text, request.path, settings, chunks=chunks)
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
        usable = analysis.context is not None and not any(d.code == "TL004" for d in analysis.diagnostics)
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
