"""Property tests: lowering preserves behaviour (trace equivalence), is idempotent, re-parses."""

from __future__ import annotations

import ast
import textwrap

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.pypto.interp import Interpreter, lowered_sequence
from tilecheck.pypto import lower_source

HEADER = "import pypto.language as pl\n\n\n@pl.function\ndef f(a, n, s, m, s0, t0, out):\n"


@st.composite
def bounds(draw, names: tuple[str, str]) -> tuple[str, dict[str, int], bool]:
    """`start, stop, step, stage=F` text, the runtime values it needs, and whether it is static."""
    dynamic_start = draw(st.booleans())
    dynamic_stop = draw(st.booleans())
    static = not (dynamic_start or dynamic_stop)
    start = draw(st.integers(-6, 6))
    stop = draw(st.integers(-6, 16))
    step = draw(st.integers(-3, 3).filter(lambda v: v != 0) if static else st.integers(1, 3))
    factor = draw(st.integers(1, 5))
    values = {}
    start_text, stop_text = str(start), str(stop)
    if dynamic_start:
        start_text, values[names[0]] = names[0], start
    if dynamic_stop:
        stop_text, values[names[1]] = names[1], stop
    return f"{start_text}, {stop_text}, {step}, stage={factor}", values, static


def body(kind: str, var: str, k: int) -> tuple[str, str, str]:
    """(statements before the loop, loop header suffix + body, statements after)."""
    if kind == "plain":
        return (
            "",
            f"    t = pl.tile.load(a, [{var} * 16, 0], [16, 16])\n"
            "    u = pl.tile.add(t, t)\n"
            f"    pl.tile.store(u, [{var} * 16, 0], out)\n",
            "return out\n",
        )
    if kind == "ssa":
        return (
            "",
            f"    t = pl.tile.load(a, [{var} * 16], [16])\n"
            "    nxt = pl.tile.add(acc, t)\n"
            f"    other = c + {var}\n",
            "return (r, r2)\n",
        )
    if kind == "nonssa":
        return (
            "acc = pl.tile.full([16], pl.FP32, 0.0)\nlast = -1\n",
            f"    t = pl.tile.load(a, [{var} * 16], [16])\n    acc = pl.add(acc, t)\n    last = {var}\n",
            "return (acc, last)\n",
        )
    return (
        "acc = a\n",
        f"    t = pl.tile.load(a, [{var} * 3 + 1], [16])\n"
        f"    if {var} == {k}:\n"
        "        acc = pl.matmul(t, t)\n"
        "    else:\n"
        "        acc = pl.matmul_acc(acc, t, t)\n",
        "return acc\n",
    )


@st.composite
def programs(draw) -> tuple[str, dict[str, int]]:
    kind = draw(st.sampled_from(["plain", "ssa", "nonssa", "cond"]))
    header, values, _ = draw(bounds(("s", "n")))
    before, loop_body, after = body(kind, "i", draw(st.integers(-2, 8)))
    target = "i, (acc, c)" if kind == "ssa" else "i"
    extra = ", init_values=(s0, t0)" if kind == "ssa" else ""
    nested = draw(st.booleans())
    if nested:
        inner_header, inner_values, _ = draw(bounds(("s", "m")))
        if "s" in inner_values and "s" in values:
            inner_values["s"] = values["s"]
        values.update(inner_values)
        loop_body = (
            loop_body
            + f"    for j in pl.pipeline({inner_header}):\n"
            + "        w = pl.tile.load(a, [i * 16, j * 16], [16, 16])\n"
            + "        pl.tile.store(w, [i, j], out)\n"
        )
    if kind == "ssa":
        loop_body += "    r, r2 = pl.yield_(nxt, other)\n"
    loop = f"for {target} in pl.pipeline({header}{extra}):\n"
    source = HEADER + textwrap.indent(before + loop + loop_body + after, "    ")
    for name in ("n", "s", "m"):
        values.setdefault(name, 0)
    return source, values


def _lower(source: str) -> str:
    result = lower_source(source, "k.py")
    assert not [d for d in result.diagnostics if d.severity.value == "error"], result.diagnostics
    return result.source


COMMON = settings(
    max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@COMMON
@given(programs())
def test_lowered_program_issues_the_same_calls_and_returns_the_same_values(case):
    source, values = case
    lowered = _lower(source)
    arguments = dict(values, a="A", s0="S0", t0=100, out="OUT")
    expected = Interpreter(source, quirk=True).run(**arguments)
    actual = Interpreter(lowered).run(**arguments)
    assert actual.trace == expected.trace
    assert actual.result == expected.result


@COMMON
@given(programs())
def test_lowering_is_idempotent_and_reparses(case):
    source, _ = case
    once = _lower(source)
    ast.parse(once)
    assert _lower(once) == once


@settings(max_examples=500, deadline=None, database=None)
@given(st.integers(-20, 20), st.integers(-20, 40), st.integers(1, 4), st.integers(2, 6))
def test_dynamic_sequence_matches_the_source_loop_unless_stop_is_below_start(start, stop, step, factor):
    sequence = lowered_sequence(start, stop, step, factor)
    if stop >= start:
        assert sequence == list(range(start, stop, step))
    else:
        assume(True)
        assert len(sequence) <= factor - 1
        assert sequence == sequence[:1] + [sequence[0] + k * step for k in range(1, len(sequence))]


def test_stop_below_start_runs_the_reference_example_clones():
    # Reference §1.5: n = -1, F = 4 gives main_end = -4 and rem = 3: clones at -4, -3, -2.
    source = HEADER + "    for i in pl.pipeline(0, n, 1, stage=4):\n        pl.tile.load(a, [i], [16])\n"
    lowered = _lower(source)
    run = Interpreter(lowered).run(a="A", n=-1, s=0, m=0, s0=0, t0=0, out="O")
    assert [entry[1][1] for entry in run.trace] == [(-4,), (-3,), (-2,)]
    assert Interpreter(source).run(a="A", n=-1, s=0, m=0, s0=0, t0=0, out="O").trace == []
