"""`Locator.for_header` reads a loop header's span from CPython's tree; it must be exactly what
the position-tracking code generator gives (the slow way), in every shape of `for`."""

from __future__ import annotations

import libcst as cst
import pytest

from tilecheck.core.types import Span
from tilecheck.source import python_ast
from tilecheck.source.positions import Locator

SOURCES = {
    "plain": "for i in range(8):\n    pass\n",
    "nested": "def f():\n    for i in a:\n        for j in b(\n            1,\n        ):\n            pass\n",
    "parenthesized": "for i in ( T.Parallel(8) ):\n    pass\nfor k in ((x)  # why\n        ):\n    pass\n",
    "non-ascii": "def f():\n    s = 'é漢😀'; t = 1\n    for i, j in T.Parallel(4, 4):  # 😀\n        pass\n",
    "async": "async def f():\n    async for i in g():\n        pass\n",
    "blocks": (
        "def f(x):\n    try:\n        for a in b:\n            pass\n    except E:\n        for c in d:\n"
        "            pass\n    else:\n        for e in f:\n            pass\n    finally:\n"
        "        for g in h:\n            pass\n    match x:\n        case 1:\n            for i in j:\n"
        "                pass\n    while x:\n        pass\n    else:\n        for k in m:\n            pass\n"
        "    with x:\n        for n in o:\n            pass\n    if x:\n        pass\n    elif y:\n"
        "        for p in q:\n            pass\n"
    ),
    "crlf": "x = 1\r\nfor i in range(3):\r\n    for j in r:\r\n        pass\r\n",
}


class _Fors(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.For] = []

    def visit_For(self, node: cst.For) -> None:
        self.found.append(node)


def loops(module: cst.Module) -> list[tuple[cst.For, cst.CSTNode]]:
    found = []
    for top in module.body:
        collect = _Fors()
        top.visit(collect)
        found += [(node, top) for node in collect.found]
    return found


@pytest.mark.parametrize("name", SOURCES)
def test_for_headers_from_cpythons_tree_equal_the_generated_positions(name):
    source = SOURCES[name]
    module = cst.parse_module(source)
    tree = python_ast.parse(source)
    fast = Locator(module, source, lambda: tree)
    slow = Locator(module)  # no source: positions only from code generation
    found = loops(module)
    assert found
    for node, top in found:
        statement, iterable = slow.span(node, top), slow.span(node.iter, top)
        expected = Span(statement.line, statement.column, iterable.end_line, iterable.end_column)
        assert fast.for_header(node, top) == expected
        assert slow.for_header(node, top) is None  # no text: the caller falls back


def test_a_parenthesized_iterable_ends_inside_its_parentheses_as_libcst_counts_it():
    source = SOURCES["parenthesized"]
    module = cst.parse_module(source)
    tree = python_ast.parse(source)
    (first, top), (second, top2) = loops(module)
    locator = Locator(module, source, lambda: tree)
    assert locator.for_header(first, top) == Span(1, 0, 1, 24)
    assert locator.for_header(second, top2) == Span(3, 0, 3, 12)
