"""Checking files in crash-isolated worker processes, each file within a time and memory budget.

Workers (`workers.WorkerProcess`) are forked once, after the task list exists, so a task
crosses the pipe as its index and only the detached result (no CST) comes back. A worker that
dies (a native crash, the OOM killer, a signal) costs only the file it was checking: that file
gets TL005 naming the cause, a fresh worker takes over, and every other file is still checked.
A file that outlives its time budget has its worker killed by the parent (a watchdog nothing in
the worker can bypass), one that exhausts the worker's address-space limit (RLIMIT_AS) fails
inside it (or, in native code that aborts when an allocation fails, is seen near the limit by
the parent); all become TL004, "too complex to analyze within the budget". Where `fork` is
unavailable, files are checked in this process, without isolation.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar, cast

from tilecheck.app import worker_gc
from tilecheck.app.budget import DEFAULT_MEMORY, DEFAULT_TIMEOUT, Budget
from tilecheck.app.workers import (
    OUT_OF_MEMORY_EXIT,
    WorkerProcess,
    allocation_failed,
    crashed,
    die_with_parent,
    limit_memory,
    out_of_memory,
    timed_out,
)
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.source.collection import paused

__all__ = ["DEFAULT_MEMORY", "DEFAULT_TIMEOUT", "Budget", "isolation_available", "run_isolated"]

Task = TypeVar("Task")
Result = TypeVar("Result")

MEMORY_POLL = 0.1  # seconds between looks at the busy workers' sizes, with a memory budget


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
    pool = _Pool(_Job(tasks, work, path_of, budget))
    results: list[Result | FileAnalysis | None] = [None] * len(tasks)
    pending = collections.deque(range(len(tasks)))
    try:
        idle = [pool.spawn() for _ in range(min(jobs, len(tasks)))]
        busy: dict[Connection, tuple[WorkerProcess, int, float]] = {}
        while pending or busy:
            while idle and pending:
                worker, index = idle.pop(), pending.popleft()
                if not worker.send(index):  # it died between tasks: not this file's fault
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
            if budget.memory:  # wake up to watch the workers' sizes (see `WorkerProcess.sample`)
                timeout = MEMORY_POLL if timeout is None else min(timeout, MEMORY_POLL)
            ready = wait(list(busy), timeout=timeout)
            for connection in ready:
                worker, index, _ = busy.pop(cast(Connection, connection))  # `wait` returns what it was given
                outcome = worker.receive()
                if outcome is None:
                    results[index] = worker.death(budget).analysis(path_of(tasks[index]))
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
                    results[index] = timed_out(budget.seconds).analysis(path_of(tasks[index]))
                    idle.append(pool.spawn())
            if progress is not None:
                progress(len(tasks) - len(pending) - len(busy))
        for worker in idle:
            worker.stop()
    finally:
        pool.close()
    done = [result for result in results if result is not None]
    assert len(done) == len(tasks)
    return done


@dataclass(frozen=True)
class _Job:
    """What every worker inherits through fork (never pickled)."""

    tasks: Sequence[Any]
    work: Callable[[Any], Any]
    path_of: Callable[[Any], str]
    budget: Budget


class _Pool:
    def __init__(self, job: _Job) -> None:
        self.context = multiprocessing.get_context("fork")
        self.job = job
        self.workers: list[WorkerProcess] = []

    def spawn(self) -> WorkerProcess:
        worker = WorkerProcess(self.context, _serve, (self.job,))
        self.workers.append(worker)
        return worker

    def close(self) -> None:
        for worker in self.workers:
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.collect()


def _serve(connection: Connection, job: _Job) -> None:
    """A worker's life: limit itself, then check the files it is given until told to stop. Out
    of memory where no answer can be sent any more (the pipe's own buffers): the exit code says so."""
    try:
        _answer_questions(connection, job)
    except BaseException as error:
        if allocation_failed(error, memory_limited=bool(job.budget.memory)):
            os._exit(OUT_OF_MEMORY_EXIT)
        raise


def _answer_questions(connection: Connection, job: _Job) -> None:
    budget = job.budget
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles ^C and kills its workers
    die_with_parent()
    limit_memory(budget.memory)
    worker_gc.started()
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
            with paused():  # collected once the answer is sent (`app.worker_gc`)
                result = job.work(job.tasks[index])
        except BaseException as error:
            if allocation_failed(error, memory_limited=bool(budget.memory)):
                result, retire = out_of_memory(budget).analysis(path), True  # the heap may be in a bad state
            else:  # a crash in the engine's own code: this file only
                result = crashed(error).analysis(path)
                retire = not isinstance(error, Exception)
        try:
            connection.send((result, retire))
        except MemoryError:
            connection.send((out_of_memory(budget).analysis(path), True))
        if retire:
            return
        worker_gc.checked()
