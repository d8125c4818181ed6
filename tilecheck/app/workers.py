"""Worker processes and what their failures mean: one handle and one wording for every front end.

A `WorkerProcess` is a child process that answers questions over a pipe: the CLI's pool forks
them (`supervisor.run_isolated`), the editor spawns one persistent analysis worker
(`server/worker.py`). Whatever goes wrong is a `Failure` worded here once: TL004 "too complex
to analyze within the budget" for a question beyond its time or memory budget, TL005 for a
worker that died or crashed.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tilecheck.app.budget import Budget
from tilecheck.core import meta
from tilecheck.core.errors import looks_like_failed_allocation
from tilecheck.core.meta import Problem
from tilecheck.lint.analysis import FileAnalysis

if TYPE_CHECKING:  # multiprocessing is imported by the supervisor, when a file needs a worker
    from multiprocessing.connection import Connection

OUT_OF_MEMORY_EXIT = 86  # a worker's exit code when it ran out of memory past answering
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True)
class Failure:
    """Why a question got no answer, as the file's diagnostic reports it."""

    problem: Problem  # TOO_COMPLEX or INTERNAL_ERROR
    message: str

    def analysis(self, path: str) -> FileAnalysis:
        crashed = self.problem is Problem.INTERNAL_ERROR  # exit status 2
        return FileAnalysis(path, [meta.at_start(self.problem, path, self.message)], crashed)


def _too_complex(reason: str) -> Failure:
    return Failure(
        Problem.TOO_COMPLEX,
        f"File is too complex to analyze within the budget: {reason}; no rule was run on it",
    )


def allocation_failed(error: BaseException, *, memory_limited: bool) -> bool:
    """Whether a crash is the memory budget's verdict: a MemoryError, or, in a process under its
    memory limit, anything else a failed allocation looks like (`looks_like_failed_allocation`)."""
    return isinstance(error, MemoryError) or (memory_limited and looks_like_failed_allocation(error))


def timed_out(seconds: float | None) -> Failure:
    return _too_complex(f"checking it took longer than {seconds or 0:g} s (per-file-timeout)")


def out_of_memory(budget: Budget) -> Failure:
    return _too_complex(f"checking it needed more than {budget.describe_memory()} (per-file-memory)")


def crashed(error: BaseException) -> Failure:
    """A bug in tilecheck's own code while checking (the engine isolates the rules' bugs)."""
    return Failure(Problem.INTERNAL_ERROR, f"Checking this file crashed: {type(error).__name__}: {error}")


def died(exitcode: int | None, budget: Budget, *, starting: bool = False) -> Failure:
    """A worker that ended without answering: a native crash, a signal, the OOM killer, an exit."""
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
    limit = f"its memory limit was {budget.describe_memory()} (per-file-memory)"
    if starting:
        return Failure(
            Problem.INTERNAL_ERROR,
            f"The worker process died while starting: {cause}; {limit}; no rule was run",
        )
    return Failure(Problem.INTERNAL_ERROR, f"The worker process checking this file died: {cause}; {limit}")


def parser_aborted(exitcode: int) -> Failure:
    """A worker killed by a signal while libcst's native parser ran: what a file beyond what it
    can parse costs (it aborts when an allocation fails, or when its stack overflows)."""
    return _parse_failure(f"libcst's parser aborted on it ({_signal_name(-exitcode)})")


def _parse_failure(reason: str) -> Failure:
    return Failure(
        Problem.TOO_COMPLEX,
        f"File is too complex to parse: {reason}, as it does when an allocation fails or its stack "
        "overflows; no rule was run on it",
    )


def _signal_name(number: int) -> str:
    try:
        return f"signal {number}, {signal.Signals(number).name}"
    except ValueError:
        return f"signal {number}"


def did_not_start(seconds: float) -> Failure:
    return Failure(
        Problem.INTERNAL_ERROR, f"The worker process did not start within {seconds:g} s; no rule was run"
    )


class WorkerProcess:
    """A started worker process and the parent's end of its pipe."""

    def __init__(self, context: Any, target: Any, args: tuple[Any, ...]) -> None:
        import tempfile  # only once a worker is needed (the cached path starts none)

        ours, theirs = context.Pipe()
        # The worker opens it and removes its name; this end is read once the worker is gone
        # (nothing is left behind, even when tilecheck itself is killed).
        self._report, self._fatal = tempfile.mkstemp(prefix="tilecheck-worker-", suffix=".fatal")  # 0600
        self.fatal_report = ""  # what faulthandler wrote when the worker died of a signal
        self.process = context.Process(target=_start, args=(self._fatal, target, theirs, *args), daemon=True)
        self.process.start()
        theirs.close()
        self.connection: Connection = ours
        self.peak = 0  # the largest address-space size seen during the current question, in bytes
        self.limit: int | None = None  # its RLIMIT_AS, once it has set it

    @property
    def pid(self) -> int | None:
        pid: int | None = self.process.pid
        return pid

    def send(self, message: Any) -> bool:
        """False when the worker is gone."""
        try:
            self.connection.send(message)
        except OSError:
            return False
        return True

    def receive(self) -> Any | None:
        """The worker's next message; None when it died."""
        try:
            return self.connection.recv()
        except (EOFError, OSError):
            return None

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
        """Whether the worker was seen within half of its memory budget of its limit: a native
        abort then is an allocation that failed (libcst's parser aborts instead of raising).
        Half, because the parser grows by doubling its buffers: the allocation that fails can
        be as large as all it holds, and the last look (every `MEMORY_POLL`) may come before
        it (seen: 289 to 313 MiB sampled against a 399 MiB limit, 30,000 kernels under 300)."""
        if not budget.memory or self.limit is None:
            return False
        return self.peak >= self.limit - budget.memory * 1024 * 1024 // 2

    def death(self, budget: Budget, *, starting: bool = False) -> Failure:
        """Reap a worker that ended without answering, and say why."""
        exitcode = self.stop()
        if exitcode == OUT_OF_MEMORY_EXIT or (exitcode == -signal.SIGABRT and self.near_its_limit(budget)):
            return out_of_memory(budget)
        if exitcode == -signal.SIGABRT and not starting and in_libcst(innermost_file(self.fatal_report)):
            return parser_aborted(exitcode)
        return died(exitcode, budget, starting=starting)

    def stop(self, grace: float = 5) -> int | None:
        """Ask the worker to end (or reap it if it is dead); its exit code."""
        with contextlib.suppress(OSError):
            self.connection.send(None)
        self.process.join(grace)
        if self.process.is_alive():
            self.kill()
        self.connection.close()
        self.collect()
        exitcode: int | None = self.process.exitcode
        return exitcode

    def kill(self) -> int | None:
        """End the worker now; its exit code."""
        self.process.kill()
        self.process.join()
        self.connection.close()
        self.collect()
        exitcode: int | None = self.process.exitcode
        return exitcode

    def collect(self) -> None:
        """Once the worker has ended: read what faulthandler wrote (if it died of a signal)."""
        if self._report < 0:
            return
        with contextlib.suppress(OSError):
            os.lseek(self._report, 0, os.SEEK_SET)
            self.fatal_report = os.read(self._report, FATAL_REPORT_BYTES).decode("utf-8", "replace")
        os.close(self._report)
        self._report = -1
        with contextlib.suppress(OSError):  # a worker that never started left the name
            os.unlink(self._fatal)


FATAL_REPORT_BYTES = 64 * 1024
_FRAME = re.compile(r'^\s+File "(.*)", line \d+ in ', re.MULTILINE)


def _start(fatal: str, target: Any, connection: Connection, *args: Any) -> None:
    """A worker's first act: a fatal signal (a native abort, a segfault) writes the Python stack
    it struck in to `fatal`, where the parent reads what was running (`WorkerProcess.death`)."""
    import faulthandler

    with contextlib.suppress(OSError):
        report = open(fatal, "w", encoding="utf-8")  # noqa: SIM115  # faulthandler keeps it open
        os.unlink(fatal)  # the parent reads it through its own descriptor
        faulthandler.enable(report, all_threads=False)
    target(connection, *args)


def innermost_file(report: str) -> str | None:
    """The file of the innermost Python frame in a faulthandler report ("most recent call first")."""
    found = _FRAME.search(report)
    return found.group(1) if found else None


def in_libcst(path: str | None) -> bool:
    """Whether `path` is a module of the libcst package (found, not imported)."""
    if path is None:
        return False
    import importlib.util

    try:
        spec = importlib.util.find_spec("libcst")
    except (ImportError, ValueError):
        return False
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    real = os.path.realpath(path)
    return any(real.startswith(os.path.realpath(location) + os.sep) for location in locations)


def leave_working_directory() -> None:
    """A spawned worker's first act: the parent's working directory (an editor's workspace, an
    untrusted tree) is neither its working directory nor on its sys.path, so nothing a lazy
    import looks up can come from there. Its questions carry absolute paths and their own cwd;
    it works in the standard library's directory, which no project is under (paths it words
    stay absolute)."""
    try:
        here = os.getcwd()
    except OSError:
        here = None
    sys.path[:] = [entry for entry in sys.path if entry and os.path.abspath(entry) != here]
    with contextlib.suppress(OSError):
        os.chdir(os.path.dirname(os.path.abspath(os.__file__)))


PARENT_POLL = 0.5  # seconds between a worker's looks at whether its parent is still there


def die_with_parent(*, by_signal: bool = True) -> None:
    """A worker outlives no parent (a `kill -9` of tilecheck would leave it running, blocked on
    its pipe): on Linux the kernel kills it when the parent ends (PR_SET_PDEATHSIG, `by_signal`);
    everywhere, a thread notices that its parent changed and ends the process.

    The kernel sends the signal when the parent *thread* that started the worker ends, so
    `by_signal` is only for workers whose starting thread outlives them (the CLI's pool)."""
    import multiprocessing
    import threading

    parent = multiprocessing.parent_process()
    expected = parent.pid if parent is not None else os.getppid()
    if by_signal and sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):  # no libc to load: the thread still watches
            import ctypes

            pr_set_pdeathsig = 1
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != expected:  # the parent ended before the kernel was told
        os._exit(1)

    def watch() -> None:
        while os.getppid() == expected:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="tilecheck-parent-watch", daemon=True).start()


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


def _address_space_limit(pid: int) -> int | None:
    with open(f"/proc/{pid}/limits") as handle:
        for line in handle:
            if line.startswith("Max address space"):
                soft = line.split()[3]
                return int(soft) if soft.isdigit() else None
    return None
