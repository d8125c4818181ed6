"""The README's console examples are real output: regenerated (`tools/readme_examples.py`, run by
`make docs`) they are byte for byte what the README shows, and every console block that shows
output is one of them."""

from __future__ import annotations

import importlib.util
import pathlib
import re

_SPEC = importlib.util.spec_from_file_location(
    "_readme_examples", pathlib.Path(__file__).resolve().parent.parent / "tools" / "readme_examples.py"
)
assert _SPEC is not None and _SPEC.loader is not None
_TOOL = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_TOOL)
EXAMPLE, README, commands, render = _TOOL.EXAMPLE, _TOOL.README, _TOOL.commands, _TOOL.render


def test_the_readme_examples_are_the_real_output():
    text = README.read_text(encoding="utf-8")
    assert render(text) == text, "README.md examples are stale: run `python tools/readme_examples.py`"


def test_every_console_block_that_shows_output_is_generated():
    text = README.read_text(encoding="utf-8")
    generated = {match.start("body") for match in EXAMPLE.finditer(text)}
    assert len(generated) >= 4
    for block in re.finditer(r"```console\n(?P<body>.*?)```\n", text, flags=re.DOTALL):
        shows_output = any(not line.startswith("$ ") for line in block["body"].splitlines())
        assert not shows_output or block.start("body") in generated, block["body"][:200]
        if shows_output:
            assert commands(block["body"]), block["body"][:200]
