"""`TreeCache` re-parses only the top-level statements an edit touched; every tree it returns
must be exactly `ast.parse` of the same text (positions included), every error the whole text's,
and the compiler's verdict the whole text's."""

from __future__ import annotations

import ast
import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilecheck.source import guards
from tilecheck.source.tree_cache import TreeCache

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.py"))[:40]
# the random edits write things like `1x`, which CPython warns about while parsing
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")


def dump(tree: ast.AST) -> str:
    return ast.dump(tree, include_attributes=True)


def outcome(parse, text: str) -> str:
    try:
        return dump(parse(text))
    except SyntaxError as error:
        return f"SyntaxError {error.msg} {error.lineno} {error.offset}"
    except ValueError as error:
        return f"ValueError {error}"


def assert_same_as_a_fresh_parse(cache: TreeCache, text: str) -> None:
    assert outcome(cache.parse, text) == outcome(ast.parse, text)
    fresh = guards.compiler_verdict(text, None)[1]
    try:
        tree = cache.parse(text)
    except (SyntaxError, ValueError):
        return
    assert guards.compiler_verdict(text, tree, cache)[1] == fresh


BASE = "import a\n\n\ndef f(x):\n    return x\n\n\n@dec\ndef g():\n    pass\n\nX = 1\nY = 2\n"
EDITS = {
    "inside a function": ("    return x\n", "    return x + 1\n"),
    "a line added": ("X = 1\n", "X = 1\nZ = 3\n"),
    "a line removed": ("X = 1\n", ""),
    "a body grows after the block": ("    pass\n", "    pass\n    more()\n"),
    "an else after the block": ("    return x\n", "    return x\nelse:\n    pass\n"),
    "a backslash joins the next statement": ("X = 1\n", "X = 1 + \\\n"),
    "a statement shares a line": ("X = 1\nY = 2\n", "X = 1; Y = (\n    2)\n"),
    "an open bracket": ("X = 1\n", "X = (1,\n"),
    "an open string": ("X = 1\n", 'X = """\n'),
    "a decorator left alone": ("X = 1\n", "@dec\n"),
    "a block header left open": ("X = 1\n", "if X:\n"),
    "a comment": ("X = 1\n", "X = 1  # why\n"),
    "the leading lines": ("import a\n", "# header\nimport a\n"),
    "a syntax error": ("    return x\n", "    return x +\n"),
    "a compiler error": ("    return x\n", "    return x\nreturn 1\n"),
    "a global after the use": ("Y = 2\n", "Y = 2\nglobal Y\n"),
    "a late future import": ("Y = 2\n", "Y = 2\nfrom __future__ import annotations\n"),
    "a crlf line": ("X = 1\n", "X = 1\r\n"),
    "indentation": ("X = 1\n", "    X = 1\n"),
}


@pytest.mark.parametrize("name", EDITS)
def test_an_edit_gives_what_a_fresh_parse_gives(name):
    old, new = EDITS[name]
    cache = TreeCache()
    cache.parse(BASE)
    assert guards.compiler_verdict(BASE, cache.parse(BASE), cache)[1] is None
    assert_same_as_a_fresh_parse(cache, BASE.replace(old, new, 1))
    assert_same_as_a_fresh_parse(cache, BASE)  # and back


SHARED_LINES = {
    # `y` starts on the line where the kept `x` ends: re-parsing from line 2 alone would make `3`
    # a statement of its own
    "a statement continues after a kept one": ("x = 1; y = \\\n2\nZ = 3\n", "x = 1; y = \\\n3\nZ = 3\n"),
    # `c` starts on the line where `b` ends: the new text is a syntax error (`1)` at line 3),
    # though `b = 5` parses alone and `c` was fine
    "a kept statement starts where an edited one ends": (
        "a = 1\nb = (\n1); c = 2\n",
        "a = 1\nb = 5\n1); c = 2\n",
    ),
}


@pytest.mark.parametrize("name", SHARED_LINES)
def test_statements_sharing_a_line_are_parsed_together(name):
    old, new = SHARED_LINES[name]
    cache = TreeCache()
    guards.compiler_verdict(old, cache.parse(old), cache)
    assert_same_as_a_fresh_parse(cache, new)


def test_an_edit_inside_one_statement_parses_that_statement_only():
    cache = TreeCache()
    tree = cache.parse(BASE)
    guards.compiler_verdict(BASE, tree, cache)
    edited = BASE.replace("    return x\n", "    return x + 1\n")
    again = cache.parse(edited)
    assert (cache.whole_parses, cache.region_lines) == (
        1,
        6,
    )  # lines 2-7: `def f` and the blank lines around it
    assert again.body[0] is tree.body[0] and again.body[2] is tree.body[2]  # kept, not re-parsed
    changed = cache.changed(again)
    assert changed is not None and [type(s).__name__ for s in changed] == ["FunctionDef"]
    assert dump(again) == dump(ast.parse(edited))


def test_a_text_that_compiled_with_an_error_is_compiled_whole_next_time():
    cache = TreeCache()
    broken = BASE + "return 1\n"
    assert guards.compiler_verdict(broken, cache.parse(broken), cache)[1] is not None
    edited = broken.replace("X = 1", "X = 2")
    tree = cache.parse(edited)
    assert cache.changed(tree) is None  # the error elsewhere must still be found
    assert guards.compiler_verdict(edited, tree, cache)[1] == guards.compiler_verdict(edited, None)[1]


LINES = st.sampled_from(
    [
        "",
        "# a comment",
        "x = 1",
        "    y = 2",
        "        z = 3",
        "def h():",
        "    pass",
        "else:",
        "@dec",
        "class C:",
        "x = 1; y = \\",
        "    (1,",
        ")",
        '"""',
        "for i in T.Parallel(8):",
        "    with T.Kernel(1) as bx:",
        "global x",
        "return 1",
        "\tq = 1",
        "é = '漢😀'",
    ]
)
EDIT = st.tuples(st.sampled_from(["insert", "delete", "replace", "append"]), st.integers(0, 10**6), LINES)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FIXTURES), st.lists(EDIT, min_size=1, max_size=6))
def test_random_edits_give_what_a_fresh_parse_gives(fixture, edits):
    text = fixture.read_text(encoding="utf-8")
    cache = TreeCache()
    with contextlib.suppress(SyntaxError):  # a fixture may be invalid on purpose
        guards.compiler_verdict(text, cache.parse(text), cache)
    lines = text.split("\n")
    for kind, where, line in edits:
        at = where % (len(lines) + 1)
        if kind == "insert":
            lines.insert(at, line)
        elif kind == "delete" and lines:
            del lines[min(at, len(lines) - 1)]
        elif kind == "replace" and lines:
            lines[min(at, len(lines) - 1)] = line
        elif kind == "append" and lines:
            lines[min(at, len(lines) - 1)] += line
        assert_same_as_a_fresh_parse(cache, "\n".join(lines))


def test_a_parse_interrupted_while_moving_statements_parses_whole_next_time(monkeypatch):
    """The worker abandons a check by raising from a signal handler, anywhere: a tree half
    shifted must never be the base of the next parse."""
    cache = TreeCache()
    cache.parse(BASE)
    calls = []

    def interrupted(node, n=1):
        calls.append(n)
        raise MemoryError

    monkeypatch.setattr(ast, "increment_lineno", interrupted)
    with pytest.raises(MemoryError):
        cache.parse(BASE.replace("import a\n", "import a\nimport b\n"))
    monkeypatch.undo()
    assert calls == [1]
    edited = BASE.replace("X = 1", "X = 2")
    assert dump(cache.parse(edited)) == dump(ast.parse(edited))
    assert cache.whole_parses == 2
