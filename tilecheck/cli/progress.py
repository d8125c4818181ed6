"""A progress line on stderr for long runs: `Checking files: 120/613`, erased before the report.

Shown only where a person watches: stderr is a terminal, `CI` is not set, and the report is
for people (not `json`, `json-lines`, `sarif`, `github`, `gitlab` or `junit`); and only once the run has taken
more than `DELAY` seconds, so quick runs never flicker.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

DELAY = 1.0  # seconds before the line first appears
INTERVAL = 0.1  # seconds between redraws
MACHINE_FORMATS = frozenset({"json", "json-lines", "sarif", "github", "gitlab", "junit"})


def wanted(output_format: str, stream: TextIO | None = None, environ: dict[str, str] | None = None) -> bool:
    stream = stream if stream is not None else sys.stderr
    environ = environ if environ is not None else dict(os.environ)
    interactive = getattr(stream, "isatty", lambda: False)()
    return bool(interactive) and not environ.get("CI") and output_format not in MACHINE_FORMATS


class ProgressLine:
    """Call with the number of files done; `close()` erases the line (call it before reporting)."""

    def __init__(
        self, total: int, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.started = clock()
        self.drawn_at: float | None = None

    def __call__(self, done: int) -> None:
        now = self.clock()
        if now - self.started < DELAY:
            return
        if self.drawn_at is not None and now - self.drawn_at < INTERVAL and done < self.total:
            return
        self.drawn_at = now
        self.stream.write(f"\r\x1b[2KChecking files: {done}/{self.total}")
        self.stream.flush()

    def close(self) -> None:
        if self.drawn_at is not None:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self.drawn_at = None
