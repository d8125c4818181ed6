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
