"""Source locations, computed lazily and only for the module-level statements that need them.

libcst's PositionProvider regenerates the whole module with position tracking, which costs
more than parsing. Most files have no diagnostics, so tilecheck pays nothing for positions
until a rule reports; then it tracks positions while regenerating only the one module-level
statement that holds the reported node, starting at that statement's first line.
"""

from __future__ import annotations

import libcst as cst
from libcst._position import CodeRange
from libcst.metadata.position_provider import PositionProvidingCodegenState

from tilecheck.types import Span


class _Recorder:
    """The minimal provider interface the position-tracking codegen state writes into."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


class Locator:
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._first_lines: dict[int, int] | None = None
        self._ranges: dict[int, dict[cst.CSTNode, CodeRange]] = {}

    def _statement_lines(self) -> dict[int, int]:
        if self._first_lines is None:
            module = self.module
            line = 1 + len(module.header)  # each header EmptyLine is one line
            first: dict[int, int] = {}
            for statement in module.body:
                first[id(statement)] = line
                line += _newlines(module, statement)
            self._first_lines = first
        return self._first_lines

    def _positions(self, top: cst.CSTNode) -> dict[cst.CSTNode, CodeRange]:
        ranges = self._ranges.get(id(top))
        if ranges is None:
            recorder = _Recorder()
            state = PositionProvidingCodegenState(
                default_indent=self.module.default_indent,
                default_newline=self.module.default_newline,
                provider=recorder,  # type: ignore[arg-type]
            )
            state.line = self._statement_lines().get(id(top), 1)
            top._codegen(state)
            ranges = recorder._computed
            self._ranges[id(top)] = ranges
        return ranges

    def span(self, node: cst.CSTNode, top: cst.CSTNode) -> Span:
        found = self._positions(top).get(node)
        if found is None:
            return Span.point(self._statement_lines().get(id(top), 1), 0)
        return Span(found.start.line, found.start.column, found.end.line, found.end.column)


def _newlines(module: cst.Module, statement: cst.CSTNode) -> int:
    return module.code_for_node(statement).count("\n")
