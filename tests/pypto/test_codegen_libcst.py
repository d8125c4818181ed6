"""The private libcst interface `tilecheck/pypto/codegen.py` uses, tested.

The writer hands the node types it does not write itself to libcst's own code generation at
an indentation (`CodegenState` with indent tokens, `CSTNode._codegen`), which libcst's public
API does not offer. `pyproject.toml` pins the libcst range (`tests/test_libcst_pin.py` checks
the installed version); these tests fail first when a libcst release changes the interface.
"""

from __future__ import annotations

import inspect

import libcst as cst
from libcst._nodes.internal import CodegenState

from tilecheck.pypto.codegen import Codegen
from tilecheck.pypto.codegen_nodes import TOKENS


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
