"""`path:line:col: error: CODE [grade] message`, one line per diagnostic."""

from __future__ import annotations

from typing import TextIO

from tilecheck.report import Run, closing, headline


def render(run: Run, out: TextIO) -> None:
    for diagnostic in run.diagnostics:
        out.write(headline(diagnostic, run.color) + "\n")
    out.write(closing(run))  # `All checks passed!` on a clean run, as `full` says
