"""`path:line:col: CODE [grade] message`, one line per diagnostic."""

from __future__ import annotations

from typing import TextIO

from tilecheck.report import Run, location, summary


def line(diagnostic) -> str:
    return f"{location(diagnostic)}: {diagnostic.code} [{diagnostic.grade.value}] {diagnostic.message}"


def render(run: Run, out: TextIO) -> None:
    for diagnostic in run.diagnostics:
        out.write(line(diagnostic) + "\n")
    if run.diagnostics or run.fixed:
        out.write(summary(run) + "\n")
