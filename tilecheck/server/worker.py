"""The analysis worker: one persistent child process that runs the checks, the fix rounds
(the rules, plugin rules included) and the PyPTO lowering preview, so that a buffer or a rule that hangs, exhausts memory or
crashes the interpreter costs a restart of the worker, not the server.

The server asks one question at a time and waits at most the per-file time budget for the
answer; past it the worker is killed and replaced. The worker is a `WorkerProcess`, as the
CLI's are, and its failures are worded as theirs (`app.workers`): TL004 "too complex to analyze
within the budget", TL005 for a worker that died. The worker limits its own address space to
the memory budget (RLIMIT_AS), as the CLI's workers do. It keeps, per open document, the chunk cache that lets an edit re-parse only the top-level
statements it touched, and one `Workspace` per (folder, options); both are dropped on restart.

The worker is started with `spawn` (a fresh interpreter): the server has threads, and forking
a threaded process can deadlock the child.

A check that a newer version of its document or its close supersedes is abandoned (`abandon`):
the parent names the question in shared memory and signals the worker (SIGUSR1), which stops
that question (only that one: a signal that arrives late is ignored), drops the document's
state, and answers "abandoned"; the session then checks the newest text, or nothing.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from tilecheck.app.budget import Budget
from tilecheck.app.workers import (
    Failure,
    WorkerProcess,
    allocation_failed,
    crashed,
    did_not_start,
    die_with_parent,
    leave_working_directory,
    limit_memory,
    out_of_memory,
    timed_out,
)
from tilecheck.core.errors import Abandoned
from tilecheck.core.meta import Problem
from tilecheck.core.types import Span
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.server.worker_answers import CheckAnswer, ModelHovers, Request, WorkerState

if TYPE_CHECKING:
    from tilecheck.pypto.api import LowerResult

START_SECONDS = 120.0  # for a fresh worker to import libcst and the rules and say it is ready


class AnalysisWorker:
    """The parent's handle on the worker process. Thread-safe: one question at a time."""

    def __init__(self, memory: int | None) -> None:
        self.memory = memory  # MiB (None: unlimited), fixed for the life of a worker process
        self.restarts = 0
        self._lock = threading.Lock()
        self._worker: WorkerProcess | None = None
        self._started = False  # the current worker said it is ready
        self._notes: list[tuple[str, ...]] = []  # forget/reset, sent before the next question
        self._notes_lock = threading.Lock()
        self._questions = 0
        self._shared: Any = None  # [question being asked, question to abandon], shared with the worker
        self._asking: tuple[int, str, str] | None = None  # (question, uri, kind) in flight

    @property
    def pid(self) -> int | None:
        return self._worker.pid if self._worker is not None else None

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
        assert isinstance(answer, Failure)  # the worker overran its budget or died
        return CheckAnswer(answer.analysis(request.path))

    def fix(self, request: Request, seconds: float | None) -> tuple[str, str | None]:
        """The text with every safe fix applied, and why nothing was applied (None: fine)."""
        answer = self._ask(request, seconds)
        if isinstance(answer, str):
            return answer, None
        if isinstance(answer, CheckAnswer):  # a configuration problem
            return request.text, answer.problem
        if isinstance(answer, FileAnalysis):  # the worker could not fix: it says why in TL005
            return request.text, answer.diagnostics[0].message if answer.diagnostics else "fixing failed"
        assert isinstance(answer, Failure)
        return request.text, answer.message

    def lower(self, request: Request, seconds: float | None) -> LowerResult:
        """What the PyPTO lowering makes of the text; when the worker overran `seconds` or died,
        the text unchanged with that TL004/TL005 as the reason nothing was lowered."""
        from tilecheck.pypto.api import LowerResult

        answer = self._ask(request, seconds)
        if isinstance(answer, LowerResult):
            return answer
        if isinstance(answer, CheckAnswer):  # a configuration problem
            answer = Failure(Problem.INTERNAL_ERROR, answer.problem or "")
        if isinstance(answer, Failure):  # the worker overran its budget or died
            answer = answer.analysis(request.path)
        assert isinstance(answer, FileAnalysis)  # a crash in the worker
        return LowerResult(request.text, list(answer.diagnostics), False, request.text, blocked=True)

    def model_hovers(self, request: Request, seconds: float | None) -> tuple[tuple[Span, str], ...]:
        """(span, Markdown) of the `T.Kernel` calls and loop headers holding `request.position`
        (none when the worker overran `seconds` or died: a hover is not worth a diagnostic)."""
        answer = self._ask(request, seconds)
        return answer.items if isinstance(answer, ModelHovers) else ()

    def abandon(self, uri: str) -> bool:
        """Stop the check of `uri` in flight, if there is one (its text changed, or it was
        closed): the worker answers "abandoned" at once instead of finishing it. Never waits
        (the event loop calls this); whether a check was asked to stop."""
        asking, worker, shared = self._asking, self._worker, self._shared
        if asking is None or worker is None or shared is None or worker.pid is None:
            return False
        question, asked_uri, kind = asking
        if asked_uri != uri or kind != "check" or not hasattr(signal, "SIGUSR1"):
            return False  # (no SIGUSR1 on Windows: the check runs to its end there)
        shared[1] = question
        try:
            os.kill(worker.pid, signal.SIGUSR1)
        except (OSError, ValueError):
            return False
        return True

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
        worker = self._worker
        if worker is not None and worker.process.is_alive():
            worker.process.kill()
            worker.process.join(5)
        if worker is not None:
            worker.collect()

    # -- the parent's side ---------------------------------------------------------------------
    def _ask(
        self, request: Request, seconds: float | None
    ) -> CheckAnswer | ModelHovers | FileAnalysis | LowerResult | str | Failure:
        with self._lock:
            worker = self._ready()
            if isinstance(worker, Failure):
                return worker
            self._questions += 1
            self._shared[0] = self._questions
            self._asking = (self._questions, request.uri, request.kind)
            try:
                return self._answer(worker, request, seconds)
            finally:
                self._asking = None

    def _answer(
        self, worker: WorkerProcess, request: Request, seconds: float | None
    ) -> CheckAnswer | ModelHovers | FileAnalysis | LowerResult | str | Failure:
        if not (self._send_notes(worker) and worker.send(request)):
            # it died between questions: not this document's fault
            self._stop()
            ready = self._ready()
            if isinstance(ready, Failure):
                return ready
            worker = ready
            self._shared[0] = self._questions
            worker.send(request)
        # The budget is the question's alone: a fresh worker's start-up was waited for above.
        if not worker.connection.poll(seconds if seconds else None):
            self._kill()
            return timed_out(seconds)
        message = worker.receive()
        if message is None:
            self._discard()
            return worker.death(self._budget())
        kind, value = message
        if kind == "memory":  # the worker's heap may be in a bad state: replace it
            self._kill()
            return out_of_memory(self._budget())
        if kind == "abandoned":
            return CheckAnswer(None, abandoned=True)
        answer: CheckAnswer | ModelHovers | FileAnalysis | LowerResult | str = value
        return answer

    def _budget(self) -> Budget:
        return Budget(None, self.memory)

    def _tell(self, message: tuple[str, ...]) -> None:
        """Never waits for a question in progress (the event loop calls this)."""
        with self._notes_lock:
            self._notes.append(message)

    def _send_notes(self, worker: WorkerProcess) -> bool:
        with self._notes_lock:
            notes, self._notes = self._notes, []
        return all(worker.send(note) for note in notes)

    def _ensure(self) -> WorkerProcess:
        if self._worker is None:
            context = multiprocessing.get_context("spawn")
            self._shared = context.RawArray("q", 2)
            self._worker = WorkerProcess(context, serve, (self.memory, self._shared))
            self._started = False
        return self._worker

    def _ready(self) -> WorkerProcess | Failure:
        """The worker once it has imported the engine and the rules (it says so first); why
        not, when a fresh worker died on the way or did not within START_SECONDS."""
        worker = self._ensure()
        if self._started:
            return worker
        try:
            if not worker.connection.poll(START_SECONDS):
                self._kill()
                return did_not_start(START_SECONDS)
        except (EOFError, OSError):
            pass
        if worker.receive() == ("ready", None):
            self._started = True
            return worker
        self._discard()
        return worker.death(self._budget(), starting=True)

    def _discard(self) -> WorkerProcess | None:
        """Forget the current worker (the next question starts a new one)."""
        worker, self._worker = self._worker, None
        self.restarts += 1
        return worker

    def _kill(self) -> None:
        worker = self._discard()
        if worker is not None:
            worker.kill()

    def _stop(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.stop(grace=2)


# -- the worker's side --------------------------------------------------------------------------
def serve(connection: Connection, memory: int | None, shared: Any = None) -> None:
    """The worker's life: answer questions until the parent closes the pipe. `shared` holds the
    question being asked and the one the parent abandoned (see `AnalysisWorker.abandon`)."""
    import sys

    from tilecheck.source.recursion import RECURSION_LIMIT

    leave_working_directory()
    die_with_parent(by_signal=False)  # restarts start it from the server's executor threads
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))  # a process of its own
    limit_memory(memory)
    state = WorkerState()
    # Import what every check needs before saying so: start-up is not charged to a question's
    # budget (configured local plugins are imported by the question that needs them, and are).
    import libcst  # noqa: F401

    from tilecheck.core.registry import builtin_rules
    from tilecheck.server import hover_data  # noqa: F401

    builtin_rules()
    from tilecheck.server.garbage import Collector

    collector = Collector()
    collector.collect()  # what start-up imported is never garbage: frozen once
    answering = False

    def abandon(number: int, frame: object) -> None:
        if answering and shared is not None and shared[1] == shared[0]:
            raise Abandoned

    if hasattr(signal, "SIGUSR1"):
        signal.signal(signal.SIGUSR1, abandon)
    connection.send(("ready", None))
    while True:
        try:
            collector.wait(connection)
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        if isinstance(message, tuple):
            state.tell(message)
            continue
        try:
            try:
                answering = True
                answer: tuple[str, Any] = ("ok", state.answer(message))
            finally:
                answering = False
        except Abandoned:  # stopped anywhere: what it was building for the document is dropped
            state.tell(("forget", message.uri))
            state.tell(("reset",))
            answer = ("abandoned", None)
        except Exception as error:
            if allocation_failed(error, memory_limited=bool(memory)):
                answer = ("memory", None)
            else:  # a bug outside the rules (which the engine isolates)
                answer = ("ok", crashed(error).analysis(message.path))
        connection.send(answer)
        collector.answered()
