"""`tilecheck explain` as text: each kernel's loop tree, its diagnostics and what they point at.

Under a diagnostic, the lines it is about are drawn with their source: the statement that
broke a chain (TL101), the tile operator (TL103), the access and the allocation (TL104,
TL105), the loop a pipeline sits in, the macro line an inlined finding comes from. Line
numbers are always lines of the file, also for code written in a macro; in a notebook, lines of
a cell (`line 4 of cell 3`, `cell 3:6:22`), as every report names them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from tilecheck.core.types import Diagnostic
from tilecheck.report import display_path, level

if TYPE_CHECKING:
    from tilecheck.explain.node import Node
    from tilecheck.source.notebook import Notebook

LEGEND = (
    "legend: `?for`, `?if`: exists only for some Python-level values tilecheck cannot evaluate; "
    "(xN): N copies made by Python-level unrolling; <<<: on the requested line"
)


@dataclass
class Picture:
    """What every explain renderer draws: one file's kernels, with the run's diagnostics."""

    path: str
    source: str
    line: int | None
    backend: str | None
    kernels: list[Node]
    outside: list[Diagnostic] = field(default_factory=list)  # diagnostics in no kernel
    problem: str | None = None
    notebook: Notebook | None = None  # `source` is its code cells' Python text

    def at(self, number: int) -> str:
        """`line 12`; in a notebook `line 4 of cell 3`."""
        return self.words(f"line {number}")

    def words(self, text: str) -> str:
        """`text` with the lines it names (`line 9`, `k.ipynb:9`) named in their cells, in a notebook."""
        notebook = self.notebook
        if notebook is None:
            return text

        def in_cell(match: re.Match[str]) -> str:
            cell = notebook.cell_at(int(match[1]))
            return (
                match[0]
                if cell is None
                else f"{match[0][: -len(match[1])]}cell {cell.number}:{cell.line(int(match[1]))}"
            )

        return re.sub(re.escape(display_path(self.path)) + r":(\d+)\b", in_cell, notebook.in_cells(text))

    def number(self, number: int) -> str:
        """A source line's number in the gutter: counted in its cell, in a notebook."""
        cell = self.notebook.cell_at(number) if self.notebook is not None else None
        return str(number if cell is None else cell.line(number))

    def target(self) -> str:
        """`k.py:12`, `k.ipynb:cell 3:4`, or the bare path without a line."""
        if self.line is None:
            return display_path(self.path)
        cell = self.notebook.cell_at(self.line) if self.notebook is not None else None
        where = f"{self.line}" if cell is None else f"cell {cell.number}:{cell.line(self.line)}"
        return f"{display_path(self.path)}:{where}"

    @property
    def lines(self) -> list[str]:
        if self.notebook is not None:  # the cells as written: IPython lines shown, not their mask
            return [line for cell in self.notebook.cells for line in cell.lines]
        return self.source.splitlines()

    def source_of(self, number: int, limit: int = 60) -> str:
        lines = self.lines
        text = " ".join(lines[number - 1].split()) if 1 <= number <= len(lines) else ""
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def uncertain(self) -> bool:
        return any(not node.certain for root in self.kernels for node in walk(root))


def walk(node: Node) -> Iterator[Node]:
    yield node
    for child in node.children:
        yield from walk(child)


def headline(diagnostic: Diagnostic) -> str:
    cell, span = diagnostic.cell, diagnostic.span
    where = (
        f"{span.line}:{span.column + 1}"
        if cell is None
        else f"cell {cell.number}:{cell.line(span.line)}:{span.column + 1}"
    )
    return f"{level(diagnostic)}: {diagnostic.code} [{diagnostic.grade.value}] {where} {diagnostic.message}"


def pointers(picture: Picture, diagnostic: Diagnostic, node: Node | None) -> list[str]:
    """`line 21: row_max[i] = S[i, 0]  (this breaks the chain)` for what the diagnostic is about."""
    rows = []
    if node is None or diagnostic.span.line != node.line:
        rows.append(
            f"{picture.at(diagnostic.span.line)}: {picture.source_of(diagnostic.span.line)}  (reported here)"
        )
    for item in diagnostic.related:
        where = f"{display_path(item.path)}:{item.span.line}" if item.path else picture.at(item.span.line)
        text = picture.source_of(item.span.line) if item.path is None else ""
        rows.append(f"{where}: {text}  ({item.message})")
    return rows


def render(picture: Picture, out: TextIO) -> None:
    out.write(f"{picture.target()}  (backend: {picture.backend or 'none selected'})\n")
    if picture.problem:
        out.write(f"{picture.problem}\n")
    if not picture.kernels and not picture.outside and not picture.problem:
        out.write("no TileLang kernels\n")
    for root in picture.kernels:
        out.write("\n")
        out.write(f"{root.title}  ({picture.at(root.line)})\n")
        for detail in root.details:
            out.write(f"  {picture.words(detail)}\n")
        for diagnostic in root.diagnostics:
            _diagnostic(picture, diagnostic, root, "  ", out)
        _children(picture, root, "", out)
    if picture.outside:
        out.write("\noutside any kernel:\n")
        for diagnostic in picture.outside:
            out.write(f"  {headline(diagnostic)}\n")
    if picture.kernels:
        out.write(f"\n{LEGEND}\n")


def _diagnostic(picture: Picture, diagnostic: Diagnostic, node: Node, prefix: str, out: TextIO) -> None:
    out.write(f"{prefix}{headline(diagnostic)}\n")
    rows = pointers(picture, diagnostic, node)
    for index, row in enumerate(rows):
        out.write(f"{prefix}  {'└─' if index == len(rows) - 1 else '├─'} {row}\n")


def _children(picture: Picture, node: Node, prefix: str, out: TextIO) -> None:
    for index, child in enumerate(node.children):
        last = index == len(node.children) - 1
        branch = "└── " if last else "├── "
        more = "    " if last else "│   "
        copies = f"  (x{child.copies}, Python-level unrolling)" if child.copies > 1 else ""
        marker = "  <<<" if child.marked else ""
        maybe = "?" if not child.certain else ""
        out.write(f"{prefix}{branch}{maybe}{child.title}  [{picture.at(child.line)}]{copies}{marker}\n")
        for detail in child.details:
            out.write(f"{prefix}{more}  {picture.words(detail)}\n")
        if child.verdict:
            out.write(f"{prefix}{more}  backend {picture.words(child.verdict)}\n")
        for diagnostic in child.diagnostics:
            _diagnostic(picture, diagnostic, child, f"{prefix}{more}  ", out)
        _children(picture, child, prefix + more, out)
