"""The default format: the concise line, a source excerpt with carets, and the rule's help."""

from __future__ import annotations

from typing import TextIO

from tilecheck.report import Run, summary
from tilecheck.report.concise import line
from tilecheck.types import Diagnostic


def excerpt(diagnostic: Diagnostic, source: str | None) -> list[str]:
    if source is None:
        return []
    lines = source.splitlines()
    number = diagnostic.span.line
    if not 1 <= number <= len(lines):
        return []
    text = lines[number - 1].expandtabs(1)
    start = min(diagnostic.span.column, len(text))
    end = diagnostic.span.end_column if diagnostic.span.end_line == number else len(text.rstrip())
    width = max(1, min(end, len(text)) - start)
    gutter = " " * len(str(number))
    return [
        f"{gutter} |",
        f"{number} | {text}",
        f"{gutter} | {' ' * start}{'^' * width}",
    ]


def render(run: Run, out: TextIO) -> None:
    for diagnostic in run.diagnostics:
        out.write(line(diagnostic) + "\n")
        for row in excerpt(diagnostic, run.sources.get(diagnostic.path)):
            out.write(row + "\n")
        for note in diagnostic.notes:
            out.write(f"  = note: {note}\n")
        if diagnostic.help:
            out.write(f"  = help: {diagnostic.help}\n")
        if diagnostic.fix is not None:
            out.write(f"  = fix: {diagnostic.fix.title}{'' if diagnostic.fix.safe else ' (unsafe)'}\n")
        out.write("\n")
    out.write(summary(run) + "\n")
