"""When the analysis worker collects its garbage.

CPython's full (oldest-generation) collection walks every live container object. The worker
keeps the parsed chunks, CPython's trees and the built kernels of every open document, several
hundred thousand objects for one large file, so a full collection costs more than a whole
re-check (about 135 ms against 20 ms for the parse it lands in, on the 2,076-line corpus file),
and CPython starts one every few checks while the user types.

So what survives a collection is frozen (`gc.freeze`: moved where collections do not look),
and the full collection runs when the worker has nothing to do: after `IDLE_SECONDS` without a
question, or after `MOST_CHECKS` answers in a row, so that cyclic garbage among the frozen
objects is reclaimed within a bounded time. Automatic collection stays on for the objects
created since (a check's own garbage). This is the worker process's policy, set by its entry
point; nothing in the library depends on it.
"""

from __future__ import annotations

import gc
from multiprocessing.connection import Connection

IDLE_SECONDS = 0.5
MOST_CHECKS = 64


class Collector:
    """Counts the answers since the last full collection, and runs one when it is due."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS, most_checks: int = MOST_CHECKS) -> None:
        self.idle_seconds = idle_seconds
        self.most_checks = most_checks
        self.pending = 0  # answers since the last full collection
        self.collections = 0

    def answered(self) -> None:
        self.pending += 1
        if self.pending >= self.most_checks:
            self.collect()

    def wait(self, connection: Connection) -> None:
        """Return when a message can be read from `connection` (or it is closed), collecting
        first if the worker has been idle for `idle_seconds` with answers since the last
        collection."""
        if self.pending and not connection.poll(self.idle_seconds):
            self.collect()

    def collect(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.pending = 0
        self.collections += 1
