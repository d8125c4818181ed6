"""`tilecheck explain --output-format svg`: the loop tree beside the kernel's source, as one SVG image.

Each tree row is a box coloured by loop kind, with its pipeline request and the backend's
verdict; a diagnostic is a dot on its node whose `<title>` (the hover text) is the full
message, with a line to the source line it is reported at. The `FILE:LINE` line is
highlighted. Static: no script, no external resources.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, TextIO

from tilecheck.explain.html import KIND_COLOURS, LEVEL_COLOURS, NEUTRAL
from tilecheck.explain.text import Picture, headline
from tilecheck.report import display_path, level

if TYPE_CHECKING:
    from tilecheck.explain.tree import Node

ROW = 22  # pixels per row, tree and source alike
INDENT = 22
TREE_WIDTH = 560
SOURCE_X = TREE_WIDTH + 40
CHAR = 7.2  # monospace advance at 12px


def _rows(node: Node, depth: int, rows: list[tuple[Node, int]]) -> None:
    for child in node.children:
        rows.append((child, depth))
        _rows(child, depth + 1, rows)


def _source_range(picture: Picture) -> tuple[int, int]:
    spans = [root.lines for root in picture.kernels if root.lines is not None]
    if not spans:
        return 1, min(len(picture.lines), 40)
    return min(s[0] for s in spans), max(s[1] for s in spans)


def render(picture: Picture, out: TextIO) -> None:
    rows: list[tuple[Node, int]] = []
    for root in picture.kernels:
        rows.append((root, 0))
        _rows(root, 1, rows)
    notes = [headline(d) for d in picture.outside]
    if not picture.kernels:
        notes.insert(0, picture.problem or "no TileLang kernels")
    first, last = _source_range(picture)
    source_rows = last - first + 1
    width = SOURCE_X + max([60, *(len(line) for line in picture.lines[first - 1 : last])]) * CHAR + 40
    height = 60 + ROW * max(len(rows) + len(notes), source_rows) + 20
    name = display_path(picture.path) + (f":{picture.line}" if picture.line else "")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
        f'viewBox="0 0 {width:.0f} {height}" font-family="ui-monospace, monospace" font-size="12">',
        f"<title>tilecheck explain {escape(name)}</title>",
        f'<rect width="{width:.0f}" height="{height}" fill="#ffffff"/>',
        f'<text x="16" y="24" font-family="system-ui, sans-serif" font-size="15" font-weight="700">'
        f"tilecheck explain {escape(name)} (backend: {escape(picture.backend or 'none selected')})</text>",
    ]

    def y_of_line(number: int) -> float:
        return 60 + ROW * (number - first)

    for number in range(first, last + 1):
        y = y_of_line(number)
        if number == picture.line:
            parts.append(
                f'<rect class="target" x="{SOURCE_X - 4}" y="{y - 15}" width="{width - SOURCE_X}" height="{ROW}" fill="#fde68a"/>'
            )
        text = picture.lines[number - 1] if number <= len(picture.lines) else ""
        parts.append(f'<text x="{SOURCE_X - 8}" y="{y}" text-anchor="end" fill="#9ca3af">{number}</text>')
        parts.append(f'<text x="{SOURCE_X + 4}" y="{y}" xml:space="preserve">{escape(text)}</text>')
    for index, (node, depth) in enumerate(rows):
        y = 60 + ROW * index
        x = 16 + depth * INDENT
        colour = KIND_COLOURS.get(node.loop_kind or "", NEUTRAL if node.kind != "kernel" else "#111827")
        label = ("?" if not node.certain else "") + node.title
        extra = [f"line {node.line}"]
        if node.pipeline:
            extra.append(f"pipeline {node.pipeline}")
        if node.verdict:
            extra.append(node.verdict)
        text = f"{label}  [{'; '.join(extra)}]"
        box = min(TREE_WIDTH - x - 30, len(text) * CHAR + 12)
        stroke = ' stroke="#f59e0b" stroke-width="3"' if node.marked else ""
        dash = ' stroke-dasharray="4 2"' if not node.certain else ""
        parts.append(
            f'<g class="node {escape(node.loop_kind or node.kind)}"><title>{escape(chr(10).join([text, *node.details]))}</title>'
            f'<rect x="{x}" y="{y - 15}" width="{box:.0f}" height="{ROW - 4}" rx="5" fill="{colour}" fill-opacity="0.14"{stroke}{dash}/>'
            f'<rect x="{x}" y="{y - 15}" width="5" height="{ROW - 4}" fill="{colour}"/>'
            f'<text x="{x + 10}" y="{y}" textLength="{max(box - 16, 10):.0f}" lengthAdjust="spacingAndGlyphs">{escape(text)}</text></g>'
        )
        for offset, diagnostic in enumerate(node.diagnostics):
            word = level(diagnostic)
            cx = TREE_WIDTH - 30 + offset * 22
            target = y_of_line(diagnostic.span.line) - 4
            parts.append(
                f'<g class="diagnostic {word}"><title>{escape(headline(diagnostic))}</title>'
                f'<line x1="{cx}" y1="{y - 4}" x2="{SOURCE_X - 30}" y2="{target}" stroke="{LEVEL_COLOURS[word]}" stroke-opacity="0.5"/>'
                f'<circle cx="{cx}" cy="{y - 4}" r="6" fill="{LEVEL_COLOURS[word]}"/>'
                f'<text x="{cx}" y="{y - 12}" font-size="9" text-anchor="middle" fill="{LEVEL_COLOURS[word]}">{escape(diagnostic.code)}</text></g>'
            )
    for index, note in enumerate(notes):  # what belongs to no kernel, under the tree
        y = 60 + ROW * (len(rows) + index)
        parts.append(
            f'<text class="outside" x="16" y="{y}" font-family="system-ui, sans-serif">{escape(note)}</text>'
        )
    parts.append("</svg>")
    out.write("\n".join(parts) + "\n")
