"""A carried value reassigned in the body of a non-strict function, without `pl.yield_`
(issue 10 §5): PyPTO's SSA conversion supplies the yield and the pass lowers the loop, so
tilecheck lowers it too, keeping the iter_arg's name in every clone."""

from __future__ import annotations

import pytest

from tests.pypto.helpers import expect, lower_body, lower_notes
from tests.pypto.interp import Interpreter
from tilecheck.pypto import check_pypto_source, lower_source

HEADER = "import pypto.language as pl\n\n\n@pl.function\ndef f(self, x: pl.Tensor, n: pl.Scalar):\n"


def _lowered(body: str) -> str:
    return lower_body(body)


def test_the_issue_case_lowers_to_two_reassigning_clones():
    assert _lowered(
        """
        for i, (acc,) in pl.pipeline(4, stage=2, init_values=(s0,)):
            acc = pl.add(acc, 1.0)
        """
    ) == expect(
        """
        for i, (acc,) in pl.pipeline(0, 4, 2, stage=1, init_values=(s0,)):
            acc = pl.add(acc, 1.0)
            acc = pl.add(acc, 1.0)
        """
    )


def test_a_static_tail_reads_the_main_loops_result_by_name():
    assert _lowered(
        """
        for i, (acc,) in pl.pipeline(5, stage=2, init_values=(s0,)):
            t = pl.mul(acc, i)
            acc = pl.add(t, 1.0)
        """
    ) == expect(
        """
        for i, (acc,) in pl.pipeline(0, 4, 2, stage=1, init_values=(s0,)):
            t = pl.mul(acc, i)
            acc = pl.add(t, 1.0)
            t_1 = pl.mul(acc, i + 1)
            acc = pl.add(t_1, 1.0)
        t_2 = pl.mul(acc, 4)
        acc = pl.add(t_2, 1.0)
        """
    )


def test_a_pure_tail_feeds_the_init_values_into_clone_0_and_binds_the_results_after_it():
    """Reference §1.4: no loop; clone 0 reads the init values, then one assignment per carried
    value binds the last clone's (`c`, never reassigned, is its init value)."""
    assert _lowered(
        """
        for i, (acc, c) in pl.pipeline(1, stage=2, init_values=(s0, t0)):
            acc = pl.add(acc, c)
        """
    ) == expect(
        """
        acc = pl.add(s0, t0)
        acc = acc
        c = t0
        """
    )
    assert _lowered(
        """
        for i, (acc,) in pl.pipeline(1, 4, 1, stage=4, init_values=(s0,)):
            t = pl.mul(acc, i)
            acc = pl.add(t, acc)
            u = pl.add(acc, 2.0)
        """
    ) == expect(
        """
        t = pl.mul(s0, 1)
        acc = pl.add(t, s0)
        u = pl.add(acc, 2.0)
        t_1 = pl.mul(acc, 2)
        acc = pl.add(t_1, acc)
        u_1 = pl.add(acc, 2.0)
        t_2 = pl.mul(acc, 3)
        acc = pl.add(t_2, acc)
        u_2 = pl.add(acc, 2.0)
        acc = acc
        """
    )


def test_a_pure_tail_whose_first_assignment_is_not_plain_binds_the_init_value_first():
    assert _lowered(
        """
        for i, (acc,) in pl.pipeline(1, stage=2, init_values=(s0,)):
            acc += 1.0
        """
    ) == expect(
        """
        acc = s0
        acc += 1.0
        """
    )
    assert _lowered(
        """
        for i, (acc,) in pl.pipeline(1, stage=2, init_values=(s0,)):
            if n > 0:
                acc = pl.add(acc, 1.0)
        """
    ) == expect(
        """
        acc = s0
        if n > 0:
            acc = pl.add(acc, 1.0)
        """
    )


def test_dynamic_bounds_reassign_in_the_remainder_cascade():
    assert _lowered(
        """
        for i, (acc,) in pl.pipeline(n, stage=3, init_values=(s0,)):
            acc = pl.add(acc, i)
        """
    ) == expect(
        """
        unroll_main_end: pl.Scalar[pl.INDEX] = 0 + (n - 0) // 3 * 3
        for i, (acc,) in pl.pipeline(0, unroll_main_end, 3, stage=1, init_values=(s0,)):
            acc = pl.add(acc, i)
            acc = pl.add(acc, i + 1)
            acc = pl.add(acc, i + 2)
        unroll_rem: pl.Scalar[pl.INDEX] = n - unroll_main_end
        if unroll_rem == 1:
            acc = pl.add(acc, unroll_main_end)
        else:
            if unroll_rem == 2:
                acc = pl.add(acc, unroll_main_end)
                acc = pl.add(acc, unroll_main_end + 1)
        """
    )


CASES = [
    ("pl.pipeline({n}, stage={f}, init_values=(x,))", "acc = pl.add(acc, i)"),
    (
        "pl.pipeline(1, {n}, 2, stage={f}, init_values=(x,))",
        "t = pl.mul(acc, i)\n        acc = pl.add(t, 1.0)",
    ),
    (
        "pl.pipeline(0, n, 1, stage={f}, init_values=(x,))",
        "acc = pl.add(acc, i)\n        acc = pl.sub(acc, 2.0)",
    ),
]


@pytest.mark.parametrize("header", [case[0] for case in CASES], ids=["static", "static-step-2", "dynamic"])
@pytest.mark.parametrize("factor", [2, 3, 4])
@pytest.mark.parametrize("trips", [0, 1, 2, 5, 8])
def test_lowered_code_issues_the_same_calls_and_returns_the_same_value(header, factor, trips):
    body = dict(CASES)[header]
    source = (
        HEADER + f"    for i, (acc,) in {header.format(n=trips, f=factor)}:\n        {body}\n    return acc\n"
    )
    result = lower_source(source, "k.py")
    assert result.changed and not [d for d in result.diagnostics if d.code != "TL492"], result.diagnostics
    expected = Interpreter(source).run(x="X", n=trips)
    actual = Interpreter(result.source).run(x="X", n=trips)
    assert (actual.trace, actual.result) == (expected.trace, expected.result)


def test_checks_accept_it_and_the_lowered_code_is_clean_and_stable():
    source = (
        HEADER
        + "    for i, (acc,) in pl.pipeline(5, stage=2, init_values=(x,)):\n        acc = pl.add(acc, 1.0)\n    return acc\n"
    )
    assert [d.code for d in check_pypto_source(source, "k.py")] == []
    once = lower_source(source, "k.py").source
    assert [d.code for d in check_pypto_source(once, "k.py")] == []
    assert lower_source(once, "k.py").source == once  # stage=1 everywhere: nothing left to lower


def test_in_a_strict_function_the_missing_yield_is_still_reported():
    source = (
        "import pypto.language as pl\n\n\n@pl.function(strict_ssa=True)\ndef f(self, x: pl.Tensor):\n"
        "    for i, (acc,) in pl.pipeline(4, stage=2, init_values=(x,)):\n        acc = pl.add(acc, 1.0)\n"
    )
    assert [(d.code, d.span.line, d.span.column + 1) for d in check_pypto_source(source, "k.py")] == [
        ("TL417", 6, 9)
    ]


def test_without_a_reassignment_the_missing_yield_is_still_reported():
    source = (
        HEADER
        + "    for i, (acc,) in pl.pipeline(4, stage=2, init_values=(x,)):\n        t = pl.add(acc, 1.0)\n"
    )
    assert [(d.code, d.span.line) for d in check_pypto_source(source, "k.py")] == [("TL417", 6)]


def test_reassigning_the_loop_variable_still_leaves_the_loop_unlowered():
    source = HEADER + (
        "    for i, (acc,) in pl.pipeline(4, stage=2, init_values=(x,)):\n"
        "        acc = pl.add(acc, 1.0)\n        i = 0\n"
    )
    notes = [(code, line, column) for code, line, column, _ in lower_notes(source) if code != "TL492"]
    assert notes == [("TL491", 6, 9)]


# -- TL422: the same value carried by a name that is not an iter_arg ------------------------------


def _codes(source: str) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.column + 1) for d in check_pypto_source(source, "k.py")]


def test_a_reassigned_name_that_is_not_an_iter_arg_is_a_warning_and_still_lowers():
    source = (
        HEADER
        + "    acc = x\n    for i in pl.pipeline(0, 8, 1, stage=4):\n        acc = pl.add(acc, 1.0)\n    return acc\n"
    )
    (warning,) = check_pypto_source(source, "k.py")
    assert (warning.code, warning.span.line, warning.span.column + 1, warning.severity.value) == (
        "TL422",
        8,
        9,
        "warning",
    )
    assert warning.message == (
        "LowerPipelineLoops would copy this reassignment of `acc` into each of the 4 stages without "
        "carrying its value: PyPTO's output fails SSA verification and does not parse back; carry `acc` "
        "through this loop's init_values"
    )
    result = lower_source(source, "k.py")
    assert result.changed and [d.code for d in result.diagnostics if d.code != "TL492"] == ["TL422"]


def test_no_tl422_for_iteration_local_names_strict_functions_stage_1_or_enclosing_carried_values():
    """A strict function gets TL423 instead (tests/pypto/test_strict_and_while.py)."""
    local = (
        HEADER
        + "    for i in pl.pipeline(0, 8, 1, stage=4):\n        t = pl.mul(x, i)\n        t = pl.add(t, 1.0)\n"
    )
    assert _codes(local) == []
    strict = (
        "import pypto.language as pl\n\n\n@pl.function(strict_ssa=True)\ndef f(self, x: pl.Tensor):\n"
        "    for i in pl.pipeline(0, 8, 1, stage=4):\n        x = pl.add(x, 1.0)\n"
    )
    assert _codes(strict) == [("TL423", 7, 9)]
    single = HEADER + "    for i in pl.pipeline(0, 8, 1, stage=1):\n        x = pl.add(x, 1.0)\n"
    assert _codes(single) == []
    enclosing = HEADER + (
        "    for k, (acc,) in pl.range(4, init_values=(x,)):\n"
        "        for i in pl.pipeline(8, stage=2):\n            acc = pl.add(acc, i)\n"
        "        r = pl.yield_(acc)\n"
    )
    assert _codes(enclosing) == [("TL420", 8, 13)]
