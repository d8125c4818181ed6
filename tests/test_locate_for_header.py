"""`Locator.for_header` and `Locator.with_item` read a loop header's and a `with` item's span
from CPython's tree; they must be exactly what the position-tracking code generator gives (the
slow way), in every shape of `for` and `with`."""

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


WITH_SOURCES = {
    "kernel": (
        "@T.prim_func\ndef main(A: T.Tensor((8,), 'float16')):\n"
        "    with T.Kernel(8, threads=128) as bx:\n        pass\n"
    ),
    "several": "def f():\n    with a(1) as x, b(\n        2,\n    ) as (y, z), c:\n        pass\n",
    "parenthesized": "with (a() as x, b()):\n    pass\nwith ( T.Kernel(1) ) as k:\n    pass\n",
    "non-ascii": "def f():\n    s = 'é漢😀'; with_ = 1\n    with T.Kernel(4, 4) as (bx, by):  # 😀\n        pass\n",
    "async": "async def f():\n    async with g() as h:\n        pass\n",
    "mixed": (
        "def f(x):\n    for i in a:\n        with b:\n            for j in c:\n                with d, e:\n"
        "                    pass\n    try:\n        pass\n    except E:\n        with k:\n            pass\n"
    ),
    "crlf": "x = 1\r\nwith T.Kernel(3) as bx:\r\n    with T.Kernel(4) as by:\r\n        pass\r\n",
}


class _Withs(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.BaseExpression] = []

    def visit_With(self, node: cst.With) -> None:
        self.found += [item.item for item in node.items]


@pytest.mark.parametrize("name", WITH_SOURCES)
def test_with_items_from_cpythons_tree_equal_the_generated_positions(name):
    source = WITH_SOURCES[name]
    module = cst.parse_module(source)
    tree = python_ast.parse(source)
    fast = Locator(module, source, lambda: tree)
    slow = Locator(module)
    found = []
    for top in module.body:
        collect = _Withs()
        top.visit(collect)
        found += [(node, top) for node in collect.found]
    assert found
    for node, top in found:
        assert fast.with_item(node, top) == slow.span(node, top)
        assert slow.with_item(node, top) is None  # no text: the caller falls back


def test_an_expression_that_is_no_with_item_has_no_span_from_cpythons_tree():
    source = WITH_SOURCES["kernel"]
    module = cst.parse_module(source)
    tree = python_ast.parse(source)
    locator = Locator(module, source, lambda: tree)
    (top,) = module.body
    collect = _Withs()
    top.visit(collect)
    (call,) = collect.found
    assert locator.with_item(call, top) == Span(3, 9, 3, 33)
    assert isinstance(call, cst.Call)
    assert locator.with_item(call.args[0].value, top) is None  # an argument, not the item


@pytest.mark.parametrize("name", [*SOURCES, *(f"with-{name}" for name in WITH_SOURCES)])
def test_block_heads_are_the_spans_of_every_for_header_and_with_item(name):
    """The cheap superset the server matches hovers against: exactly the spans libcst gives."""
    from tilecheck.source.positions import block_heads

    source = SOURCES[name] if name in SOURCES else WITH_SOURCES[name[5:]]
    module = cst.parse_module(source)
    slow = Locator(module)
    fors, withs = [], []
    for top in module.body:
        for node, _ in loops(cst.Module(body=[top])):
            statement, iterable = slow.span(node, top), slow.span(node.iter, top)
            fors.append(Span(statement.line, statement.column, iterable.end_line, iterable.end_column))
        collect = _Withs()
        top.visit(collect)
        withs += [slow.span(node, top) for node in collect.found]
    headers, items = block_heads(python_ast.parse(source), source)
    assert headers == fors
    assert [span for _, span in items] == withs
