"""Source locations, computed lazily and only for the module-level statements that need them.

libcst's PositionProvider regenerates the whole module with position tracking, which costs
more than parsing. Most files have no diagnostics, so tilecheck pays nothing for positions
until a rule reports; then it computes positions for only the module-level statement that
holds the reported node, as if it were a module of its own, and shifts them to that
statement's first line.

Two ways compute the same positions. The public one (`MetadataWrapper` + `PositionProvider`
on a one-statement module) also walks the tree once for batched providers, which makes it
about 1.4 times slower; so tilecheck drives libcst's position-tracking code generator
directly (`PositionProvidingCodegenState`, `CSTNode._codegen`: not public API). That path is
tested for the libcst range pinned in pyproject.toml (tests/test_libcst_pin.py checks both
the pin and that both ways agree); should it break, the public way takes over.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

try:  # the fast path: libcst's own position-tracking codegen (see the module documentation)
    from libcst.metadata.position_provider import PositionProvidingCodegenState
except ImportError:  # pragma: no cover - a libcst outside the pinned range
    PositionProvidingCodegenState = None  # type: ignore[assignment,misc]

from tilecheck import python_ast
from tilecheck.types import Span


class Locator:
    def __init__(
        self,
        module: cst.Module,
        source: str | None = None,
        python_tree: Callable[[], ast.Module | None] | None = None,
    ) -> None:
        """`python_tree` returns CPython's tree of `source` (None if it does not parse) when the
        caller keeps one; else `source` is parsed here when needed."""
        self.module = module
        self.source = source
        self._python_tree = python_tree
        self._first_lines: dict[int, int] | None = None
        self._ranges: dict[int, Mapping[cst.CSTNode, CodeRange]] = {}
        self._lines: list[str] | None = None

    def _statement_lines(self) -> dict[int, int]:
        """The first line (leading comments included) of every module-level statement."""
        if self._first_lines is None:
            self._first_lines = self._lines_from_ast() or self._lines_from_codegen()
        return self._first_lines

    def _lines_from_ast(self) -> dict[int, int] | None:
        # CPython's parser is an order of magnitude faster than regenerating the module.
        if self._python_tree is not None:
            tree = self._python_tree()
        elif self.source is None:
            return None
        else:
            try:
                tree = python_ast.parse(self.source)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
        if tree is None:
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

    def _positions(self, top: cst.CSTNode) -> Mapping[cst.CSTNode, CodeRange]:
        """Positions in `top` as if it were a module of its own (line 1 is its first line)."""
        ranges = self._ranges.get(id(top))
        if ranges is None:
            ranges = self._ranges[id(top)] = codegen_positions(self.module, top) or public_positions(
                self.module, top
            )
        return ranges

    def span(self, node: cst.CSTNode, top: cst.CSTNode) -> Span:
        first = self._statement_lines().get(id(top), 1)
        found = self._positions(top).get(node)
        if found is None:
            return Span.point(first, 0)
        shift = first - 1
        return Span(found.start.line + shift, found.start.column, found.end.line + shift, found.end.column)

    # -- `for` headers from CPython's tree (hovers: one per loop, no code generation) ---------
    def for_header(self, node: cst.For, top: cst.CSTNode) -> Span | None:
        """What `span` gives from `node`'s start to the end of its iterable (`for i in
        T.Parallel(8)`), read from CPython's tree: the k-th `for` statement of `top` is the k-th
        of CPython's statement. None when the trees do not line up or the text is not at hand."""
        found = self._aligned_fors(top)
        if found is None:
            return None
        fors, lines = found
        statement = fors.get(id(node))
        if statement is None:
            return None
        end_line = statement.iter.end_lineno or statement.iter.lineno
        end = _characters(lines, end_line, statement.iter.end_col_offset or 0)
        start = _characters(lines, statement.lineno, statement.col_offset)
        return Span(statement.lineno, start, end_line, end)

    def _aligned_fors(self, top: cst.CSTNode) -> tuple[dict[int, ast.For | ast.AsyncFor], list[str]] | None:
        if self.source is None:
            return None
        tree = self._python_tree() if self._python_tree is not None else None
        if tree is None:
            return None
        index = 0
        statement: ast.stmt | None = None
        for candidate in self.module.body:
            if candidate is top:
                statement = tree.body[index] if index < len(tree.body) else None
                break
            index += len(candidate.body) if isinstance(candidate, cst.SimpleStatementLine) else 1
        if statement is None:
            return None
        ours = [n for n in _cst_statements(top) if isinstance(n, cst.For)]
        theirs = [n for n in _ast_statements(statement) if isinstance(n, (ast.For, ast.AsyncFor))]
        if len(ours) != len(theirs):
            return None
        if self._lines is None:
            self._lines = _NEWLINE.split(self.source)
        return {id(a): b for a, b in zip(ours, theirs, strict=True)}, self._lines


_NEWLINE = re.compile(r"\r\n|\r|\n")
_BLOCKS = (
    cst.BaseCompoundStatement,
    cst.BaseSuite,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


def _cst_statements(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node` and the compound statements in it, in source order (no expression is visited)."""
    found = [node]
    for child in node.children:
        if isinstance(child, _BLOCKS):
            found += _cst_statements(child)
    return found


def _ast_statements(node: ast.AST) -> list[ast.AST]:
    """The same for CPython's tree: the fields that hold statements, in source order."""
    found = [node]
    for field in ("body", "handlers", "orelse", "finalbody", "cases"):
        for child in getattr(node, field, None) or ():
            if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                found += _ast_statements(child)
    return found


def _characters(lines: list[str], line: int, offset: int) -> int:
    """CPython's column (UTF-8 bytes) as characters."""
    text = lines[line - 1] if line <= len(lines) else ""
    return len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))


class _Recorder:
    """What the position-tracking codegen state writes into (a provider's `_computed`)."""

    def __init__(self) -> None:
        self._computed: dict[cst.CSTNode, CodeRange] = {}


def codegen_positions(module: cst.Module, top: cst.CSTNode) -> Mapping[cst.CSTNode, CodeRange] | None:
    """The fast path; None when this libcst does not support it."""
    if PositionProvidingCodegenState is None:
        return None
    try:
        recorder = _Recorder()
        state = PositionProvidingCodegenState(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            provider=recorder,  # type: ignore[arg-type]
        )
        top._codegen(state)
    except (TypeError, AttributeError):  # pragma: no cover - a libcst outside the pinned range
        return None
    return recorder._computed


def public_positions(module: cst.Module, top: cst.CSTNode) -> Mapping[cst.CSTNode, CodeRange]:
    """The same positions through libcst's public metadata API."""
    alone = module.with_changes(body=[top], header=[], footer=[])
    # No copy: the positions must be keyed by the nodes the rules hold.
    return MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
