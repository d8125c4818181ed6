"""`path:line:col: error: CODE [grade] message`, one line per diagnostic."""

from __future__ import annotations

from typing import TextIO

from tilecheck.report import Run, headline, summary


def render(run: Run, out: TextIO) -> None:
    for diagnostic in run.diagnostics:
        out.write(headline(diagnostic) + "\n")
    out.write(summary(run) + "\n")  # `All checks passed!` on a clean run, as `full` says
