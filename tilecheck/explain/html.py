"""`tilecheck explain --output-format html`: the loop tree beside the source, in one self-contained page.

No network: styles and the few lines of script are inline. Loops are coloured by kind;
pipeline requests and the backend's verdict are badges; diagnostics hang on their nodes with
their message, help and related locations written out; in the source, the line each
diagnostic is reported at and its related lines (the statement that breaks the chain, the
enclosing loop) are highlighted, the `FILE:LINE` line is marked, and hovering a node
highlights its lines. Long lines wrap: nothing is clipped.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, TextIO

from tilecheck.core.types import Diagnostic
from tilecheck.explain.text import LEGEND, Picture, headline, pointers, walk
from tilecheck.report import level

if TYPE_CHECKING:
    from tilecheck.explain.node import Node

# One colour per loop kind (LoopKind values); statements that hold loops are neutral.
KIND_COLOURS = {
    "parallel": "#2563eb",
    "serial": "#6b7280",
    "range": "#6b7280",
    "pipelined": "#059669",
    "unrolled": "#d97706",
    "vectorized": "#7c3aed",
    "persistent": "#0891b2",
    "grid": "#db2777",
    "thread-binding": "#92400e",
}
LEVEL_COLOURS = {"error": "#dc2626", "warning": "#ca8a04", "note": "#0284c7"}
NEUTRAL = "#9ca3af"

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #111827; background: #f9fafb; }
header { padding: 12px 20px; background: #111827; color: #f9fafb; }
header h1 { font-size: 18px; margin: 0 0 4px; }
header p { margin: 0; color: #d1d5db; }
.legend { display: flex; flex-wrap: wrap; gap: 10px; padding: 8px 20px; background: #e5e7eb; font-size: 12px; }
.legend span { display: inline-flex; align-items: center; gap: 4px; }
.swatch { width: 12px; height: 12px; border-radius: 3px; display: inline-block; }
main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; padding: 16px 20px; }
section { background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: 12px; overflow: auto; }
h2 { font-size: 15px; margin: 4px 0 8px; }
ul.tree, ul.tree ul { list-style: none; margin: 0; padding-left: 18px; border-left: 1px dashed #d1d5db; }
ul.tree { padding-left: 0; border-left: none; }
.node { margin: 4px 0; }
.label { display: inline-block; padding: 3px 8px; border-radius: 6px; border-left: 6px solid var(--kind);
  background: color-mix(in srgb, var(--kind) 12%, white); font-family: ui-monospace, monospace; font-size: 13px; }
.node.marked > .label { outline: 3px solid #f59e0b; }
.node.uncertain > .label { border-left-style: dotted; }
.kind { font-family: system-ui, sans-serif; font-size: 11px; font-weight: 600; color: var(--kind); margin-right: 6px; text-transform: uppercase; }
.where { color: #6b7280; margin-left: 6px; font-size: 12px; }
.badge { display: inline-block; margin-left: 6px; padding: 0 6px; border-radius: 9px; font-size: 11px; font-family: system-ui, sans-serif; }
.badge.pipeline { background: #d1fae5; color: #065f46; }
.badge.verdict { background: #fef3c7; color: #92400e; }
.badge.copies { background: #e5e7eb; color: #374151; }
.details { color: #4b5563; font-size: 12px; margin: 2px 0 0 10px; }
.diag { margin: 3px 0 3px 10px; padding: 4px 8px; border-radius: 4px; font-size: 12.5px;
  background: color-mix(in srgb, var(--level) 10%, white); border: 1px solid var(--level); overflow-wrap: anywhere; }
.diag b { color: var(--level); }
.diag .msg { margin: 2px 0; }
.diag .help { margin: 2px 0; color: #065f46; }
.diag ul { margin: 2px 0 0; padding-left: 16px; color: #374151; }
code { font: 12px ui-monospace, monospace; background: rgba(17, 24, 39, 0.07); padding: 0 3px; border-radius: 3px; }
pre { margin: 0; font: 12.5px/1.5 ui-monospace, monospace; }
.src { display: flex; }
.src .no { flex: none; width: 3.5em; text-align: right; padding-right: 10px; color: #9ca3af; user-select: none; }
.src .text { white-space: pre-wrap; overflow-wrap: anywhere; flex: 1; min-width: 0; }
.src.kernel-line { background: #f3f4f6; }
.src.flagged { background: color-mix(in srgb, var(--level) 16%, white); }
.src.flagged .no { color: var(--level); font-weight: 700; }
.src.related { box-shadow: inset 5px 0 #ea580c; }
.src.related:not(.flagged) { background: #fed7aa; }
.src.target { background: #fde68a; }
.src.hover { background: #bfdbfe; }
.src.cell-start { position: relative; border-top: 1px dashed #9ca3af; }
.src.cell-start::after { content: attr(data-cell); position: absolute; right: 4px; top: 0; font-size: 10px; color: #6b7280; }
.src .codes { color: var(--level); font-size: 11px; padding-left: 8px; white-space: nowrap; }
"""

SCRIPT = """
for (const label of document.querySelectorAll('.node > .label')) {
  const lines = (label.parentElement.dataset.lines || '').split(' ').filter(Boolean);
  label.addEventListener('mouseenter', () => lines.forEach(n => document.getElementById('L' + n)?.classList.add('hover')));
  label.addEventListener('mouseleave', () => lines.forEach(n => document.getElementById('L' + n)?.classList.remove('hover')));
}
"""


def marked_up(text: str) -> str:
    """`text` escaped, its `code` spans as <code> (never raw backticks on the page)."""
    parts = escape(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: leave it as it is
        return escape(text)
    return "".join(f"<code>{part}</code>" if index % 2 else part for index, part in enumerate(parts))


def _diagnostic(picture: Picture, diagnostic: Diagnostic, node: Node | None) -> str:
    word = level(diagnostic)
    rows = "".join(f"<li>{marked_up(row)}</li>" for row in pointers(picture, diagnostic, node))
    tip = escape(headline(diagnostic) + (f"\nhelp: {diagnostic.help}" if diagnostic.help else ""))
    help = f'<div class="help">help: {marked_up(diagnostic.help)}</div>' if diagnostic.help else ""
    return (
        f'<div class="diag {word}" style="--level:{LEVEL_COLOURS[word]}" title="{tip}">'
        f"<b>{word}</b> {escape(diagnostic.code)} [{escape(diagnostic.grade.value)}] "
        f"{escape(_position(diagnostic))}"
        f'<div class="msg">{marked_up(diagnostic.message)}</div>{help}'
        f"{f'<ul>{rows}</ul>' if rows else ''}</div>"
    )


def _position(diagnostic: Diagnostic) -> str:
    cell, span = diagnostic.cell, diagnostic.span
    if cell is None:
        return f"line {span.line}:{span.column + 1}"
    return f"cell {cell.number}, line {cell.line(span.line)}:{span.column + 1}"


def related_lines(picture: Picture) -> dict[int, list[Diagnostic]]:
    """Lines of this file that a diagnostic's related locations point at, with the diagnostics."""
    found: dict[int, list[Diagnostic]] = {}
    for diagnostic in all_diagnostics(picture):
        for item in diagnostic.related:
            if item.path is None:
                found.setdefault(item.span.line, []).append(diagnostic)
    return found


def all_diagnostics(picture: Picture) -> list[Diagnostic]:
    return [d for root in picture.kernels for node in walk(root) for d in node.diagnostics] + list(
        picture.outside
    )


def _lines_of(node: Node) -> list[int]:
    if node.lines is not None:
        return list(range(node.lines[0], node.lines[1] + 1))
    return [line for line in (node.line, node.source_line) if line is not None]


def _node(picture: Picture, node: Node) -> str:
    colour = KIND_COLOURS.get(node.loop_kind or "", NEUTRAL)
    classes = ["node", node.kind]
    if node.marked:
        classes.append("marked")
    if not node.certain:
        classes.append("uncertain")
    kind = node.loop_kind or node.kind
    badges = ""
    if node.pipeline:
        badges += f'<span class="badge pipeline">pipeline: {escape(node.pipeline)}</span>'
    if node.verdict:
        badges += f'<span class="badge verdict">{escape(picture.words(node.verdict))}</span>'
    if node.copies > 1:
        badges += f'<span class="badge copies">x{node.copies}</span>'
    where = picture.at(node.line) + (
        f", written at {picture.at(node.source_line)}" if node.source_line else ""
    )
    label = (
        f'<span class="label"><span class="kind">{escape(kind)}</span>{"?" if not node.certain else ""}'
        f'{escape(node.title)}<span class="where">{escape(where)}</span>{badges}</span>'
    )
    details = "".join(
        f'<div class="details">{marked_up(picture.words(detail))}</div>' for detail in node.details
    )
    diagnostics = "".join(_diagnostic(picture, d, node) for d in node.diagnostics)
    children = "".join(_node(picture, child) for child in node.children)
    lines = " ".join(str(n) for n in _lines_of(node))
    return (
        f'<li class="{" ".join(classes)}" style="--kind:{colour}" data-lines="{lines}">{label}{details}'
        f"{diagnostics}{f'<ul>{children}</ul>' if children else ''}</li>"
    )


def _source(picture: Picture) -> str:
    flagged: dict[int, list[Diagnostic]] = {}
    for root in picture.kernels:
        for node in walk(root):
            for diagnostic in node.diagnostics:
                flagged.setdefault(diagnostic.span.line, []).append(diagnostic)
    for diagnostic in picture.outside:
        flagged.setdefault(diagnostic.span.line, []).append(diagnostic)
    in_kernel = {n for root in picture.kernels if root.lines for n in range(root.lines[0], root.lines[1] + 1)}
    related = related_lines(picture)
    rows = []
    for number, text in enumerate(picture.lines, 1):
        classes = ["src"]
        found = flagged.get(number, [])
        style = ""
        if number in in_kernel:
            classes.append("kernel-line")
        if found:
            classes.append("flagged")
            style = f' style="--level:{LEVEL_COLOURS[level(found[0])]}"'
        if number in related:
            classes.append("related")
        if number == picture.line:
            classes.append("target")
        cell = picture.notebook.cell_at(number) if picture.notebook is not None else None
        if cell is not None and cell.first_line == number:  # a notebook cell starts: a rule, its number
            classes.append("cell-start")
            style += f' data-cell="cell {cell.number}"'
        seen = {d.code for d in found}
        see = [f"see {d.code}" for d in related.get(number, []) if d.code not in seen]
        codes = " ".join(dict.fromkeys([d.code for d in found] + see))
        tip = escape("\n".join(headline(d) for d in found))
        rows.append(
            f'<div class="{" ".join(classes)}" id="L{number}"{style}{f" title={chr(34)}{tip}{chr(34)}" if found else ""}>'
            f'<span class="no">{picture.number(number)}</span><span class="text">{escape(text)}</span>'
            f"{f'<span class=codes>{escape(codes)}</span>' if codes else ''}</div>"
        )
    return "<pre>" + "".join(rows) + "</pre>"


def _legend() -> str:
    kinds = "".join(
        f'<span><i class="swatch" style="background:{colour}"></i>{escape(kind)}</span>'
        for kind, colour in KIND_COLOURS.items()
        if kind != "range"
    )
    levels = "".join(
        f'<span><i class="swatch" style="background:{colour}"></i>{word}</span>'
        for word, colour in LEVEL_COLOURS.items()
    )
    marks = '<span><i class="swatch" style="background:#fed7aa"></i>related line</span>'
    return f'<div class="legend">{kinds}{levels}{marks}<span>{marked_up(LEGEND.removeprefix("legend: "))}</span></div>'


def render(picture: Picture, out: TextIO) -> None:
    name = picture.target()
    kernels = "".join(
        f'<h2>{escape(root.title)} <span class="where">{escape(picture.at(root.line))}</span></h2>'
        + "".join(f'<div class="details">{marked_up(picture.words(detail))}</div>' for detail in root.details)
        + "".join(_diagnostic(picture, d, root) for d in root.diagnostics)
        + f'<ul class="tree">{"".join(_node(picture, child) for child in root.children)}</ul>'
        for root in picture.kernels
    )
    if not picture.kernels:
        kernels = f"<p>{escape(picture.problem or 'no TileLang kernels')}</p>"
    outside = "".join(_diagnostic(picture, d, None) for d in picture.outside) if picture.outside else ""
    if outside:
        kernels += "<h2>outside any kernel</h2>" + outside
    out.write(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>tilecheck explain {escape(name)}</title><style>{STYLE}</style></head><body>"
        f"<header><h1>tilecheck explain</h1><p>{escape(name)} &middot; backend: "
        f"{escape(picture.backend or 'none selected')}</p></header>{_legend()}"
        f'<main><section class="loops">{kernels}</section><section class="source">{_source(picture)}</section></main>'
        f"<script>{SCRIPT}</script></body></html>\n"
    )
