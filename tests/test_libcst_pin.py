"""tilecheck.source.positions drives libcst's position-tracking codegen (not public API): the installed
libcst must be inside the range pyproject.toml pins, and that fast path must agree with
libcst's public PositionProvider on real kernels."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import libcst as cst
import pytest

from tilecheck.source.positions import codegen_positions, public_positions

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def test_installed_libcst_is_inside_the_pinned_range():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    [spec] = [d for d in dependencies if re.match(r"libcst\b", d)]
    bounds = dict(re.findall(r"(>=|<)\s*([\d.]+)", spec))
    assert set(bounds) == {">=", "<"}, f"libcst must be pinned to a range: {spec}"
    installed = _version(metadata.version("libcst"))
    assert _version(bounds[">="]) <= installed < _version(bounds["<"]), (
        f"libcst {metadata.version('libcst')} is outside {spec}: re-test tilecheck/source/positions.py and move the pin"
    )


KERNELS = sorted((ROOT / "fixtures").rglob("*.py"))[:40]


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fast_positions_agree_with_the_public_api(path):
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    for top in module.body:
        fast = codegen_positions(module, top)
        assert fast is not None, "the fast path is unavailable with this libcst"
        public = public_positions(module, top)
        assert {node: public[node] for node in fast} == dict(fast)
        assert len(fast) == len(public) - 1  # the public path also places the one-statement module


# -- tilecheck.source.cst_parse: no validation of the nodes a parse builds --------------------------


def test_the_validation_hook_is_in_place_for_the_pinned_libcst():
    from tilecheck.source import cst_parse

    assert cst_parse.HOOKED, "CSTNode validates some other way: move the hook (or drop it)"


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_parse_without_validation_builds_libcsts_tree(path):
    from tilecheck.source.cst_parse import parse_module

    text = path.read_text(encoding="utf-8")
    fast = parse_module(text)
    assert fast.deep_equals(cst.parse_module(text))
    assert fast.code == text


def test_a_parse_without_validation_raises_what_libcst_raises():
    from tilecheck.source.cst_parse import parse_module

    with pytest.raises(cst.ParserSyntaxError) as ours:
        parse_module("def f(:\n    pass\n")
    with pytest.raises(cst.ParserSyntaxError) as theirs:
        cst.parse_module("def f(:\n    pass\n")
    assert (ours.value.raw_line, ours.value.raw_column, ours.value.message) == (
        theirs.value.raw_line,
        theirs.value.raw_column,
        theirs.value.message,
    )


def test_nodes_built_outside_a_parse_are_validated_as_before(monkeypatch):
    """Only the parsing thread skips validation, and only while it parses."""
    import threading

    from tilecheck.source import cst_parse

    def invalid_name_raises() -> bool:
        try:
            cst.Name("not an identifier")
        except cst.CSTValidationError:
            return True
        return False

    seen: dict[str, bool] = {}

    def parse(text: str) -> cst.Module:  # stands in for libcst's parser, inside `parse_module`
        seen["parsing thread"] = invalid_name_raises()
        other = threading.Thread(target=lambda: seen.setdefault("other thread", invalid_name_raises()))
        other.start()
        other.join()
        return cst.Module(body=())

    monkeypatch.setattr(cst_parse.cst, "parse_module", parse)
    cst_parse.parse_module("")
    assert seen == {"parsing thread": False, "other thread": True}
    assert invalid_name_raises()  # after the parse, on this thread too


def test_valid_python_libcsts_validation_refuses_gets_its_tree():
    """LibCST issue #1061: validating `else(` (no space, then a parenthesised lambda) raises a
    TypeError in libcst 1.9, on valid Python its parser reads; tilecheck's parse keeps the tree."""
    from tilecheck.source.cst_parse import parse_module

    text = "x = () if 0 else(lambda: ())\n"
    with pytest.raises(TypeError):
        cst.parse_module(text)
    assert parse_module(text).code == text
