"""The default format: the headline, a source excerpt with carets, secondary locations, help and fix.

Secondary locations (`Diagnostic.related`: the enclosing loop, the statement that broke a chain,
a macro definition, ...) get their own labelled excerpt under a `::: path:line:col` header, as
rustc prints them, underlined with `-` where the primary location has `^`.
"""

from __future__ import annotations

from typing import TextIO

from tilecheck.core.types import Diagnostic, Span
from tilecheck.report import BLUE, BOLD, CYAN, RED, Run, closing, display_path, headline, paint


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
    source: str | None, span: Span, mark: str = "^", label: str = "", width: int = 0, color: bool = False
) -> list[str]:
    """` |` / `N | text` / ` |   ^^^^ label` for the first line of `span`; `width` is the gutter's."""
    if source is None:
        return []
    found = _underline(source.splitlines(), span)
    if found is None:
        return []
    text, start, length = found
    gutter = max(width, len(str(span.line)))
    pad = " " * gutter
    marks = paint(
        f"{mark * length}{' ' + label if label else ''}".rstrip(), color, BOLD, RED if mark == "^" else BLUE
    )
    bar = paint("|", color, BOLD, BLUE)
    number = paint(f"{span.line:>{gutter}}", color, BOLD, BLUE)
    return [f"{pad} {bar}", f"{number} {bar} {text}", f"{pad} {bar} {' ' * start}{marks}"]


def related_blocks(diagnostic: Diagnostic, run: Run, width: int) -> list[str]:
    rows: list[str] = []
    for item in diagnostic.related:
        path = item.path or diagnostic.path
        where = f"{display_path(path)}:{item.span.line}:{item.span.column + 1}"
        block = snippet(run.sources.get(path), item.span, "-", item.message, width, run.color)
        arrow = paint(":::", run.color, BOLD, BLUE)
        rows.append(f"{' ' * width}{arrow} {where}" + ("" if block else f": {item.message}"))
        rows += block
    return rows


def render(run: Run, out: TextIO) -> None:
    for diagnostic in run.diagnostics:
        out.write(headline(diagnostic, run.color) + "\n")
        width = len(str(max([diagnostic.span.line, *(r.span.line for r in diagnostic.related)])))
        rows = snippet(run.sources.get(diagnostic.path), diagnostic.span, width=width, color=run.color)
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
