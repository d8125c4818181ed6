"""The chunked parser (`tilecheck.source.chunks`) builds exactly libcst's module: `deep_equals` and the same
code on every fixture, tilecheck's own sources, the shared corpus (read as data when present) and
the layouts where libcst's whole-file parse assigns comments and indentation in ways a chunk
parsed alone would not; its cache re-parses only the chunks an edit touched."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_prefilter import as_json
from tilecheck.app.workspace import Workspace
from tilecheck.lint.engine import check_source, lint_source
from tilecheck.source import chunks as regions

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent.parent / "shared" / "corpus" / "tilelang"
if not CORPUS.is_dir():
    CORPUS = ROOT.parent / "shared" / "corpus" / "tilelang"


def assert_same(text: str, cache: regions.ChunkCache | None = None) -> cst.Module:
    chunked = regions.parse_module(text, cache)
    whole = cst.parse_module(text)
    assert chunked.deep_equals(whole), text
    assert chunked.code == whole.code  # the text itself, except where libcst loses a form feed
    assert (chunked.default_indent, chunked.default_newline) == (whole.default_indent, whole.default_newline)
    assert chunked.has_trailing_newline == whole.has_trailing_newline
    return chunked


LAYOUTS = {
    "header comments and a blank line": "# a\n\n# b\nimport os\n\n\ndef f():\n    return os\n",
    "comment indented under the block it follows": (
        "def f():\n    x = 1\n    # f's footer\n\n  # two spaces\n# column 0\n\ndef g():\n    pass\n"
    ),
    "two-space file, four-space function later": "if 1:\n  a = 1\n\n\ndef f():\n    return 2\n",
    "tabs": "def f():\n\treturn 1\n\n\ndef g():\n\tif 1:\n\t\treturn 2\n",
    "first block inside an else": "if x: pass\nelse:\n   y = 1\ndef f():\n    return 1\n",
    "CRLF": "import os\r\n\r\n\r\ndef f():\r\n    return 1\r\n# end\r\n",
    "no trailing newline": "import os\n\n\ndef f():\n    return 1",
    "trailing comments, no newline": "import os\n\n# last",
    "semicolons": "a = 1; b = 2\nc = 3; d = (\n    4)\ne = 5\n",
    "decorators with comments": (
        "import tilelang.language as T\n\n\n# before\n@T.prim_func  # why\n# between\n@other(\n    1,\n)\n"
        "def main(A: T.Tensor((4,), 'float32')):\n    with T.Kernel(1) as bx:\n        pass\n"
    ),
    "docstring first, blank lines with spaces": '"""Doc."""\n   \n\nx = 1\n    \ny = 2\n',
    "class with methods and trailing block comments": (
        "class A:\n    def f(self):\n        return 1\n        # inner\n    # outer\n\n\nclass B:\n    pass\n"
    ),
    "multi-line strings and brackets": 'x = """\n# not a comment\n"""\ny = [\n\n    1,\n]\n',
    "async and match": (
        "async def f():\n    await g()\n\n\nmatch x:\n    case 1:\n        pass\n    case _:\n        pass\n"
    ),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_layouts_parse_as_the_whole_file(name):
    assert regions.chunk_starts(LAYOUTS[name]) is not None  # really chunked, not the fallback
    assert_same(LAYOUTS[name])


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# only a comment\n",
        "x = 1 + \\\n    2\n\\\n\ny = 3\n",  # a backslash line between statements
        "a = 1\n\x0cb = 2\n",  # a form feed
        "a = 1\rb = 2\r",  # old Mac line endings
    ],
)
def test_unusual_text_is_parsed_whole(text):
    assert regions.chunk_starts(text) is None
    assert_same(text)


@pytest.mark.parametrize("text", ["def f(:\n    pass\n", "x = (\n", "def f():\nreturn 1\n"])
def test_invalid_text_raises_what_libcst_raises(text):
    with pytest.raises(cst.ParserSyntaxError) as chunked:
        regions.parse_module(text)
    with pytest.raises(cst.ParserSyntaxError) as whole:
        cst.parse_module(text)
    assert str(chunked.value) == str(whole.value)


def test_chunk_starts_follow_the_top_level_statements():
    text = LAYOUTS["decorators with comments"]
    assert regions.chunk_starts(text) == [5]  # the first decorator, after `# before`
    assert regions.chunk_starts("a = 1; b = 2\nc = 3\n\n\n@d\ndef f(): pass\n") == [2, 5]


def test_an_edit_reparses_only_the_chunks_it_touches():
    functions = [f"def f{n}(a):\n    return a + {n}\n\n\n" for n in range(20)]
    cache = regions.ChunkCache()
    assert_same("".join(functions), cache)
    assert (cache.hits, cache.misses, len(cache)) == (0, 20, 20)
    functions[7] = "def f7(a):\n    # edited\n    return a * 7\n\n\n"
    assert_same("".join(functions), cache)
    assert (cache.hits, cache.misses) == (19, 21)


def test_the_cache_keeps_its_bound_and_callers_do_not_share():
    small = regions.ChunkCache(max_chunks=3)
    text = "".join(f"x{n} = {n}\n" for n in range(10))
    assert_same(text, small)
    assert len(small) == 3
    other = regions.ChunkCache()
    assert_same(text, other)
    assert (other.hits, other.misses) == (0, 10)
    small.clear()
    assert len(small) == 0


def test_the_same_chunk_under_another_default_indentation_is_not_reused():
    function = "def f():\n    if 1:\n        return 1\n"
    cache = regions.ChunkCache()
    two_space = assert_same(f"if 1:\n  a = 1\n{function}", cache)
    four_space = assert_same(f"a = 1\n{function}", cache)
    assert two_space.default_indent == "  " and four_space.default_indent == "    "
    assert cache.hits == 0


def test_the_engine_checks_a_text_alike_through_a_chunk_cache():
    text = (ROOT / "fixtures" / "examples" / "softmax_mistakes.py").read_text()
    cache = regions.ChunkCache()
    whole = check_source(text, "k.py")
    for _ in range(2):  # the second time every chunk comes from the cache
        chunked = check_source(text, "k.py", chunks=cache)
        assert chunked.diagnostics == whole.diagnostics
        assert chunked.module is not None and chunked.module.deep_equals(whole.module)
    assert whole.diagnostics and cache.hits == cache.misses > 0


def test_every_fixtures_json_report_is_the_same_through_one_chunk_cache():
    workspace = Workspace()
    cache = regions.ChunkCache()  # shared across files: equal chunks of two files are one entry
    paths = sorted((ROOT / "fixtures").rglob("*.py"))
    for path in paths:
        data = path.read_bytes()
        settings = workspace.file_settings(str(path))
        whole = lint_source(data, str(path), settings).detached()
        chunked = lint_source(data, str(path), settings, chunks=cache).detached()
        assert as_json(chunked) == as_json(whole), path
    assert cache.hits > 0  # the fixtures share their import lines


SNIPPETS = [
    "import tilelang.language as T\n",
    "x = 1; y = 2\n",
    "\n",
    "# comment\n",
    "    # indented comment\n",
    "def f():\n    return 1\n",
    "def g():\n  if x:\n      pass\n",
    "@dec\n# c\ndef h(a,\n      b):\n\treturn a\n",
    "class C:\n    x = 1\n\n    def m(self):\n        pass\n",
    "if a: pass\nelif b:\n        c = 1\n",
    "s = '''\nx\n'''\n",
    "try:\n    pass\nexcept E:  # why\n    pass\n",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=12), st.booleans())
def test_any_sequence_of_statements_and_comments(parts, crlf):
    text = "".join(parts)
    if parts[0].startswith("    "):
        text = "pass\n" + text  # an indented first line is not Python
    if crlf:
        text = text.replace("\n", "\r\n")
    assert_same(text)


def _sources(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def test_every_fixture_and_tilechecks_own_sources():
    paths = _sources(ROOT / "fixtures") + _sources(ROOT / "tilecheck") + _sources(ROOT / "tests")
    assert len(paths) > 150
    for path in paths:
        assert_same(path.read_text(encoding="utf-8"))


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared TileLang corpus is not present")
def test_the_shared_corpus():
    cache = regions.ChunkCache()
    for path in _sources(CORPUS):
        text = path.read_text(encoding="utf-8")
        try:
            cst.parse_module(text)
        except cst.ParserSyntaxError:
            continue
        assert_same(text, cache)
