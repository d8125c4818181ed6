"""Bounds on what one loop may lower to: stage factor, predicted output size, recursion."""

from __future__ import annotations

import sys

import pytest

from tests.pypto.helpers import lower_notes, program, run_lower_command
from tilecheck.cli.lower import compiles
from tilecheck.pypto import lower_source
from tilecheck.source import recursion

_LIMIT = "this pipeline loop was left as it is: stage={} is more than the 64 stages `tilecheck lower` unrolls"
_DEEP = "this pipeline loop was left as it is: it is nested too deeply to lower (Python's recursion limit)"


@pytest.mark.parametrize("stage", [65, 200, 100000, 10**9])
@pytest.mark.parametrize("stop", ["10", "n"])
def test_stage_above_the_limit_is_left_unlowered(stage, stop):
    source = program(f"for i in pl.pipeline(0, {stop}, 1, stage={stage}):\n    x = pl.load(a, [i], [16])\n")
    result = lower_source(source, "k.py")
    assert result.source == source and not result.changed
    assert lower_notes(source) == [("TL491", 6, 14, _LIMIT.format(stage))]


def test_stage_at_the_limit_is_lowered_and_compiles():
    source = program("for i in pl.pipeline(0, n, 1, stage=64):\n    x = pl.load(a, [i], [16])\n")
    result = lower_source(source, "k.py")
    assert result.changed and result.diagnostics == []
    assert "if unroll_rem == 63:" in result.source and compiles(result.source)


def test_output_size_budget_leaves_a_large_body_unlowered():
    line = "x = pl.load(a, [i], [16])  # " + "c" * 1000 + "\n"
    source = program("for i in pl.pipeline(0, n, 1, stage=64):\n" + ("    " + line) * 2)
    result = lower_source(source, "k.py")
    assert result.source == source and not result.changed
    [(code, row, column, message)] = lower_notes(source)
    assert (code, row, column) == ("TL491", 6, 14)
    assert message == (
        "this pipeline loop was left as it is: its unrolled copies would be up to about 5,397,600 characters, "
        "more than the 2,000,000 `tilecheck lower` writes for one loop"
    )


@pytest.fixture
def library_recursion_limit(monkeypatch):
    """The interpreter's default limit, as a library caller has it, for the whole test:
    `cli.main` raises the limit of its process to `recursion.RECURSION_LIMIT`, so an earlier CLI
    test in the same process, or this test's own CLI run, would change the answer."""
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    monkeypatch.setattr(recursion, "RECURSION_LIMIT", 1000)
    yield
    sys.setrecursionlimit(saved)


def test_deep_expression_is_a_diagnostic_not_a_traceback(tmp_path, library_recursion_limit):
    deep = "+".join(["i"] * 900)
    source = program(f"for i in pl.pipeline(0, 10, 1, stage=4):\n    x = pl.load(a, [{deep}], [16])\n")
    result = lower_source(source, "k.py")
    assert result.source == source and not result.changed
    assert lower_notes(source) == [("TL491", 6, 14, _DEEP)]
    path = tmp_path / "k.py"
    path.write_text(source)
    assert run_lower_command(["lower", "--write", str(path), "--output-format", "concise"]) == (
        1,
        "",
        f"{path}:6:14: warning: TL491 [meta] {_DEEP}\nFound 1 warning in 1 file.\n",
    )
    assert path.read_text() == source


def test_recursion_anywhere_in_lowering_is_a_diagnostic(monkeypatch):
    from tilecheck.pypto import api

    def explode(*args, **kwargs):
        raise RecursionError

    monkeypatch.setattr(api, "check_functions", explode)
    source = program("for i in pl.pipeline(0, 2, 1, stage=2):\n    x = i\n")
    assert lower_notes(source) == [
        (
            "TL491",
            1,
            1,
            "this pipeline loop was left as it is: the file is nested too deeply to lower (Python's recursion limit)",
        )
    ]


def _nested_pipelines(depth: int) -> str:
    lines = [f"{'    ' * level}for i{level} in pl.pipeline(0, 64, 1, stage=8):\n" for level in range(depth)]
    return program("".join(lines) + "    " * depth + "x = pl.load(a, [i0], [16])\n")


@pytest.mark.parametrize("depth", [6, 7])
def test_nested_pipelines_are_refused_from_the_predicted_size_before_generating(depth):
    # Each level multiplies the text by 8: the outer levels would be far past the cap. They are
    # refused from the prediction (fast), and the inner levels that fit are still lowered.
    import time

    started = time.monotonic()
    result = lower_source(_nested_pipelines(depth), "k.py")
    assert time.monotonic() - started < 30
    assert result.changed and compiles(result.source) and len(result.source) < 2_000_000
    refused = [(d.code, d.span.line, d.span.column + 1) for d in result.diagnostics]
    assert refused == [("TL491", 6 + level, 15 + 4 * level) for level in range(depth - 4)]
    assert all(
        "more than the 2,000,000 `tilecheck lower` writes for one loop" in d.message
        for d in result.diagnostics
    )
    assert result.source.count("stage=1)") == 1 + 8 + 64 + 512  # the four innermost levels, lowered


_BIG = "1" * 5000  # past CPython's 4,300-digit limit for int()


@pytest.mark.parametrize(
    ("constants", "stop", "name"),
    [
        ("", _BIG, "1" * 40 + "..."),
        ("N = 10**4096 * 10**4096\n", "N", "N"),
        ("N = (10**4096)**4096\n", "N", "N"),
        ("N = (1 << 4096) << 4096\n", "N", "N"),
        ("N = 2 ** 300\n", "N", "N"),
    ],
)
def test_folding_beyond_the_bounds_is_unknown_never_an_exception(constants, stop, name):
    import time

    source = program(f"for i in pl.pipeline(0, {stop}, 1, stage=2):\n    x = pl.load(a, [i], [16])\n")
    source = source.replace("\n\n\n@pl.function", "\n\n" + constants + "\n@pl.function")
    started = time.monotonic()
    result = lower_source(source, "k.py")
    assert time.monotonic() - started < 10
    # Unknown, so the loop takes the dynamic path, as for a constant tilecheck cannot read.
    assert lower_notes(source) == [
        (
            "TL490",
            7 if constants else 6,
            14,
            f"cannot resolve `{name}` statically; lowering this loop with dynamic bounds",
        )
    ]
    assert result.changed and "unroll_rem" in result.source
    assert compiles(result.source) == bool(constants)  # CPython itself refuses the 5,000-digit literal
    from tilecheck.lint.engine import check_source

    assert check_source(source, "k.py").diagnostics == []


def test_folding_within_the_bounds_is_exact():
    source = program("for i in pl.pipeline(0, 2**8 - 250, 1, stage=4):\n    x = i\n")
    result = lower_source(source, "k.py")
    assert result.diagnostics == [] and "pl.pipeline(0, 4, 4, stage=1)" in result.source
    assert result.source.endswith("    x_4 = 4\n    x_5 = 5\n")  # the static tail, folded
