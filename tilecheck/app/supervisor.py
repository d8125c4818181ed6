"""Checking files in crash-isolated worker processes, each file within a time and memory budget.

Workers are forked once, after the task list exists, so a task crosses the pipe as its index
and only the detached result (no CST) comes back. A worker that dies (a native crash, the OOM
killer, a signal) costs only the file it was checking: that file gets TL005 naming the cause,
a fresh worker takes over, and every other file is still checked. A file that outlives its time
budget has its worker killed by the parent (a watchdog nothing in the worker can bypass), one
that exhausts the worker's address-space limit (RLIMIT_AS) fails inside it (or, in native code
that aborts when an allocation fails, is seen near the limit by the parent); all become TL004,
"too complex to analyze within the budget". Where `fork` is unavailable, files are checked in
this process, without isolation.
"""

from __future__ import annotations

import collections
import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

from tilecheck.core.types import Span
from tilecheck.lint.engine import FileAnalysis, meta_diagnostic

Task = TypeVar("Task")
Result = TypeVar("Result")

DEFAULT_TIMEOUT = 60.0  # seconds; a 2,000-line kernel takes well under 2 s
DEFAULT_MEMORY = 2048  # MiB beyond the worker's size at start; a 2,000-line kernel needs < 150
MEMORY_POLL = 0.1  # seconds between looks at the busy workers' sizes, with a memory budget
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True)
class Budget:
    """Per-file limits: wall-clock seconds and MiB of memory (None: unlimited)."""

    seconds: float | None = DEFAULT_TIMEOUT
    memory: int | None = DEFAULT_MEMORY

    def describe_memory(self) -> str:
        return f"{self.memory} MiB" if self.memory else "unlimited"


def isolation_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def run_isolated(
    tasks: Sequence[Task],
    work: Callable[[Task], Result],
    path_of: Callable[[Task], str],
    *,
    jobs: int,
    budget: Budget,
    progress: Callable[[int], None] | None = None,
) -> list[Result | FileAnalysis]:
    """`work(task)` for every task, in up to `jobs` worker processes, in the order of `tasks`;
    `progress(done)` after each result. A task whose worker crashed or overran its budget has a
    `FileAnalysis` with that meta diagnostic (TL004, TL005) in place of its result, whatever
    `work` returns (a `FileAnalysis` for `tilecheck check`, an `Inventory` for `inventory`)."""
    if not tasks:
        return []
    if not isolation_available() or multiprocessing.current_process().daemon:
        # Without fork, or inside a worker (isolated already; daemons may not have children).
        finished: list[Result | FileAnalysis] = []
        for task in tasks:
            finished.append(work(task))
            if progress is not None:
                progress(len(finished))
        return finished
    pool = _Pool(tasks, work, path_of, budget)
    results: list[Result | FileAnalysis | None] = [None] * len(tasks)
    pending = collections.deque(range(len(tasks)))
    try:
        idle = [pool.spawn() for _ in range(min(jobs, len(tasks)))]
        busy: dict[Connection, tuple[_Worker, int, float]] = {}
        while pending or busy:
            while idle and pending:
                worker, index = idle.pop(), pending.popleft()
                if not worker.give(index):  # it died between tasks: not this file's fault
                    worker.stop()
                    idle.append(pool.spawn())
                    pending.appendleft(index)
                    continue
                deadline = time.monotonic() + budget.seconds if budget.seconds else float("inf")
                worker.peak = 0
                busy[worker.connection] = (worker, index, deadline)
            now = time.monotonic()
            nearest = min(deadline for _, _, deadline in busy.values())
            timeout = None if nearest == float("inf") else max(nearest - now, 0)
            if budget.memory:  # wake up to watch the workers' sizes (see `_Worker.sample`)
                timeout = MEMORY_POLL if timeout is None else min(timeout, MEMORY_POLL)
            ready = wait(list(busy), timeout=timeout)
            for connection in ready:
                worker, index, _ = busy.pop(connection)  # type: ignore[call-overload]
                outcome = worker.take()
                if outcome is None:
                    results[index] = _died(path_of(tasks[index]), worker, budget)
                    idle.append(pool.spawn())
                    continue
                results[index], retire = outcome
                if retire:
                    worker.stop()
                    worker = pool.spawn()
                idle.append(worker)
            now = time.monotonic()
            for connection, (worker, index, deadline) in list(busy.items()):
                if budget.memory:
                    worker.sample()
                if now >= deadline and connection not in ready:
                    del busy[connection]
                    worker.kill()
                    results[index] = _timed_out(path_of(tasks[index]), budget)
                    idle.append(pool.spawn())
            if progress is not None:
                progress(len(tasks) - len(pending) - len(busy))
        for worker in idle:
            worker.stop()
    finally:
        pool.close()
    assert all(result is not None for result in results)
    return results  # type: ignore[return-value]


class _Worker:
    def __init__(self, process: Any, connection: Connection) -> None:
        self.process = process
        self.connection = connection
        self.peak = 0  # the largest address-space size seen during the current file, in bytes
        self.limit: int | None = None  # its RLIMIT_AS, once it has set it

    def sample(self) -> None:
        """Note the worker's current size (from /proc; nothing where there is none)."""
        pid = self.process.pid
        try:
            with open(f"/proc/{pid}/statm") as handle:
                self.peak = max(self.peak, int(handle.read().split()[0]) * _PAGE_SIZE)
            if self.limit is None:
                self.limit = _address_space_limit(pid)
        except (OSError, ValueError, IndexError):
            pass

    def near_its_limit(self, budget: Budget) -> bool:
        """Whether the worker was seen within a quarter of its memory budget of its limit: a native
        abort then is an allocation that failed (libcst's parser aborts instead of raising)."""
        if not budget.memory or self.limit is None:
            return False
        return self.peak >= self.limit - budget.memory * 1024 * 1024 // 4

    def give(self, index: int) -> bool:
        try:
            self.connection.send(index)
        except OSError:
            return False
        return True

    def take(self) -> tuple[Any, bool] | None:
        try:
            return self.connection.recv()
        except (EOFError, OSError):
            return None

    def stop(self) -> int | None:
        """Ask the worker to end (or reap it if it is dead); its exit code."""
        with contextlib.suppress(OSError):
            self.connection.send(None)
        self.process.join(5)
        if self.process.is_alive():
            self.kill()
        self.connection.close()
        return self.process.exitcode

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.connection.close()


class _Pool:
    def __init__(
        self,
        tasks: Sequence[Any],
        work: Callable[[Any], Any],
        path_of: Callable[[Any], str],
        budget: Budget,
    ) -> None:
        self.context = multiprocessing.get_context("fork")
        self.job = _Job(tasks, work, path_of, budget)
        self.workers: list[_Worker] = []

    def spawn(self) -> _Worker:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(target=_serve, args=(theirs, self.job), daemon=True)
        process.start()
        theirs.close()
        worker = _Worker(process, ours)
        self.workers.append(worker)
        return worker

    def close(self) -> None:
        for worker in self.workers:
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()


@dataclass(frozen=True)
class _Job:
    """What every worker inherits through fork (never pickled)."""

    tasks: Sequence[Any]
    work: Callable[[Any], Any]
    path_of: Callable[[Any], str]
    budget: Budget


def _serve(connection: Connection, job: _Job) -> None:
    """A worker's life: limit itself, then check the files it is given until told to stop."""
    budget = job.budget
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles ^C and kills its workers
    limit_memory(budget.memory)
    while True:
        try:
            index = connection.recv()
        except (EOFError, OSError):
            return
        if index is None:
            return
        retire = False
        path = "<unknown>"
        result: Any
        try:
            path = job.path_of(job.tasks[index])
            result = job.work(job.tasks[index])
        except MemoryError:
            result, retire = _out_of_memory(path, budget), True  # the heap may be in a bad state
        except BaseException as error:  # a crash in the engine's own code: this file only
            message = f"Checking this file crashed: {type(error).__name__}: {error}"
            result = FileAnalysis(path, [meta_diagnostic(path, "TL005", Span.point(1, 0), message)], True)
            retire = not isinstance(error, Exception)
        try:
            connection.send((result, retire))
        except MemoryError:
            connection.send((_out_of_memory(path, budget), True))
        if retire:
            return


def limit_memory(memory: int | None) -> None:
    """Limit this process's address space (RLIMIT_AS) to its size now plus `memory` MiB, and
    turn off core dumps; for worker processes only (the CLI's and the editor server's)."""
    if not memory:
        return
    try:
        import resource

        with open("/proc/self/statm") as handle:
            size = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = size + memory * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash needs no core dump
    except (ImportError, OSError, ValueError):
        pass  # no /proc or no resource module: the time budget still holds


def _too_complex(path: str, reason: str) -> FileAnalysis:
    message = f"File is too complex to analyze within the budget: {reason}; no rule was run on it"
    return FileAnalysis(path, [meta_diagnostic(path, "TL004", Span.point(1, 0), message)])


def _timed_out(path: str, budget: Budget) -> FileAnalysis:
    return _too_complex(path, f"checking it took longer than {budget.seconds:g} s (per-file-timeout)")


def _out_of_memory(path: str, budget: Budget) -> FileAnalysis:
    return _too_complex(path, f"checking it needed more than {budget.describe_memory()} (per-file-memory)")


def _address_space_limit(pid: int) -> int | None:
    with open(f"/proc/{pid}/limits") as handle:
        for line in handle:
            if line.startswith("Max address space"):
                soft = line.split()[3]
                return int(soft) if soft.isdigit() else None
    return None


def _died(path: str, worker: _Worker, budget: Budget) -> FileAnalysis:
    exitcode = worker.stop()
    if exitcode == -signal.SIGABRT and worker.near_its_limit(budget):
        return _out_of_memory(path, budget)
    if exitcode is not None and exitcode < 0:
        number = -exitcode
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = "unknown signal"
        cause = f"it was killed by signal {number} ({name})"
        if number == signal.SIGKILL:
            cause += ", possibly by the kernel's out-of-memory killer"
    else:
        cause = f"it exited with code {exitcode}"
    message = (
        f"The worker process checking this file died: {cause}; its memory limit was "
        f"{budget.describe_memory()} (per-file-memory). The other files were checked"
    )
    return FileAnalysis(path, [meta_diagnostic(path, "TL005", Span.point(1, 0), message)], True)
