"""Review of issue 10 §5 (second round): carried values of `pl.while_` loops (TL420), a
reassignment in a `strict_ssa` pipelined body (TL423, not lowered), TL420's help, tensor seeds
of iter_args (no TL492) and `stage=` on `pl.while_` (ignored by PyPTO's parser)."""

from __future__ import annotations

from tilecheck.pypto import check_pypto_source, lower_source

_TENSOR = "pl.Tensor[[16], pl.FP32]"
HEADER = f"import pypto.language as pl\n\n\n@pl.function\ndef f(x: {_TENSOR}, n: pl.Scalar[pl.INDEX]) -> {_TENSOR}:\n"
STRICT = HEADER.replace("@pl.function\n", "@pl.function(strict_ssa=True)\n")


def _found(source: str) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.column + 1) for d in check_pypto_source(source, "k.py")]


WHILE_READ = HEADER + (
    "    for (acc,) in pl.while_(init_values=(x,)):\n"
    "        pl.cond(n > 0)\n"
    "        for i in pl.pipeline(4, stage=2):\n"
    "            y = pl.add(acc, 1.0)\n"
    "        out = pl.yield_(acc)\n"
    "    return out\n"
)


def test_tl420_reports_a_carried_value_of_an_enclosing_while_loop():
    (finding,) = check_pypto_source(WHILE_READ, "k.py")
    assert (finding.code, finding.span.line, finding.span.column + 1) == ("TL420", 9, 24)
    assert finding.message == (
        "LowerPipelineLoops would leave `acc`, a carried value of the enclosing pl.while_() loop, "
        "undefined in the replicated body: pass it through this loop's init_values"
    )
    assert lower_source(WHILE_READ, "k.py").changed is False  # an error blocks the lowering


def test_a_while_loops_carried_value_passed_through_init_values_is_clean():
    source = HEADER + (
        "    for (acc,) in pl.while_(init_values=(x,)):\n"
        "        pl.cond(n > 0)\n"
        "        for i, (v,) in pl.pipeline(4, stage=2, init_values=(acc,)):\n"
        "            y = pl.add(v, 1.0)\n"
        "            w = pl.yield_(v)\n"
        "        out = pl.yield_(acc)\n"
        "    return out\n"
    )
    assert _found(source) == []
    # the while loop's own names shadow an outer loop's iter_args of the same name
    shadow = HEADER + (
        "    for k, (acc,) in pl.range(4, init_values=(x,)):\n"
        "        for (acc,) in pl.while_(init_values=(x,)):\n"
        "            pl.cond(n > 0)\n"
        "            for i in pl.pipeline(4, stage=2):\n"
        "                y = pl.add(acc, 1.0)\n"
        "            out = pl.yield_(acc)\n"
        "        r = pl.yield_(out)\n"
        "    return r\n"
    )
    assert [(d.code, d.message.split(",")[1]) for d in check_pypto_source(shadow, "k.py")] == [
        ("TL420", " a carried value of the enclosing pl.while_() loop")
    ]


def test_tl420_help_applied_literally_is_clean():
    source = HEADER + (
        "    for j, (acc,) in pl.range(4, init_values=(x,)):\n"
        "        for i in pl.pipeline(4, stage=2):\n"
        "            y = pl.add(acc, 1.0)\n"
        "        r = pl.yield_(acc)\n"
        "    return r\n"
    )
    (finding,) = check_pypto_source(source, "k.py")
    assert finding.help == (
        "Carry the value into the pipelined loop: `for i, (v,) in pl.pipeline(..., init_values=(acc,))`, "
        "read `v` instead of `acc` in its body, and end the body with `v_out = pl.yield_(v)` "
        "(or reassign `v` there, in a function without `strict_ssa`)."
    )
    yielded = source.replace(
        "        for i in pl.pipeline(4, stage=2):\n            y = pl.add(acc, 1.0)\n",
        "        for i, (v,) in pl.pipeline(4, stage=2, init_values=(acc,)):\n"
        "            y = pl.add(v, 1.0)\n            v_out = pl.yield_(v)\n",
    )
    assert _found(yielded) == []
    reassigned = source.replace(
        "        for i in pl.pipeline(4, stage=2):\n            y = pl.add(acc, 1.0)\n",
        "        for i, (v,) in pl.pipeline(4, stage=2, init_values=(acc,)):\n            v = pl.add(v, 1.0)\n",
    )
    assert _found(reassigned) == []


STRICT_REASSIGN = STRICT + "    for i in pl.pipeline(8, stage=2):\n        x = pl.add(x, 1.0)\n    return x\n"


def test_a_strict_reassignment_in_a_pipelined_body_is_tl423_and_is_not_lowered():
    (finding,) = check_pypto_source(STRICT_REASSIGN, "k.py")
    assert (finding.code, finding.span.line, finding.span.column + 1) == ("TL423", 7, 9)
    assert finding.severity.value == "warning"
    assert finding.message == (
        "under strict_ssa this assignment defines a new `x` local to the loop body: the loop does not "
        "carry `x`, so each of the 2 stages would read the `x` from before the loop; carry it through "
        "this loop's init_values and pl.yield_"
    )
    result = lower_source(STRICT_REASSIGN, "k.py")
    assert result.source == STRICT_REASSIGN and not result.changed
    assert [(d.code, d.span.line, d.span.column + 1, d.message) for d in result.diagnostics] == [
        (
            "TL491",
            6,
            9,
            "this pipeline loop was left as it is: under strict_ssa the loop body's `x` is a new "
            "variable, not a carried value",
        ),
        ("TL423", 7, 9, finding.message),
    ]


def test_strict_functions_still_lower_loops_without_such_a_reassignment():
    source = STRICT + (
        "    for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(x,)):\n"
        "        y = pl.add(acc, 1.0)\n"
        "        out = pl.yield_(y)\n"
        "    return out\n"
    )
    assert _found(source) == []
    result = lower_source(source, "k.py")
    assert result.changed and result.diagnostics == []
    assert "for i, (acc,) in pl.pipeline(0, 4, 2, stage=1, init_values=(x,)):" in result.source
    stage_one = STRICT + "    for i in pl.pipeline(8, stage=1):\n        x = pl.add(x, 1.0)\n    return x\n"
    assert _found(stage_one) == []


def test_an_iter_arg_seeded_by_a_tensor_parameter_is_a_tensor_no_tl492():
    for body in (
        "    for i, (acc,) in pl.pipeline(4, stage=2, init_values=(x,)):\n        acc = pl.add(acc, 1.0)\n",
        "    for i, (acc,) in pl.pipeline(0, n, 1, stage=3, init_values=(x,)):\n        acc = pl.add(acc, 1.0)\n",
        "    for i, (acc,) in pl.pipeline(2, stage=4, init_values=(x,)):\n        acc = pl.add(acc, 1.0)\n",
    ):
        result = lower_source(HEADER + body + "    return acc\n", "k.py")
        assert result.changed and result.diagnostics == [], body
        assert "pipeline_membership" not in result.source  # tensor ops are not tagged


def test_an_iter_arg_seeded_by_a_tile_is_still_tagged_and_an_unknown_seed_still_noted():
    tile = HEADER.replace("n: pl.Scalar[pl.INDEX]", "t0: pl.Tile[[16], pl.FP32]") + (
        "    for i, (acc,) in pl.pipeline(0, 4, 1, stage=2, init_values=(t0,)):\n"
        "        acc = pl.add(acc, 1.0)\n    return acc\n"
    )
    lowered = lower_source(tile, "k.py").source
    assert lowered.count('attrs={"pipeline_membership": "0:') == 2
    unknown = tile.replace("t0: pl.Tile[[16], pl.FP32]", "t0")
    assert [(d.code, d.span.line) for d in lower_source(unknown, "k.py").diagnostics] == [("TL492", 7)]


def test_stage_on_a_while_loop_is_ignored_by_pyptos_parser_and_not_reported():
    source = HEADER + (
        "    for (acc,) in pl.while_(init_values=(x,), stage=2):\n"
        "        pl.cond(n > 0)\n"
        "        y = pl.add(acc, 2.0)\n"
        "        out = pl.yield_(y)\n"
        "    return out\n"
    )
    assert _found(source) == []
    assert _found(source.replace("pl.while_(init_values=(x,), stage=2)", "pl.range(4, stage=2)")) == [
        ("TL404", 6, 31)
    ]
