"""The one private libcst interface tilecheck uses, pinned and tested.

`tilecheck/pypto/codegen.py` hands the node types it does not write itself to libcst's own
code generation at an indentation (`CodegenState` with indent tokens, `CSTNode._codegen`),
which libcst's public API does not offer. `pyproject.toml` pins the libcst range this was
tested with; these tests fail first when a libcst release changes it.
"""

from __future__ import annotations

import inspect
import re
from importlib import metadata
from pathlib import Path

import libcst as cst
from libcst._nodes.internal import CodegenState

from tilecheck.pypto.codegen import Codegen
from tilecheck.pypto.codegen_nodes import TOKENS

ROOT = Path(__file__).resolve().parents[2]


def _pinned_range() -> tuple[tuple[int, ...], tuple[int, ...]]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'"libcst>=([\d.]+),<([\d.]+)"', text)
    assert match, "pyproject.toml must pin libcst to a tested range"
    low, high = (tuple(int(part) for part in group.split(".")) for group in match.groups())
    return low, high


def test_installed_libcst_is_in_the_pinned_range():
    low, high = _pinned_range()
    installed = tuple(int(part) for part in metadata.version("libcst").split(".")[:2])
    assert low <= installed < high


def test_codegen_state_takes_what_the_writer_passes():
    parameters = inspect.signature(CodegenState).parameters
    assert {"default_indent", "default_newline", "indent_tokens"} <= set(parameters)
    state = CodegenState(default_indent="    ", default_newline="\n", indent_tokens=["  "])
    cst.parse_statement("while x:\n    y = 1\n")._codegen(state)
    assert "".join(state.tokens) == "  while x:\n      y = 1\n"


def test_the_writer_falls_back_to_libcst_at_an_indentation():
    module = cst.parse_module("def f():\n    while x:  # c\n        y = (1,\n            2)\n")
    loop = module.body[0].body.body[0]  # type: ignore[attr-defined]
    text = Codegen(module).statements([loop], "    ")
    assert text == "    while x:  # c\n        y = (1,\n            2)\n"


def test_token_table_matches_libcst():
    for kind, token in TOKENS.items():
        assert kind()._get_token() == token, kind.__name__
