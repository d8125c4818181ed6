"""`tilecheck explain --output-format svg`: the loop tree beside the kernel's source, as one SVG image.

Rows align: each tree node is drawn on the row of the source line it is reported at, and what
needs more rows (several nodes on one line, a diagnostic's message, help and related
locations, written out under its node) gets blank source rows, as a side-by-side diff does.
Each node is a box coloured by loop kind, with its pipeline request and the backend's verdict.
In the source, the line a diagnostic is reported at and its related lines are highlighted, and
the `FILE:LINE` line is marked. Columns are as wide as their text: nothing is clipped.
Static: no script, no external resources.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, TextIO

from tilecheck.explain.html import KIND_COLOURS, LEVEL_COLOURS, NEUTRAL, related_lines
from tilecheck.explain.text import LEGEND, Picture, headline, pointers
from tilecheck.report import level

if TYPE_CHECKING:
    from tilecheck.core.types import Diagnostic
    from tilecheck.explain.node import Node

ROW = 22  # pixels per row, tree and source alike
TOP = 60  # the first row's baseline
INDENT = 22
CHAR = 7.2  # monospace advance at 12px
WRAP = 100  # characters per row of a diagnostic's message
REPORTED, RELATED, TARGET = "#fecaca", "#fed7aa", "#fde68a"  # source row highlights


@dataclass
class Row:
    """One row of the picture: a source line (or none), and what the tree draws on it."""

    line: int | None = None
    node: Node | None = None
    depth: int = 0
    text: str = ""  # a diagnostic's row: its message, help or a related location
    diagnostic: Diagnostic | None = None
    first: bool = False  # the diagnostic's first row (its headline)


@dataclass
class Layout:
    rows: list[Row] = field(default_factory=list)

    def y(self, index: int) -> int:
        return TOP + ROW * index

    def row_of_line(self, line: int) -> int | None:
        for index, row in enumerate(self.rows):
            if row.line == line:
                return index
        return None


def plain(text: str) -> str:
    """Backticks are Markdown, not picture text."""
    return text.replace("`", "")


def _nodes(node: Node, depth: int, found: list[tuple[Node, int]]) -> None:
    found.append((node, depth))
    for child in node.children:
        _nodes(child, depth + 1, found)


def _diagnostic_rows(picture: Picture, diagnostic: Diagnostic, node: Node, depth: int) -> list[Row]:
    texts = textwrap.wrap(plain(headline(diagnostic)), WRAP) or [""]
    if diagnostic.help:
        texts += textwrap.wrap(plain(f"help: {diagnostic.help}"), WRAP)
    texts += [plain(f"  {row}") for row in pointers(picture, diagnostic, node)]
    return [Row(text=text, depth=depth, diagnostic=diagnostic, first=i == 0) for i, text in enumerate(texts)]


def layout(picture: Picture, first: int, last: int) -> Layout:
    """Source lines `first`..`last`, each node on its line's row (or a blank-source row after
    it, when its line's row is taken or already passed)."""
    nodes: list[tuple[Node, int]] = []
    for root in picture.kernels:
        _nodes(root, 0, nodes)
    result = Layout()
    next_line = first
    for node, depth in nodes:
        if next_line <= node.line <= last:
            result.rows += [Row(line=n) for n in range(next_line, node.line)]
            result.rows.append(Row(line=node.line, node=node, depth=depth))
            next_line = node.line + 1
        else:
            result.rows.append(Row(node=node, depth=depth))
        for diagnostic in node.diagnostics:
            result.rows += _diagnostic_rows(picture, diagnostic, node, depth + 1)
    result.rows += [Row(line=n) for n in range(next_line, last + 1)]
    return result


def _source_range(picture: Picture) -> tuple[int, int]:
    spans = [root.lines for root in picture.kernels if root.lines is not None]
    if not spans:
        return 1, min(len(picture.lines), 40)
    return min(s[0] for s in spans), min(len(picture.lines), max(s[1] for s in spans))


def _node_text(picture: Picture, node: Node) -> str:
    extra = [picture.at(node.line)]
    if node.pipeline:
        extra.append(f"pipeline {node.pipeline}")
    if node.verdict:
        extra.append(picture.words(node.verdict))
    return plain(f"{'?' if not node.certain else ''}{node.title}  [{'; '.join(extra)}]")


def render(picture: Picture, out: TextIO) -> None:
    first, last = _source_range(picture)
    grid = layout(picture, first, last)
    notes = [plain(headline(d)) for d in picture.outside]
    if not picture.kernels:
        notes.insert(0, picture.problem or "no TileLang kernels")
    tree_width = 16 + max(
        [400.0]
        + [
            row.depth * INDENT + 10 + len(_node_text(picture, row.node)) * CHAR + 30
            for row in grid.rows
            if row.node
        ]
        + [row.depth * INDENT + 10 + len(row.text) * CHAR for row in grid.rows if row.text]
    )
    source_x = tree_width + 60
    longest = max([60, *(len(line.expandtabs(4)) for line in picture.lines[first - 1 : last])])
    legend = plain(LEGEND)
    width = max(
        source_x + longest * CHAR + 40, 16 + len(legend) * CHAR + 16, 16 + max([0, *map(len, notes)]) * CHAR
    )
    body_rows = len(grid.rows) + len(notes)
    height = TOP + ROW * body_rows + ROW + 10
    name = picture.target()
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
        f'viewBox="0 0 {width:.0f} {height}" font-family="ui-monospace, monospace" font-size="12">',
        f"<title>tilecheck explain {escape(name)}</title>",
        f'<rect width="{width:.0f}" height="{height}" fill="#ffffff"/>',
        f'<text x="16" y="24" font-family="system-ui, sans-serif" font-size="15" font-weight="700">'
        f"tilecheck explain {escape(name)} (backend: {escape(picture.backend or 'none selected')})</text>",
    ]
    reported = {d.span.line: d for row in grid.rows if row.node for d in row.node.diagnostics}
    reported.update((d.span.line, d) for d in picture.outside)
    related = related_lines(picture)
    for index, row in enumerate(grid.rows):
        y = grid.y(index)
        if row.line is not None:
            parts += _source_row(picture, row.line, y, source_x, width, reported, related)
        if row.node is not None:
            parts.append(_node_box(picture, row.node, row.depth, y, index))
        elif row.diagnostic is not None:
            parts.append(_diagnostic_text(row, y))
    for index, note in enumerate(notes):  # what belongs to no kernel, under the tree
        y = grid.y(len(grid.rows) + index)
        parts.append(
            f'<text class="outside" x="16" y="{y}" font-family="system-ui, sans-serif">{escape(note)}</text>'
        )
    parts.append(
        f'<text class="legend" x="16" y="{grid.y(body_rows)}" font-family="system-ui, sans-serif" '
        f'fill="#4b5563">{escape(legend)}</text>'
    )
    parts.append("</svg>")
    out.write("\n".join(parts) + "\n")


def _source_row(
    picture: Picture,
    number: int,
    y: int,
    source_x: float,
    width: float,
    reported: dict[int, Diagnostic],
    related: dict[int, list[Diagnostic]],
) -> list[str]:
    parts = []
    fill, kind = None, ""
    if number == picture.line:
        fill, kind = TARGET, "target"
    elif number in reported:
        fill, kind = REPORTED, "reported"
    elif number in related:
        fill, kind = RELATED, "related"
    if fill is not None:
        parts.append(
            f'<rect class="{kind}" data-line="{number}" x="{source_x - 4:.0f}" y="{y - 15}" '
            f'width="{width - source_x - 8:.0f}" height="{ROW}" fill="{fill}"/>'
        )
    if number in related:  # a related line keeps its bar when it is also reported or the target
        parts.append(
            f'<rect class="related-bar" x="{source_x - 4:.0f}" y="{y - 15}" width="4" height="{ROW}" fill="#ea580c"/>'
        )
    text = picture.lines[number - 1].expandtabs(4) if number <= len(picture.lines) else ""
    shown = picture.number(number)
    parts.append(f'<text x="{source_x - 10:.0f}" y="{y}" text-anchor="end" fill="#9ca3af">{shown}</text>')
    cell = picture.notebook.cell_at(number) if picture.notebook is not None else None
    if cell is not None and cell.first_line == number:  # a notebook cell starts: a rule, its number
        parts.append(
            f'<line class="cell-start" x1="{source_x - 40:.0f}" y1="{y - 15}" x2="{width - 12:.0f}" '
            f'y2="{y - 15}" stroke="#9ca3af" stroke-dasharray="3 3"/>'
        )
        parts.append(
            f'<text class="cell-label" x="{width - 14:.0f}" y="{y}" text-anchor="end" font-size="10" '
            f'fill="#6b7280">cell {cell.number}</text>'
        )
    parts.append(f'<text x="{source_x + 4:.0f}" y="{y}" xml:space="preserve">{escape(text)}</text>')
    return parts


def _node_box(picture: Picture, node: Node, depth: int, y: int, index: int) -> str:
    x = 16 + depth * INDENT
    colour = KIND_COLOURS.get(node.loop_kind or "", NEUTRAL if node.kind != "kernel" else "#111827")
    text = _node_text(picture, node)
    box = len(text) * CHAR + 16
    stroke = ' stroke="#f59e0b" stroke-width="3"' if node.marked else ""
    dash = ' stroke-dasharray="4 2"' if not node.certain else ""
    codes = "".join(
        f'<circle cx="{x + box + 12 + 22 * n:.0f}" cy="{y - 4}" r="6" fill="{LEVEL_COLOURS[level(d)]}"/>'
        for n, d in enumerate(node.diagnostics)
    )
    title = escape("\n".join([text, *(plain(picture.words(detail)) for detail in node.details)]))
    return (
        f'<g class="node {escape(node.loop_kind or node.kind)}" data-row="{index}" data-line="{node.line}">'
        f"<title>{title}</title>"
        f'<rect x="{x}" y="{y - 15}" width="{box:.0f}" height="{ROW - 4}" rx="5" fill="{colour}" fill-opacity="0.14"{stroke}{dash}/>'
        f'<rect class="bar" x="{x}" y="{y - 15}" width="5" height="{ROW - 4}" fill="{colour}"/>'
        f'<text x="{x + 10}" y="{y}">{escape(text)}</text>{codes}</g>'
    )


def _diagnostic_text(row: Row, y: int) -> str:
    assert row.diagnostic is not None
    word = level(row.diagnostic)
    colour = LEVEL_COLOURS[word] if row.first else ("#065f46" if row.text.startswith("help:") else "#374151")
    weight = ' font-weight="700"' if row.first else ""
    kind = f"diagnostic {word}" if row.first else "diagnostic-detail"
    return (
        f'<text class="{kind}" x="{16 + row.depth * INDENT + 10}" y="{y}" fill="{colour}"{weight} '
        f'xml:space="preserve">{escape(row.text)}</text>'
    )
