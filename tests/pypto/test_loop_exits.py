"""Loops whose bodies leave the loop or the function (`break`, `continue`, `return`, `del`) stay unlowered."""

from __future__ import annotations

import os

import pytest

from tests.pypto.helpers import lower_notes, program, run_lower_command
from tilecheck.cli.lower import compiles
from tilecheck.pypto import lower_source

_EXIT = "this pipeline loop was left as it is: its body has a `{}` statement, which cannot be copied into the unrolled stages"


@pytest.mark.parametrize(
    ("body", "keyword"),
    [
        ("for i in pl.pipeline(0, 10, 1, stage=4):\n    x = i\n    break\n", "break"),
        ("for i in pl.pipeline(0, n, 1, stage=4):\n    if i:\n        continue\n    x = i\n", "continue"),
        ("for i in pl.pipeline(0, 10, 1, stage=4):\n    x = i\n    return x\n", "return"),
        # an inner loop's `else:` belongs to the pipeline loop
        (
            "for i in pl.pipeline(0, 10, 1, stage=4):\n    for j in pl.range(2):\n        x = j\n    else:\n        break\n",
            "break",
        ),
        # `return` inside an inner loop still leaves the function
        ("for i in pl.pipeline(0, 10, 1, stage=4):\n    for j in pl.range(2):\n        return j\n", "return"),
    ],
)
def test_loop_exits_leave_the_loop_unlowered(body, keyword):
    source = program(body)
    result = lower_source(source, "k.py")
    assert result.source == source and not result.changed
    assert lower_notes(source) == [("TL491", 6, 14, _EXIT.format(keyword))]


def test_deleting_the_loop_variable_leaves_the_loop_unlowered():
    source = program("for i in pl.pipeline(0, 10, 1, stage=4):\n    x = i\n    del x, i\n")
    result = lower_source(source, "k.py")
    assert result.source == source and not result.changed
    assert lower_notes(source) == [
        ("TL491", 6, 9, "this pipeline loop was left as it is: `i` is deleted in the loop body")
    ]


def test_break_and_continue_of_inner_loops_do_not_block_lowering():
    source = program(
        "for i in pl.pipeline(0, 4, 1, stage=2):\n"
        "    for j in pl.range(4):\n"
        "        if j:\n"
        "            break\n"
        "        continue\n"
        "    while n:\n"
        "        break\n"
        "    def g():\n"
        "        return 1\n"
    )
    result = lower_source(source, "k.py")
    assert result.changed and result.diagnostics == []
    assert compiles(result.source)


def test_write_keeps_a_loop_with_break_and_the_file_compiles(tmp_path):
    path = tmp_path / "k.py"
    source = program("for i in pl.pipeline(0, 10, 1, stage=4):\n    x = i\n    break\n")
    path.write_text(source)
    code, out, err = run_lower_command(["lower", "--write", str(path), "--output-format", "concise"])
    assert (code, out) == (1, "")  # a warning fails the run, as in `check`
    assert err == f"{path}:6:14: warning: TL491 [meta] {_EXIT.format('break')}\nFound 1 warning in 1 file.\n"
    assert path.read_text() == source


def test_reparses_compiles_rather_than_only_parsing():
    assert compiles("for i in x:\n    break\n")
    assert not compiles("break\n")
    assert not compiles("return 1\n")
    assert not compiles("def f():\n    nonlocal q\n")
    assert not compiles("x = (\n")


@pytest.mark.parametrize("option", ["--write", "-o"])
def test_output_that_does_not_compile_is_not_written(tmp_path, monkeypatch, option):
    from tilecheck.cli import lower as cli
    from tilecheck.pypto import api

    path, target = tmp_path / "k.py", tmp_path / "out.py"
    source = program("for i in pl.pipeline(0, 2, 1, stage=2):\n    x = i\n")
    path.write_text(source)
    broken = api.LowerResult("x = 1\nbreak\n", [], True, source)
    monkeypatch.setattr(cli.Workspace, "lower_text", lambda *a, **k: broken)
    argv = ["lower", "--write", str(path)] if option == "--write" else ["lower", str(path), "-o", str(target)]
    code, out, err = run_lower_command(argv)
    assert (code, out) == (1, "")
    assert err == f"tilecheck lower: not writing {path}: the lowered result does not compile\n"
    assert path.read_text() == source and not target.exists()
    assert sorted(os.listdir(tmp_path)) == ["k.py"]
