"""Golden tests: the dynamic-bounds examples of pypto-lowering.md §1.5 and §1.7, as text."""

from __future__ import annotations

import pytest

from tests.pypto.helpers import expect, lower_body


def test_dynamic_step_one_factor_four_cascade_and_names():
    # The seed writes `((n - 0) // 4) * 4 + 0` and `tile_x_t0`; the pass emits what follows.
    assert lower_body(
        """
        for i in pl.pipeline(0, n, 1, stage=4):
            _y = i
        """
    ) == expect(
        """
        unroll_main_end: pl.Scalar[pl.INDEX] = 0 + (n - 0) // 4 * 4
        for i in pl.pipeline(0, unroll_main_end, 4, stage=1):
            _y = i
            _y_1 = i + 1
            _y_2 = i + 2
            _y_3 = i + 3
        unroll_rem: pl.Scalar[pl.INDEX] = n - unroll_main_end
        if unroll_rem == 1:
            _y_4 = unroll_main_end
        else:
            if unroll_rem == 2:
                _y_5 = unroll_main_end
                _y_6 = unroll_main_end + 1
            else:
                if unroll_rem == 3:
                    _y_7 = unroll_main_end
                    _y_8 = unroll_main_end + 1
                    _y_9 = unroll_main_end + 2
        """
    )


@pytest.mark.parametrize(
    ("header", "main_end", "remainder", "main"),
    [
        (
            "pl.pipeline(0, n, 1, stage=4)",
            "0 + (n - 0) // 4 * 4",
            "n - unroll_main_end",
            "pl.pipeline(0, unroll_main_end, 4, stage=1)",
        ),
        (
            "pl.pipeline(0, n, 2, stage=4)",
            "0 + (n - 0 + 1) // 2 // 4 * 8",
            "(n - 0 + 1) // 2 - (n - 0 + 1) // 2 // 4 * 4",
            "pl.pipeline(0, unroll_main_end, 8, stage=1)",
        ),
        (
            "pl.pipeline(s, 16, 3, stage=2)",
            "s + (16 - s + 2) // 3 // 2 * 6",
            "(16 - s + 2) // 3 - (16 - s + 2) // 3 // 2 * 2",
            "pl.pipeline(s, unroll_main_end, 6, stage=1)",
        ),
    ],
)
def test_dynamic_main_end_and_remainder_forms(header, main_end, remainder, main):
    lines = lower_body(f"for i in {header}:\n    _y = i\n").splitlines()
    assert lines[0] == f"unroll_main_end: pl.Scalar[pl.INDEX] = {main_end}"
    assert lines[1] == f"for i in {main}:"
    rem_line = next(line for line in lines if line.startswith("unroll_rem"))
    assert rem_line == f"unroll_rem: pl.Scalar[pl.INDEX] = {remainder}"


def test_dynamic_general_step_cascade_offsets():
    assert lower_body(
        """
        for i in pl.pipeline(0, n, 2, stage=3):
            _y = i
        """
    ) == expect(
        """
        unroll_main_end: pl.Scalar[pl.INDEX] = 0 + (n - 0 + 1) // 2 // 3 * 6
        for i in pl.pipeline(0, unroll_main_end, 6, stage=1):
            _y = i
            _y_1 = i + 2
            _y_2 = i + 4
        unroll_rem: pl.Scalar[pl.INDEX] = (n - 0 + 1) // 2 - (n - 0 + 1) // 2 // 3 * 3
        if unroll_rem == 1:
            _y_3 = unroll_main_end
        else:
            if unroll_rem == 2:
                _y_4 = unroll_main_end
                _y_5 = unroll_main_end + 2
        """
    )


def test_two_dynamic_pipelines_number_the_generated_names():
    assert lower_body(
        """
        for i in pl.pipeline(0, n, 1, stage=2):
            _y = i
        for j in pl.pipeline(0, n, 1, stage=2):
            _z = j
        """
    ) == expect(
        """
        unroll_main_end: pl.Scalar[pl.INDEX] = 0 + (n - 0) // 2 * 2
        for i in pl.pipeline(0, unroll_main_end, 2, stage=1):
            _y = i
            _y_1 = i + 1
        unroll_rem: pl.Scalar[pl.INDEX] = n - unroll_main_end
        if unroll_rem == 1:
            _y_2 = unroll_main_end
        unroll_main_end_1: pl.Scalar[pl.INDEX] = 0 + (n - 0) // 2 * 2
        for j in pl.pipeline(0, unroll_main_end_1, 2, stage=1):
            _z = j
            _z_1 = j + 1
        unroll_rem_1: pl.Scalar[pl.INDEX] = n - unroll_main_end_1
        if unroll_rem_1 == 1:
            _z_2 = unroll_main_end_1
        """
    )


def test_dynamic_iter_args_thread_through_rem_return_vars():
    assert lower_body(
        """
        for i, (acc,) in pl.pipeline(0, n, 1, stage=4, init_values=(s0,)):
            nxt = acc + i
            r = pl.yield_(nxt)
        """
    ) == expect(
        """
        unroll_main_end: pl.Scalar[pl.INDEX] = 0 + (n - 0) // 4 * 4
        for i, (acc,) in pl.pipeline(0, unroll_main_end, 4, stage=1, init_values=(s0,)):
            nxt = acc + i
            nxt_1 = nxt + (i + 1)
            nxt_2 = nxt_1 + (i + 2)
            nxt_3 = nxt_2 + (i + 3)
            r_main = pl.yield_(nxt_3)
        unroll_rem: pl.Scalar[pl.INDEX] = n - unroll_main_end
        if unroll_rem == 1:
            nxt_4 = r_main + unroll_main_end
            r = pl.yield_(nxt_4)
        else:
            if unroll_rem == 2:
                nxt_5 = r_main + unroll_main_end
                nxt_6 = nxt_5 + (unroll_main_end + 1)
                r_rem2 = pl.yield_(nxt_6)
            else:
                if unroll_rem == 3:
                    nxt_7 = r_main + unroll_main_end
                    nxt_8 = nxt_7 + (unroll_main_end + 1)
                    nxt_9 = nxt_8 + (unroll_main_end + 2)
                    r_rem3 = pl.yield_(nxt_9)
                else:
                    r_rem3 = pl.yield_(r_main)
                r_rem2 = pl.yield_(r_rem3)
            r = pl.yield_(r_rem2)
        """
    )


def test_dynamic_loop_comment_stays_on_main_loop_after_main_end():
    assert lower_body(
        """
        x0 = 1

        # stream the rows
        for i in pl.pipeline(0, n, 1, stage=2):
            _y = i
        """
    ) == expect(
        """
        x0 = 1

        unroll_main_end: pl.Scalar[pl.INDEX] = 0 + (n - 0) // 2 * 2
        # stream the rows
        for i in pl.pipeline(0, unroll_main_end, 2, stage=1):
            _y = i
            _y_1 = i + 1
        unroll_rem: pl.Scalar[pl.INDEX] = n - unroll_main_end
        if unroll_rem == 1:
            _y_2 = unroll_main_end
        """
    )


def test_nested_static_pipelines_name_inner_loop_vars_per_outer_clone():
    assert lower_body(
        """
        for i in pl.pipeline(0, 2, 1, stage=2):
            for j in pl.pipeline(0, 2, 1, stage=2):
                _y = i + j
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 2, 2, stage=1):
            for j in pl.pipeline(0, 2, 2, stage=1):
                _y = i + j
                _y_1 = i + (j + 1)
            for j_1 in pl.pipeline(0, 2, 2, stage=1):
                _y_2 = i + 1 + j_1
                _y_3 = i + 1 + (j_1 + 1)
        """
    )


def test_outer_stage_one_only_lowers_the_inner_loop():
    assert lower_body(
        """
        for i in pl.pipeline(4, stage=1):
            for j in pl.pipeline(0, 3, 1, stage=2):
                _y = i + j
        """
    ) == expect(
        """
        for i in pl.pipeline(4, stage=1):
            for j in pl.pipeline(0, 2, 2, stage=1):
                _y = i + j
                _y_1 = i + (j + 1)
            _y_2 = i + 2
        """
    )
