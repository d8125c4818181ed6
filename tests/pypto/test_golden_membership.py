"""Golden tests: `pipeline_membership` tags (pypto-lowering.md §2), as text."""

from __future__ import annotations

from tests.pypto.helpers import expect, lower_body

LOAD = "pl.tile.load(a, [{}, {}], [16, 16], target_memory=pl.Mem.Mat{})"


def _load(row: str, col: str, tag: str) -> str:
    return LOAD.format(row, col, f', attrs={{"pipeline_membership": "{tag}"}}')


def test_m01_nested_static_memberships_inner_first():
    expected = f"""
        for i in pl.pipeline(0, 2, 2, stage=1):
            for j in pl.pipeline(0, 2, 2, stage=1):
                t = {_load("i * 16", "j * 16", "0:0;1:0")}
                t_1 = {_load("i * 16", "(j + 1) * 16", "0:1;1:0")}
            u = {_load("i * 16", "0", "1:0")}
            for j_1 in pl.pipeline(0, 2, 2, stage=1):
                t_2 = {_load("(i + 1) * 16", "j_1 * 16", "0:0;1:1")}
                t_3 = {_load("(i + 1) * 16", "(j_1 + 1) * 16", "0:1;1:1")}
            u_1 = {_load("(i + 1) * 16", "0", "1:1")}
        for j_2 in pl.pipeline(0, 2, 2, stage=1):
            t_4 = {_load("pl.const(2, pl.INDEX) * pl.const(16, pl.INDEX)", "j_2 * 16", "0:0;2:0")}
            t_5 = {_load("pl.const(2, pl.INDEX) * pl.const(16, pl.INDEX)", "(j_2 + 1) * 16", "0:1;2:0")}
        u_2 = {_load("pl.const(2, pl.INDEX) * pl.const(16, pl.INDEX)", "0", "2:0")}
        """
    assert lower_body(
        f"""
        for i in pl.pipeline(0, 3, 1, stage=2):
            for j in pl.pipeline(0, 2, 1, stage=2):
                t = {LOAD.format("i * 16", "j * 16", "")}
            u = {LOAD.format("i * 16", "0", "")}
        """
    ) == expect(expected)


def test_m02_dynamic_groups_main_then_cascade_from_f_minus_one_down():
    lowered = lower_body(
        f"""
        for i in pl.pipeline(0, n, 1, stage=3):
            t = {LOAD.format("i * 16", "0", "")}
        """
    )
    tags = [
        line.split('"pipeline_membership": ')[1][1:4] for line in lowered.splitlines() if "membership" in line
    ]
    assert tags == ["0:0", "0:1", "0:2", "2:0", "1:0", "1:1"]


def test_acc_matmul_untagged_but_extract_to_acc_and_vec_results_tagged():
    assert lower_body(
        """
        for k in pl.pipeline(0, 2, 1, stage=2):
            lhs = pl.tile.load(a, [0, k * 32], [32, 32], target_memory=pl.Mem.Left)
            acc = pl.tile.matmul(lhs, b)
            part = pl.tile.extract(acc, 0, 0, [32, 32], target_memory=pl.Mem.Acc)
            out2 = pl.tile.store(part, [0, 0], out)
            s1 = pl.tile.get_block_idx()
        """
    ) == expect(
        """
        for k in pl.pipeline(0, 2, 2, stage=1):
            lhs = pl.tile.load(a, [0, k * 32], [32, 32], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:0"})
            acc = pl.tile.matmul(lhs, b)
            part = pl.tile.extract(acc, 0, 0, [32, 32], target_memory=pl.Mem.Acc, attrs={"pipeline_membership": "0:0"})
            out2 = pl.tile.store(part, [0, 0], out)
            s1 = pl.tile.get_block_idx()
            lhs_1 = pl.tile.load(a, [0, (k + 1) * 32], [32, 32], target_memory=pl.Mem.Left, attrs={"pipeline_membership": "0:1"})
            acc_1 = pl.tile.matmul(lhs_1, b)
            part_1 = pl.tile.extract(acc_1, 0, 0, [32, 32], target_memory=pl.Mem.Acc, attrs={"pipeline_membership": "0:1"})
            out2_1 = pl.tile.store(part_1, [0, 0], out)
            s1_1 = pl.tile.get_block_idx()
        """
    )


def test_double_buffer_c_tags_the_loops_own_acc_matmuls():
    assert lower_body(
        """
        for k in pl.pipeline(0, 2, 1, stage=2, attrs={"pipeline_double_buffer_c": True}):
            acc = pl.tile.matmul_acc(b, a, b)
        """
    ) == expect(
        """
        for k in pl.pipeline(0, 2, 2, stage=1, attrs={"pipeline_double_buffer_c": True}):
            acc = pl.tile.matmul_acc(b, a, b, attrs={"pipeline_membership": "0:0"})
            acc_1 = pl.tile.matmul_acc(b, a, b, attrs={"pipeline_membership": "0:1"})
        """
    )


def test_inner_double_buffer_c_tag_survives_and_outer_appends_nothing():
    lowered = lower_body(
        """
        for i in pl.pipeline(0, 2, 1, stage=2):
            for k in pl.pipeline(0, 2, 1, stage=2, attrs={"pipeline_double_buffer_c": True}):
                acc = pl.tile.matmul(a, b)
        """
    )
    tags = [
        line.split('"pipeline_membership": ')[1][:5] for line in lowered.splitlines() if "membership" in line
    ]
    assert tags == ['"0:0"', '"0:1"', '"0:0"', '"0:1"']


def test_annotated_tile_results_are_tagged_and_existing_membership_appended_last():
    assert lower_body(
        """
        for i in pl.pipeline(0, 2, 1, stage=2):
            x: pl.Tile[[16], pl.FP32] = pl.add(a, b)
            y: pl.Tensor[[16], pl.FP32] = pl.add(a, b)
            z = pl.tile.add(a, b, attrs={"pipeline_membership": "5:0", "k": 1})
        """
    ) == expect(
        """
        for i in pl.pipeline(0, 2, 2, stage=1):
            x: pl.Tile[[16], pl.FP32] = pl.add(a, b, attrs={"pipeline_membership": "0:0"})
            y: pl.Tensor[[16], pl.FP32] = pl.add(a, b)
            z = pl.tile.add(a, b, attrs={"k": 1, "pipeline_membership": "5:0;0:0"})
            x_1: pl.Tile[[16], pl.FP32] = pl.add(a, b, attrs={"pipeline_membership": "0:1"})
            y_1: pl.Tensor[[16], pl.FP32] = pl.add(a, b)
            z_1 = pl.tile.add(a, b, attrs={"k": 1, "pipeline_membership": "5:0;0:1"})
        """
    )


def test_groups_restart_per_function_and_skip_stage_one_and_zero_trip_loops():
    source = """
        for i in pl.pipeline(0, 0, 1, stage=2):
            t = pl.tile.load(a, [i], [16])
        for i in pl.pipeline(0, 4, 1, stage=1):
            t = pl.tile.load(a, [i], [16])
        for i in pl.pipeline(0, 2, 1, stage=2):
            t = pl.tile.load(a, [i], [16])
        """
    lowered = lower_body(source)
    tags = [
        line.split('"pipeline_membership": ')[1][1:4] for line in lowered.splitlines() if "membership" in line
    ]
    assert tags == ["0:0", "0:1"]
