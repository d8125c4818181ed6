"""Write only the lowered loops and splice them into the original text.

Regenerating the whole module costs more than parsing it, and everything but the lowered loops
is the original text anyway (libcst round-trips a file byte for byte). So the text of each
lowered loop is found in the source and replaced by the generated text of what replaces it,
generated at the loop's indentation. A module-level statement's text does not depend on its
neighbours, so the result is what regenerating the whole rebuilt module would give.

Where a loop's text lies comes from CPython's parser (line numbers; an order of magnitude
faster than libcst's position metadata): a loop owns its leading comment and blank lines, its
header and body, and the trailing comment lines libcst puts in its innermost last blocks'
footers. Each found span is checked against the loop's own generated text before it is used;
on any doubt `splice` returns None and the caller regenerates the whole module.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Sequence
from typing import cast

import libcst as cst

from tilecheck.pypto.codegen import Codegen
from tilecheck.pypto.stage import LoweredStatement
from tilecheck.source import python_ast
from tilecheck.source.lines import line_starts

_KINDS: dict[type, tuple[type, ...]] = {
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: (ast.While,),
    cst.If: (ast.If,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.Try: (ast.Try,),
    cst.TryStar: (getattr(ast, "TryStar", ast.Try),),
}

Region = tuple[cst.For, Sequence[LoweredStatement]]  # a lowered loop, and what replaces it


def splice(
    source: str, module: cst.Module, regions: Sequence[Region], codegen: Codegen
) -> list[tuple[int, int, str]] | None:
    """(start, end, new text) for each region, in source order; None when unsure."""
    found = locate(source, module, {id(node) for node, _ in regions})
    if found is None:
        return None
    starts = line_starts(source)
    spans: list[tuple[int, int, str]] = []
    for node, replacement in regions:
        _, tree, indent = found[id(node)]  # found by identity: the statement found is `node`
        span = _span(source, starts, node, tree, indent, codegen)
        if span is None:
            return None
        spans.append((*span, codegen.statements(replacement, indent)))
    spans.sort()
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        if start < end:
            return None
    return spans


def _span(
    source: str, starts: list[int], statement: cst.For, tree: ast.stmt, indent: str, codegen: Codegen
) -> tuple[int, int] | None:
    """Where the text of a loop statement is, checked against the text libcst writes for it.

    The loop is replaced as a whole, so what must hold is that the span starts and ends where
    the loop does: its leading comment lines and `for` keyword open the span, and the text of
    its last simple statement and the footer lines after it close the span.
    """
    trailer = _trailer(statement, indent, codegen.state.default_indent)
    if trailer is None or tree.end_lineno is None:
        return None
    footers, last, last_indent = trailer
    first = tree.lineno - len(statement.leading_lines)
    body_end = tree.end_lineno
    end_line = body_end + sum(len(lines) for lines, _ in footers)
    if first < 1 or end_line > len(starts):
        return None
    start = starts[first - 1]
    header = starts[tree.lineno - 1]
    end = starts[end_line] if end_line < len(starts) else len(source)
    body = starts[body_end] if body_end < len(starts) else len(source)
    if last is None:  # a one-line loop: check all of its text
        return (start, end) if codegen.statements([statement], indent) == source[start:end] else None
    writer = codegen.writer(indent)
    keyword = "async" if statement.asynchronous is not None else "for"
    if source[start:header] != writer.lines(statement.leading_lines):
        return None
    if not source.startswith(indent + keyword, header) or header + len(indent) > body:
        return None
    last_text = codegen.statements([last], last_indent)
    if body - len(last_text) < header or source[body - len(last_text) : body] != last_text:
        return None
    footer_text = "".join(codegen.writer(inner).lines(lines) for lines, inner in footers)
    if source[body:end] != footer_text:
        return None
    return start, end


def locate(
    source: str, module: cst.Module, wanted: set[int], partial: bool = False
) -> dict[int, tuple[cst.BaseCompoundStatement, ast.stmt, str]] | None:
    """The CPython node and the indentation of each wanted compound statement (by id), found by
    a walk of both trees; None when unsure, or when one is missing and not `partial`."""
    try:
        tree = python_ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    walk = _Walk(wanted, module.default_indent)
    if not walk.block(module.body, tree.body, "") or (len(walk.found) != len(wanted) and not partial):
        return None
    return walk.found


class _Walk:
    """Pairs libcst statements with CPython's (a class, not a recursive closure: no cycle)."""

    def __init__(self, wanted: set[int], default_indent: str) -> None:
        self.wanted = wanted
        self.default_indent = default_indent
        self.found: dict[int, tuple[cst.BaseCompoundStatement, ast.stmt, str]] = {}

    def block(self, statements: Sequence[cst.BaseStatement], nodes: list[ast.stmt], indent: str) -> bool:
        index = 0
        for statement in statements:
            if type(statement) is cst.SimpleStatementLine:
                index += len(statement.body)
                continue
            if index >= len(nodes):
                return False
            node = nodes[index]
            index += 1
            kinds = _KINDS.get(type(statement))
            if kinds is None:
                continue  # e.g. `match`: nothing is lowered inside it
            assert isinstance(statement, cst.BaseCompoundStatement)  # as every type in `_KINDS` is
            if not isinstance(node, kinds):
                return False
            if id(statement) in self.wanted:
                self.found[id(statement)] = (statement, node, indent)
            for block, inner, more in _blocks(statement, node, self.default_indent):
                if block is not None and not self.block(block, inner, indent + more):
                    return False
        return index == len(nodes)


def _suite(
    suite: cst.BaseSuite, nodes: list[ast.stmt], default_indent: str
) -> tuple[Sequence[cst.BaseStatement] | None, list[ast.stmt], str]:
    if isinstance(suite, cst.IndentedBlock):
        return suite.body, nodes, default_indent if suite.indent is None else suite.indent
    return None, nodes, ""  # a one-line suite holds no compound statement


def _blocks(
    statement: cst.BaseCompoundStatement, node: ast.stmt, default_indent: str
) -> list[tuple[Sequence[cst.BaseStatement] | None, list[ast.stmt], str]]:
    """Pairs of nested statement lists (libcst, CPython) with the indentation they add; `node`
    is CPython's statement of the kind `_KINDS` pairs with `statement`'s."""
    if isinstance(statement, cst.If):
        assert isinstance(node, ast.If)
        blocks = [_suite(statement.body, node.body, default_indent)]
        if isinstance(statement.orelse, cst.If):
            blocks.append(([statement.orelse], node.orelse, ""))
        elif statement.orelse is not None:
            blocks.append(_suite(statement.orelse.body, node.orelse, default_indent))
    elif isinstance(statement, (cst.For, cst.While)):
        assert isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        blocks = [_suite(statement.body, node.body, default_indent)]
        if statement.orelse is not None:
            blocks.append(_suite(statement.orelse.body, node.orelse, default_indent))
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        tried = cast(ast.Try, node)  # or `ast.TryStar` (`except*`, Python 3.11+): the same fields
        blocks = [_suite(statement.body, tried.body, default_indent)]
        handlers: Sequence[cst.ExceptHandler | cst.ExceptStarHandler] = statement.handlers
        for handler, inner in zip(handlers, tried.handlers, strict=True):
            blocks.append(_suite(handler.body, inner.body, default_indent))
        if statement.orelse is not None:
            blocks.append(_suite(statement.orelse.body, tried.orelse, default_indent))
        if statement.finalbody is not None:
            blocks.append(_suite(statement.finalbody.body, tried.finalbody, default_indent))
    else:
        assert isinstance(
            node, (ast.With, ast.AsyncWith, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        )
        blocks = [_suite(statement.body, node.body, default_indent)]
    return blocks


def _trailer(
    statement: cst.BaseStatement, indent: str, default_indent: str
) -> tuple[list[tuple[Sequence[cst.EmptyLine], str]], cst.SimpleStatementLine | None, str] | None:
    """What ends a compound statement's text, after the last line CPython gives it: the footer
    lines of its innermost last blocks (innermost first, each with its indentation; libcst
    keeps trailing comment lines there when they are indented like the block's body), and its
    last simple statement with its indentation (None for a one-line suite). None for an
    unexpected shape."""
    footers: list[tuple[Sequence[cst.EmptyLine], str]] = []
    node: cst.CSTNode = statement
    while True:
        if isinstance(node, cst.If) and isinstance(node.orelse, cst.If):
            node = node.orelse
            continue
        if isinstance(node, (cst.For, cst.While, cst.If)):
            suite = node.orelse.body if node.orelse is not None else node.body
        elif isinstance(node, (cst.With, cst.FunctionDef, cst.ClassDef)):
            suite = node.body
        elif isinstance(node, (cst.Try, cst.TryStar)):
            last = node.finalbody or node.orelse or (node.handlers[-1] if node.handlers else None)
            suite = last.body if last is not None else node.body
        else:
            return None
        if not isinstance(suite, cst.IndentedBlock):
            return footers[::-1], None, indent
        if not suite.body:
            return None
        indent += default_indent if suite.indent is None else suite.indent
        footers.append((suite.footer, indent))
        node = suite.body[-1]
        if isinstance(node, cst.SimpleStatementLine):
            return footers[::-1], node, indent
