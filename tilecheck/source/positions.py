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
from collections.abc import Callable, Mapping

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

try:  # the fast path: libcst's own position-tracking codegen (see the module documentation)
    from libcst.metadata.position_provider import PositionProvidingCodegenState
except ImportError:  # pragma: no cover - a libcst outside the pinned range
    PositionProvidingCodegenState = None  # type: ignore[assignment,misc]  # a class, or None without it

from tilecheck.core.types import Span
from tilecheck.source import python_ast
from tilecheck.source.lines import utf8_column


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
        self._aligned: dict[int, ast.stmt] | None = None  # None: no tree, or it does not line up
        self._aligned_known = False
        self._blocks: dict[int, dict[int, ast.stmt] | None] = {}  # per module-level statement
        self._with_items: dict[int, tuple[cst.With, int]] = {}  # a `with` item's expression: its statement

    def _statement_lines(self) -> dict[int, int]:
        """The first line (leading comments included) of every module-level statement."""
        if self._first_lines is None:
            self._first_lines = self._lines_from_ast() or self._lines_from_codegen()
        return self._first_lines

    def _lines_from_ast(self) -> dict[int, int] | None:
        # CPython's parser is an order of magnitude faster than regenerating the module.
        statements = self._python_statements()
        if statements is None:
            return None
        return {
            id(statement): python_ast.first_line(statements[id(statement)]) - len(statement.leading_lines)
            for statement in self.module.body
        }

    def python_statement(self, top: cst.CSTNode) -> ast.stmt | None:
        """CPython's statement for module-level statement `top` (the first, for a line of
        several); None when CPython's tree is not at hand or does not line up with libcst's."""
        statements = self._python_statements()
        return statements.get(id(top)) if statements is not None else None

    def _python_statements(self) -> dict[int, ast.stmt] | None:
        if not self._aligned_known:
            self._aligned_known = True
            self._aligned = self._align()
        return self._aligned

    def _align(self) -> dict[int, ast.stmt] | None:
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
        aligned: dict[int, ast.stmt] = {}
        nodes = tree.body
        index = 0
        for statement in self.module.body:
            if index >= len(nodes):
                return None
            aligned[id(statement)] = nodes[index]
            index += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        return aligned if index == len(nodes) else None

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

    # -- loop headers and `with` items from CPython's tree (hovers: no code generation) -------
    def for_header(self, node: cst.For, top: cst.CSTNode) -> Span | None:
        """What `span` gives from `node`'s start to the end of its iterable (`for i in
        T.Parallel(8)`), read from CPython's tree: the k-th `for` statement of `top` is the k-th
        of CPython's statement. None when the trees do not line up or the text is not at hand."""
        found = self._aligned_blocks(top)
        if found is None:
            return None
        blocks, lines = found
        statement = blocks.get(id(node))
        if not isinstance(statement, (ast.For, ast.AsyncFor)):
            return None
        return _header_span(lines, statement)

    def with_item(self, node: cst.BaseExpression, top: cst.CSTNode) -> Span | None:
        """What `span` gives for `node`, the expression of an item of a `with` statement of
        `top` (`T.Kernel(...)`), read from CPython's tree as `for_header` is; None when `node`
        is no such expression or the trees do not line up."""
        found = self._aligned_blocks(top)
        if found is None:
            return None
        blocks, lines = found
        statement, index = self._with_items.get(id(node), (None, -1))
        if statement is None or statement.items[index].item is not node:
            return None
        theirs = blocks.get(id(statement))
        if not isinstance(theirs, (ast.With, ast.AsyncWith)) or len(theirs.items) != len(statement.items):
            return None
        return _expression_span(lines, theirs.items[index].context_expr)

    def _aligned_blocks(self, top: cst.CSTNode) -> tuple[dict[int, ast.stmt], list[str]] | None:
        """The `for` and `with` statements of `top`, libcst's (by identity) to CPython's,
        computed once per module-level statement; None without the text or when they do not
        line up."""
        if self.source is None or self._python_tree is None:
            return None  # positions must come from the caller's text and tree, not a new parse
        if id(top) not in self._blocks:
            statement = self.python_statement(top)
            blocks: dict[int, ast.stmt] | None = None
            if statement is not None:
                ours = [n for n in _cst_statements(top) if isinstance(n, (cst.For, cst.With))]
                theirs: list[ast.stmt] = [
                    n for n in python_ast.nested_statements(statement) if isinstance(n, _PYTHON_BLOCKS)
                ]
                if len(ours) == len(theirs) and all(
                    isinstance(b, _PYTHON_OF[type(a)]) for a, b in zip(ours, theirs, strict=True)
                ):
                    blocks = {id(a): b for a, b in zip(ours, theirs, strict=True)}
                    for block in ours:
                        if isinstance(block, cst.With):
                            for index, item in enumerate(block.items):
                                self._with_items[id(item.item)] = (block, index)
            self._blocks[id(top)] = blocks
        known = self._blocks[id(top)]
        if known is None:
            return None
        if self._lines is None:
            self._lines = python_ast.LINE_BREAK.split(self.source)
        return known, self._lines


def block_heads(tree: ast.Module, source: str) -> tuple[list[Span], list[tuple[ast.expr, Span]]]:
    """Every `for` header of CPython's tree (from the statement's start to the end of its
    iterable, as `Locator.for_header` gives it) and every `with` item's expression with its span,
    read without libcst or code generation."""
    lines = python_ast.LINE_BREAK.split(source)
    headers: list[Span] = []
    items: list[tuple[ast.expr, Span]] = []
    for statement in python_ast.nested_statements(tree):
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            headers.append(_header_span(lines, statement))
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            items += [
                (item.context_expr, _expression_span(lines, item.context_expr)) for item in statement.items
            ]
    return headers, items


_PYTHON_BLOCKS = (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)
_PYTHON_OF: dict[type[cst.CSTNode], tuple[type[ast.stmt], ...]] = {
    cst.For: (ast.For, ast.AsyncFor),
    cst.With: (ast.With, ast.AsyncWith),
}

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


def _header_span(lines: list[str], statement: ast.For | ast.AsyncFor) -> Span:
    """From a `for` statement's start to the end of its iterable, columns in characters."""
    iterable = _expression_span(lines, statement.iter)
    start = _characters(lines, statement.lineno, statement.col_offset)
    return Span(statement.lineno, start, iterable.end_line, iterable.end_column)


def _expression_span(lines: list[str], node: ast.expr) -> Span:
    """Where CPython's expression is, columns in characters."""
    end_line = node.end_lineno or node.lineno
    start = _characters(lines, node.lineno, node.col_offset)
    return Span(node.lineno, start, end_line, _characters(lines, end_line, node.end_col_offset or 0))


def _characters(lines: list[str], line: int, offset: int) -> int:
    """CPython's column (UTF-8 bytes) as characters."""
    return utf8_column(lines[line - 1] if line <= len(lines) else "", offset)


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
            provider=recorder,  # type: ignore[arg-type]  # duck-types the provider: only `_computed` is written
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
