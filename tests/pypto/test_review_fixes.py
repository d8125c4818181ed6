"""Regressions from the review of `tilecheck lower`: loop exits, size limits, symlinks."""

from __future__ import annotations

import argparse
import io
import os

import pytest

from tests.pypto.helpers import program
from tilecheck.commands.lower import add_lower_parser, run_lower
from tilecheck.pypto import lower_source
from tilecheck.pypto.lower import reparses


def _run(argv: list[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="tilecheck")
    add_lower_parser(parser.add_subparsers(dest="command"))
    out, err = io.StringIO(), io.StringIO()
    code = run_lower(parser.parse_args(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _notes(source: str) -> list[tuple[str, int, int, str]]:
    result = lower_source(source, "k.py")
    return [(d.code, d.span.line, d.span.column + 1, d.message) for d in result.diagnostics]


# -- 1. break / continue / return in a pipeline body -----------------------------------------

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
    assert _notes(source) == [("TL491", 6, 14, _EXIT.format(keyword))]


def test_deleting_the_loop_variable_leaves_the_loop_unlowered():
    source = program("for i in pl.pipeline(0, 10, 1, stage=4):\n    x = i\n    del x, i\n")
    result = lower_source(source, "k.py")
    assert result.source == source and not result.changed
    assert _notes(source) == [
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
    assert reparses(result.source)


def test_write_keeps_a_loop_with_break_and_the_file_compiles(tmp_path):
    path = tmp_path / "k.py"
    source = program("for i in pl.pipeline(0, 10, 1, stage=4):\n    x = i\n    break\n")
    path.write_text(source)
    code, out, err = _run(["lower", "--write", str(path)])
    assert (code, out) == (0, "")
    assert err == f"{path}:6:14: TL491 {_EXIT.format('break')}\n"
    assert path.read_text() == source


def test_reparses_compiles_rather_than_only_parsing():
    assert reparses("for i in x:\n    break\n")
    assert not reparses("break\n")
    assert not reparses("return 1\n")
    assert not reparses("def f():\n    nonlocal q\n")
    assert not reparses("x = (\n")


@pytest.mark.parametrize("option", ["--write", "-o"])
def test_output_that_does_not_compile_is_not_written(tmp_path, monkeypatch, option):
    from tilecheck.commands import lower as cli
    from tilecheck.pypto import api

    path, target = tmp_path / "k.py", tmp_path / "out.py"
    source = program("for i in pl.pipeline(0, 2, 1, stage=2):\n    x = i\n")
    path.write_text(source)
    monkeypatch.setattr(cli, "lower_source", lambda *a, **k: api.LowerResult("x = 1\nbreak\n", [], True))
    argv = ["lower", "--write", str(path)] if option == "--write" else ["lower", str(path), "-o", str(target)]
    code, out, err = _run(argv)
    assert (code, out) == (1, "")
    assert err == f"tilecheck lower: not writing {path}: the lowered result does not compile\n"
    assert path.read_text() == source and not target.exists()
    assert sorted(os.listdir(tmp_path)) == ["k.py"]


# -- 2. size limits and recursion ------------------------------------------------------------

_LIMIT = "this pipeline loop was left as it is: stage={} is more than the 64 stages `tilecheck lower` unrolls"
_DEEP = "this pipeline loop was left as it is: it is nested too deeply to lower (Python's recursion limit)"


@pytest.mark.parametrize("stage", [65, 200, 100000, 10**9])
@pytest.mark.parametrize("stop", ["10", "n"])
def test_stage_above_the_limit_is_left_unlowered(stage, stop):
    source = program(f"for i in pl.pipeline(0, {stop}, 1, stage={stage}):\n    x = pl.load(a, [i], [16])\n")
    result = lower_source(source, "k.py")
    assert result.source == source and not result.changed
    assert _notes(source) == [("TL491", 6, 14, _LIMIT.format(stage))]


def test_stage_at_the_limit_is_lowered_and_compiles():
    source = program("for i in pl.pipeline(0, n, 1, stage=64):\n    x = pl.load(a, [i], [16])\n")
    result = lower_source(source, "k.py")
    assert result.changed and result.diagnostics == []
    assert "if unroll_rem == 63:" in result.source and reparses(result.source)


def test_output_size_budget_leaves_a_large_body_unlowered():
    line = "x = pl.load(a, [i], [16])  # " + "c" * 1000 + "\n"
    source = program("for i in pl.pipeline(0, n, 1, stage=64):\n" + ("    " + line) * 2)
    result = lower_source(source, "k.py")
    assert result.source == source and not result.changed
    [(code, row, column, message)] = _notes(source)
    assert (code, row, column) == ("TL491", 6, 14)
    assert message == (
        "this pipeline loop was left as it is: its unrolled copies would be about 4,284,800 characters, "
        "more than the 2,000,000 `tilecheck lower` writes for one loop"
    )


def test_deep_expression_is_a_diagnostic_not_a_traceback(tmp_path):
    deep = "+".join(["i"] * 900)
    source = program(f"for i in pl.pipeline(0, 10, 1, stage=4):\n    x = pl.load(a, [{deep}], [16])\n")
    result = lower_source(source, "k.py")
    assert result.source == source and not result.changed
    assert _notes(source) == [("TL491", 6, 14, _DEEP)]
    path = tmp_path / "k.py"
    path.write_text(source)
    assert _run(["lower", "--write", str(path)]) == (
        0,
        "",
        f"{path}:6:14: {_DEEP.replace('this', 'TL491 this', 1)}\n",
    )
    assert path.read_text() == source


def test_recursion_anywhere_in_lowering_is_a_diagnostic(monkeypatch):
    from tilecheck.pypto import api

    def explode(*args, **kwargs):
        raise RecursionError

    monkeypatch.setattr(api, "check_functions", explode)
    source = program("for i in pl.pipeline(0, 2, 1, stage=2):\n    x = i\n")
    assert _notes(source) == [
        (
            "TL491",
            1,
            1,
            "this pipeline loop was left as it is: the file is nested too deeply to lower (Python's recursion limit)",
        )
    ]


# -- 3. --write through tilecheck.fixes.write_atomic -----------------------------------------

_GOOD = program("for i in pl.pipeline(0, 2, 1, stage=2):\n    x = i\n")
_LOWERED = program("for i in pl.pipeline(0, 2, 2, stage=1):\n    x = i\n    x_1 = i + 1\n")


def test_write_through_a_symlink_keeps_the_link(tmp_path):
    real, link = tmp_path / "real.py", tmp_path / "link.py"
    real.write_text(_GOOD)
    os.chmod(real, 0o640)
    link.symlink_to(real.name)
    assert _run(["lower", "--write", str(link)]) == (0, "", "")
    assert link.is_symlink() and os.readlink(link) == "real.py"
    assert real.read_text() == _LOWERED
    assert os.stat(real).st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["link.py", "real.py"]


def test_write_keeps_crlf_line_endings_and_the_byte_order_mark(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"\xef\xbb\xbf" + _GOOD.replace("\n", "\r\n").encode())
    assert _run(["lower", "--write", str(path)])[0] == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + _LOWERED.replace("\n", "\r\n").encode()


def test_write_refuses_when_the_file_changed_meanwhile(tmp_path, monkeypatch):
    from tilecheck.commands import lower as cli

    path = tmp_path / "k.py"
    path.write_text(_GOOD)
    real_lower = cli.lower_source

    def lower_then_edit(source, *args, **kwargs):
        result = real_lower(source, *args, **kwargs)
        path.write_text(_GOOD + "# edited\n")
        return result

    monkeypatch.setattr(cli, "lower_source", lower_then_edit)
    code, out, err = _run(["lower", "--write", str(path)])
    assert (code, out) == (2, "")
    assert err == (
        f"tilecheck lower: cannot write {path}: the file changed while it was being checked; it was not modified\n"
    )
    assert path.read_text() == _GOOD + "# edited\n"
    assert sorted(os.listdir(tmp_path)) == ["k.py"]


def test_output_to_a_new_file_and_over_an_existing_one(tmp_path):
    path, target = tmp_path / "k.py", tmp_path / "out.py"
    path.write_text(_GOOD)
    assert _run(["lower", str(path), "-o", str(target)]) == (0, "", "")
    assert target.read_text() == _LOWERED
    target.write_text("old\n")
    os.chmod(target, 0o600)
    assert _run(["lower", str(path), "-o", str(target)]) == (0, "", "")
    assert target.read_text() == _LOWERED and os.stat(target).st_mode & 0o777 == 0o600
    assert path.read_text() == _GOOD


def test_output_into_a_missing_folder_is_exit_2(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(_GOOD)
    code, out, err = _run(["lower", str(path), "-o", str(tmp_path / "no" / "out.py")])
    assert (code, out) == (2, "")
    assert err.startswith(f"tilecheck lower: cannot write {tmp_path / 'no' / 'out.py'}: ")


# -- 4. rule summaries ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "summary",
    [
        "Mismatch:.",
        "Internal error: loop body must yield, got.",
        "LowerPipelineLoops: step must be a compile-time integer constant, got.",
        "stage= is only supported on pl.pipeline(), not pl..",
        "ForStmt in function.",
    ],
)
def test_documentation_problems_rejects_cut_down_message_templates(summary):
    from tilecheck.rule import Rule
    from tilecheck.testing import documentation_problems
    from tilecheck.types import Grade

    class Cut(Rule):
        __doc__ = f"{summary}\n\n## What it does\nx\n## Why is this bad?\nx\n## Example\nx\n## Use instead\nx\n## Backends\nx\n"
        CODE = "XX002"
        NAME = "cut"
        GRADE = Grade.META

    problems = documentation_problems(Cut)
    assert problems and all(problem.startswith("XX002 has a summary ") for problem in problems)


def test_pypto_rule_summaries_are_descriptions():
    from tilecheck.registry import builtin_rules
    from tilecheck.testing import documentation_problems

    rules = {rule.CODE: rule for rule in builtin_rules() if rule.CODE.startswith("TL4")}
    assert sorted(rules) == [f"TL{n}" for n in range(401, 420)] + ["TL490", "TL491"]
    for rule in rules.values():
        assert documentation_problems(rule) == [], rule.CODE
    assert rules["TL412"].summary() == "A loop's iter_args and `init_values` differ in number."
    assert rules["TL417"].summary() == (
        "A pipelined loop body yields a different number of values than it has iter_args."
    )


# -- 5. TL490 and TL491 are documented rules --------------------------------------------------


@pytest.mark.parametrize(
    ("code", "name", "severity"),
    [
        ("TL490", "pypto-pipeline-bounds-unresolved", "info"),
        ("TL491", "pypto-pipeline-not-lowered", "warning"),
    ],
)
def test_lower_diagnostics_are_documented_rules(code, name, severity):
    import subprocess
    import sys

    from tilecheck.pypto import codes
    from tilecheck.registry import builtin_rules
    from tilecheck.types import Grade

    [rule] = [rule for rule in builtin_rules() if code == rule.CODE]
    emitted = {c.code: c for c in codes.ALL}[code]
    assert (rule.NAME, rule.GRADE, rule.SEVERITY.value) == (name, Grade.META, severity)
    assert (emitted.name, emitted.grade, emitted.severity) == (rule.NAME, rule.GRADE, rule.SEVERITY)
    completed = subprocess.run(
        [sys.executable, "-m", "tilecheck", "rule", code], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith(f"# {name} ({code})\n")
