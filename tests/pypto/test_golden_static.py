"""Golden tests: every printed static-bounds example of pypto-lowering.md §1, as text."""

from __future__ import annotations

from tests.pypto.helpers import expect, lower_body


def test_seed_example_static_n10_f4_uses_the_pass_names_and_pl_const():
    # The seed names clones tile_x_0.._3 and writes `8 * 128`; the reference (the real pass) wins.
    assert lower_body(
        """
        for i in pl.pipeline(0, 10, 1, stage=4):
            tile_x = pl.tile.load(a, [i * 128], [128])
            pl.tile.store(tile_x, [i * 128], out)
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 8, 4, stage=1):
            tile_x = pl.tile.load(a, [i * 128], [128], attrs={"pipeline_membership": "0:0"})
            pl.tile.store(tile_x, [i * 128], out)
            tile_x_1 = pl.tile.load(a, [(i + 1) * 128], [128], attrs={"pipeline_membership": "0:1"})
            pl.tile.store(tile_x_1, [(i + 1) * 128], out)
            tile_x_2 = pl.tile.load(a, [(i + 2) * 128], [128], attrs={"pipeline_membership": "0:2"})
            pl.tile.store(tile_x_2, [(i + 2) * 128], out)
            tile_x_3 = pl.tile.load(a, [(i + 3) * 128], [128], attrs={"pipeline_membership": "0:3"})
            pl.tile.store(tile_x_3, [(i + 3) * 128], out)
        tile_x_4 = pl.tile.load(a, [pl.const(8, pl.INDEX) * pl.const(128, pl.INDEX)], [128], attrs={"pipeline_membership": "1:0"})
        pl.tile.store(tile_x_4, [pl.const(8, pl.INDEX) * pl.const(128, pl.INDEX)], out)
        tile_x_5 = pl.tile.load(a, [pl.const(9, pl.INDEX) * pl.const(128, pl.INDEX)], [128], attrs={"pipeline_membership": "1:1"})
        pl.tile.store(tile_x_5, [pl.const(9, pl.INDEX) * pl.const(128, pl.INDEX)], out)
        """
    )


def test_main_loop_without_tail_prints_start_stop_and_multiplied_step():
    assert lower_body(
        """
        for i in pl.pipeline(0, 8, 1, stage=4):
            _y = i
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 8, 4, stage=1):
            _y = i
            _y_1 = i + 1
            _y_2 = i + 2
            _y_3 = i + 3
        """
    )


def test_step_two_clones_use_premultiplied_offsets():
    assert lower_body(
        """
        for i in pl.pipeline(0, 16, 2, stage=4):
            _y = i
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 16, 8, stage=1):
            _y = i
            _y_1 = i + 2
            _y_2 = i + 4
            _y_3 = i + 6
        """
    )


def test_static_tail_uses_literals_and_a_bare_literal_prints_plain():
    assert lower_body(
        """
        for i in pl.pipeline(0, 10, 1, stage=4):
            _y = i
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 8, 4, stage=1):
            _y = i
            _y_1 = i + 1
            _y_2 = i + 2
            _y_3 = i + 3
        _y_4 = 8
        _y_5 = 9
        """
    )


def test_negative_static_step():
    assert lower_body(
        """
        for i in pl.pipeline(10, 0, -1, stage=4):
            _y = i
        """
    ) == expect(
        """
        for i in pl.pipeline(10, 2, -4, stage=1):
            _y = i
            _y_1 = i + -1
            _y_2 = i + -2
            _y_3 = i + -3
        _y_4 = 2
        _y_5 = 1
        """
    )


def test_substitution_keeps_structure_inside_bigger_expressions():
    assert lower_body(
        """
        for i in pl.pipeline(0, 4, 1, stage=2):
            x = (i) * 128
            y = b + i
            z = i * 128 + b
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 4, 2, stage=1):
            x = (i) * 128
            y = b + i
            z = i * 128 + b
            x_1 = (i + 1) * 128
            y_1 = b + (i + 1)
            z_1 = (i + 1) * 128 + b
        """
    )


def test_static_tail_literal_in_constant_arithmetic_becomes_pl_const():
    assert lower_body(
        """
        for i in pl.pipeline(0, 10, 1, stage=3):
            x = i * 3
            y = i * 3 + b
            z = b + i
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 9, 3, stage=1):
            x = i * 3
            y = i * 3 + b
            z = b + i
            x_1 = (i + 1) * 3
            y_1 = (i + 1) * 3 + b
            z_1 = b + (i + 1)
            x_2 = (i + 2) * 3
            y_2 = (i + 2) * 3 + b
            z_2 = b + (i + 2)
        x_3 = pl.const(9, pl.INDEX) * pl.const(3, pl.INDEX)
        y_3 = pl.const(9, pl.INDEX) * pl.const(3, pl.INDEX) + b
        z_3 = b + 9
        """
    )


def test_trip_count_below_factor_gives_clones_only_and_drops_the_loop_comment():
    assert lower_body(
        """
        x0 = 1

        # the loop's own comment
        for i in pl.pipeline(0, 3, 1, stage=4):
            # body comment
            _y = i  # trailing
        """
    ) == expect(
        """
        x0 = 1

        # body comment
        _y = 0  # trailing
        # body comment
        _y_1 = 1  # trailing
        # body comment
        _y_2 = 2  # trailing
        """
    )


def test_zero_trip_demotes_to_range_keeping_other_attrs():
    assert lower_body(
        """
        for i in pl.pipeline(5, 2, stage=2, attrs={"pipeline_overlap_stores": False}):
            _y = i
        for j in pl.pipeline(0, 0, 1, stage=4):
            _z = j
        """
    ) == expect(
        """
        for i in pl.range(5, 2, attrs={"pipeline_overlap_stores": False}):
            _y = i
        for j in pl.range(0, 0, 1):
            _z = j
        """
    )


def test_stage_one_is_a_no_op_even_with_a_runtime_step():
    body = """
        for i in pl.pipeline(0, 8, s, stage=1):
            _y = i
        for j in pl.pipeline(8, stage=1):
            _z = j
        """
    assert lower_body(body) == expect(body)


def test_main_loop_keeps_other_attrs_and_strips_pipeline_stages():
    assert lower_body(
        """
        for i in pl.pipeline(0, 4, 1, stage=2, attrs={"pipeline_stages": 7, "pipeline_overlap_stores": True}):
            _y = i
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 4, 2, stage=1, attrs={"pipeline_overlap_stores": True}):
            _y = i
            _y_1 = i + 1
        """
    )


def test_fourth_positional_argument_is_dropped_and_stage_expression_is_folded():
    assert lower_body(
        """
        for i in pl.pipeline(0, 8, 1, 99, stage=1 + 1):
            _y = i
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 8, 2, stage=1):
            _y = i
            _y_1 = i + 1
        """
    )


def test_stop_only_header_gets_explicit_start_and_step():
    assert lower_body(
        """
        for i in pl.pipeline(8, stage=4):
            _y = i
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 8, 4, stage=1):
            _y = i
            _y_1 = i + 1
            _y_2 = i + 2
            _y_3 = i + 3
        """
    )


def test_iter_args_static_with_tail_section_1_6():
    assert lower_body(
        """
        for i, (a1, c) in pl.pipeline(1, 6, 2, stage=2, init_values=(s0, t0)):
            b1 = a1 + i
            d = c * b1
            r1, r2 = pl.yield_(b1, d)
        """
    ) == expect(
        """
        for i, (a1, c) in pl.pipeline(1, 5, 4, stage=1, init_values=(s0, t0)):
            b1 = a1 + i
            d = c * b1
            b1_1 = b1 + (i + 2)
            d_1 = d * b1_1
            r1_main, r2_main = pl.yield_(b1_1, d_1)
        b1_2 = r1_main + 5
        d_2 = r2_main * b1_2
        r1 = b1_2
        r2 = d_2
        """
    )


def test_iter_args_without_tail_yield_into_the_original_return_vars():
    assert lower_body(
        """
        for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(s0,)):
            nxt = acc + i
            r = pl.yield_(nxt)
        """
    ) == expect(
        """
        for i, (acc,) in pl.pipeline(0, 4, 2, stage=1, init_values=(s0,)):
            nxt = acc + i
            nxt_1 = nxt + (i + 1)
            r = pl.yield_(nxt_1)
        """
    )


def test_pure_tail_with_iter_args_seeds_clone_zero_with_init_values():
    assert lower_body(
        """
        for i, (acc,) in pl.pipeline(0, 2, 1, stage=4, init_values=(s0,)):
            nxt = acc + i
            r = pl.yield_(nxt)
        """
    ) == expect(
        """
        nxt = s0 + 0
        nxt_1 = nxt + 1
        r = nxt_1
        """
    )


def test_comments_stay_on_the_main_loop_and_are_copied_into_every_clone():
    assert lower_body(
        """
        # prefetch loop
        for i in pl.pipeline(0, 3, 1, stage=2):  # header note
            # load one block
            _y = i  # trailing
        """
    ) == expect(
        """
        # prefetch loop
        for i in pl.pipeline(0, 2, 2, stage=1):  # header note
            # load one block
            _y = i  # trailing
            # load one block
            _y_1 = i + 1  # trailing
        # load one block
        _y_2 = 2  # trailing
        """
    )
