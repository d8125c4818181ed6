"""The lazy locator gives exactly libcst's PositionProvider spans, for every node."""

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from tilecheck.source.positions import Locator

FIXTURES = sorted((Path(__file__).resolve().parent.parent / "fixtures").glob("*/*.py"))

TRICKY = """# header comment

# leading comment
@decorator  # trailing
\n# between decorators
@decorator_two(
    1,
)
def f():
    x = 1; y = 2


# trailing comment
z = 3; w = 4
class C:
    pass
if z:
    pass
else:
    pass
# end
"""


def assert_same_spans(source: str) -> None:
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    locator = Locator(module, source)
    for top in module.body:
        for node, want in _nodes(top, expected):
            span = locator.span(node, top)
            assert (span.line, span.column, span.end_line, span.end_column) == (
                want.start.line,
                want.start.column,
                want.end.line,
                want.end.column,
            ), type(node).__name__


def _nodes(top, expected):
    found = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node):
            found.append((node, expected[node]))
            return True

    top.visit(Collect())
    return found


def test_tricky_layout():
    assert_same_spans(TRICKY)


def test_without_source_text_falls_back_to_codegen():
    module = cst.parse_module(TRICKY)
    assert Locator(module)._statement_lines() == Locator(module, TRICKY)._statement_lines()


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_spans(path):
    assert_same_spans(path.read_text())
