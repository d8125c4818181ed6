"""The default format: the headline, a source excerpt with carets, secondary locations, help and fix.

Secondary locations (`Diagnostic.related`: the enclosing loop, the statement that broke a chain,
a macro definition, ...) get their own labelled excerpt under a `::: path:line:col` header, as
rustc prints them, underlined with `-` where the primary location has `^`.
"""

from __future__ import annotations

from typing import TextIO

from tilecheck.core.types import Diagnostic, NotebookCell, Span
from tilecheck.report import BLUE, BOLD, CYAN, RED, Run, closing, headline, paint, shown_line, where


def _underline(lines: list[str], span: Span) -> tuple[str, int, int] | None:
    """(the line's text, start column, width) of the first line of `span`, or None."""
    number = span.line
    if not 1 <= number <= len(lines):
        return None
    text = lines[number - 1].expandtabs(1)
    start = min(span.column, len(text))
    end = span.end_column if span.end_line == number else len(text.rstrip())
    return text, start, max(1, min(end, len(text)) - start)


def snippet(
    source: str | None,
    span: Span,
    mark: str = "^",
    label: str = "",
    width: int = 0,
    cell: NotebookCell | None = None,
    color: bool = False,
) -> list[str]:
    """` |` / `N | text` / ` |   ^^^^ label` for the first line of `span`; `width` is the gutter's;
    in a notebook, N counts from the `cell`'s first line."""
    if source is None:
        return []
    found = _underline(source.splitlines(), span)
    if found is None:
        return []
    text, start, length = found
    number = shown_line(span, cell)
    gutter = max(width, len(str(number)))
    pad = " " * gutter
    marks = paint(
        f"{mark * length}{' ' + label if label else ''}".rstrip(), color, BOLD, RED if mark == "^" else BLUE
    )
    bar = paint("|", color, BOLD, BLUE)
    shown = paint(f"{number:>{gutter}}", color, BOLD, BLUE)
    return [f"{pad} {bar}", f"{shown} {bar} {text}", f"{pad} {bar} {' ' * start}{marks}"]


def related_blocks(diagnostic: Diagnostic, run: Run, width: int) -> list[str]:
    rows: list[str] = []
    for item in diagnostic.related:
        path = item.path or diagnostic.path
        block = snippet(run.sources.get(path), item.span, "-", item.message, width, item.cell, run.color)
        arrow = paint(":::", run.color, BOLD, BLUE)
        rows.append(
            f"{' ' * width}{arrow} {where(path, item.span, item.cell)}"
            + ("" if block else f": {item.message}")
        )
        rows += block
    return rows


def render(run: Run, out: TextIO) -> None:
    for diagnostic in run.diagnostics:
        out.write(headline(diagnostic, run.color) + "\n")
        lines = [
            shown_line(diagnostic.span, diagnostic.cell),
            *(shown_line(r.span, r.cell) for r in diagnostic.related),
        ]
        width = len(str(max(lines)))
        rows = snippet(
            run.sources.get(diagnostic.path),
            diagnostic.span,
            width=width,
            cell=diagnostic.cell,
            color=run.color,
        )
        rows += related_blocks(diagnostic, run, width)
        for row in rows:
            out.write(row + "\n")
        equals = paint("=", run.color, BOLD, BLUE)
        for note in diagnostic.notes:
            out.write(f"  {equals} {paint('note', run.color, BOLD)}: {note}\n")
        if diagnostic.help:
            out.write(f"  {equals} {paint('help', run.color, BOLD, CYAN)}: {diagnostic.help}\n")
        if diagnostic.fix is not None:
            unsafe = "" if diagnostic.fix.safe else " (unsafe)"
            out.write(f"  {equals} {paint('fix', run.color, BOLD)}: {diagnostic.fix.title}{unsafe}\n")
        out.write("\n")
    out.write(closing(run))
