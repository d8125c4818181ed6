"""Source locations, computed lazily and only for the module-level statements that need them.

libcst's PositionProvider regenerates the whole module with position tracking, which costs
more than parsing. Most files have no diagnostics, so tilecheck pays nothing for positions
until a rule reports; then it tracks positions while regenerating only the one module-level
statement that holds the reported node, starting at that statement's first line.
"""

from __future__ import annotations

import ast

import libcst as cst
from libcst._position import CodeRange
from libcst.metadata.position_provider import PositionProvidingCodegenState

from tilecheck.types import Span


class _Recorder:
    """The minimal provider interface the position-tracking codegen state writes into."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


class Locator:
    def __init__(self, module: cst.Module, source: str | None = None) -> None:
        self.module = module
        self.source = source
        self._first_lines: dict[int, int] | None = None
        self._ranges: dict[int, dict[cst.CSTNode, CodeRange]] = {}

    def _statement_lines(self) -> dict[int, int]:
        """The first line (leading comments included) of every module-level statement."""
        if self._first_lines is None:
            self._first_lines = self._lines_from_ast() or self._lines_from_codegen()
        return self._first_lines

    def _lines_from_ast(self) -> dict[int, int] | None:
        # CPython's parser is an order of magnitude faster than regenerating the module.
        if self.source is None:
            return None
        try:
            tree = ast.parse(self.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        first: dict[int, int] = {}
        nodes = tree.body
        index = 0
        for statement in self.module.body:
            if index >= len(nodes):
                return None
            node = nodes[index]
            line = node.lineno
            for decorator in getattr(node, "decorator_list", ()):
                line = min(line, decorator.lineno)
            first[id(statement)] = line - len(statement.leading_lines)
            index += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        return first if index == len(nodes) else None

    def _lines_from_codegen(self) -> dict[int, int]:
        module = self.module
        line = 1 + len(module.header)  # each header EmptyLine is one line
        first: dict[int, int] = {}
        for statement in module.body:
            first[id(statement)] = line
            line += module.code_for_node(statement).count("\n")
        return first

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
