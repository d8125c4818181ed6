"""`github`: GitHub Actions workflow commands, one annotation per diagnostic.

`::error title=tilecheck (TL101),file=k.py,line=3,col=5,endLine=3,endColumn=9::k.py:3:5: TL101 ...`
Optimization findings are notices, never errors. Values are escaped as the runner expects:
`%`, CR and LF everywhere, and `:` and `,` in properties. In a notebook the lines are counted in
the cell, which the title names (`tilecheck (TL101) in cell 3`).
"""

from __future__ import annotations

from typing import TextIO

from tilecheck.core.types import Diagnostic, Severity, Span
from tilecheck.report import Run, data_path, location, shown_line

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def line(diagnostic: Diagnostic) -> str:
    span, cell = diagnostic.span, diagnostic.cell
    properties = {
        "title": f"tilecheck ({diagnostic.code})" + ("" if cell is None else f" in cell {cell.number}"),
        "file": data_path(diagnostic.path),
        "line": shown_line(span, cell),
        "col": span.column + 1,
        "endLine": shown_line(Span.point(span.end_line, 0), cell),
        "endColumn": span.end_column + 1,
    }
    head = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    message = f"{location(diagnostic)}: {diagnostic.code} [{diagnostic.grade.value}] {diagnostic.message}"
    if diagnostic.help:
        message += f"\n  help: {diagnostic.help}"
    return f"::{COMMANDS[diagnostic.severity]} {head}::{escape_data(message)}"


def render(run: Run, out: TextIO) -> None:
    for diagnostic in run.diagnostics:
        out.write(line(diagnostic) + "\n")
