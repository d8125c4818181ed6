"""`tilecheck explain` as text: each kernel's loop tree, its diagnostics and what they point at.

Under a diagnostic, the lines it is about are drawn with their source: the statement that
broke a chain (TL101), the tile operator (TL103), the access and the allocation (TL104,
TL105), the loop a pipeline sits in, the macro line an inlined finding comes from. Line
numbers are always lines of the file, also for code written in a macro.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from tilecheck.core.types import Diagnostic
from tilecheck.report import display_path, level

if TYPE_CHECKING:
    from tilecheck.explain.node import Node

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

    @property
    def lines(self) -> list[str]:
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
    where = f"{diagnostic.span.line}:{diagnostic.span.column + 1}"
    return f"{level(diagnostic)}: {diagnostic.code} [{diagnostic.grade.value}] {where} {diagnostic.message}"


def pointers(picture: Picture, diagnostic: Diagnostic, node: Node | None) -> list[str]:
    """`line 21: row_max[i] = S[i, 0]  (this breaks the chain)` for what the diagnostic is about."""
    rows = []
    if node is None or diagnostic.span.line != node.line:
        rows.append(
            f"line {diagnostic.span.line}: {picture.source_of(diagnostic.span.line)}  (reported here)"
        )
    for item in diagnostic.related:
        where = f"{display_path(item.path)}:{item.span.line}" if item.path else f"line {item.span.line}"
        text = picture.source_of(item.span.line) if item.path is None else ""
        rows.append(f"{where}: {text}  ({item.message})")
    return rows


def render(picture: Picture, out: TextIO) -> None:
    target = f"{display_path(picture.path)}{f':{picture.line}' if picture.line else ''}"
    out.write(f"{target}  (backend: {picture.backend or 'none selected'})\n")
    if picture.problem:
        out.write(f"{picture.problem}\n")
    if not picture.kernels and not picture.outside and not picture.problem:
        out.write("no TileLang kernels\n")
    for root in picture.kernels:
        out.write("\n")
        out.write(f"{root.title}  (line {root.line})\n")
        for detail in root.details:
            out.write(f"  {detail}\n")
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
        out.write(f"{prefix}{branch}{maybe}{child.title}  [line {child.line}]{copies}{marker}\n")
        for detail in child.details:
            out.write(f"{prefix}{more}  {detail}\n")
        if child.verdict:
            out.write(f"{prefix}{more}  backend {child.verdict}\n")
        for diagnostic in child.diagnostics:
            _diagnostic(picture, diagnostic, child, f"{prefix}{more}  ", out)
        _children(picture, child, prefix + more, out)
