"""Real-kernel support (issue 5 §5): jit functions, pl.at scopes, non-SSA bodies, tensor-level
ops, and bounds from module constants, including constants read from sibling modules."""

from __future__ import annotations

import pathlib
import textwrap

import pytest

from tests.pypto.interp import Interpreter
from tilecheck.pypto import lower_source

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "pypto"
CASES = {
    "rmsnorm": FIXTURES / "model" / "rmsnorm.py",
    "mlp": FIXTURES / "model" / "mlp.py",
    "pass_style": FIXTURES / "pass_style.py",
}
CONSTANTS = {
    "HIDDEN": 1024,
    "K_CHUNK": 128,
    "ROWS": 64,
    "INTERMEDIATE": 3072,
    "STAGES": 4,
    "EPS": 1e-6,
    "N_CHUNK": 256,
}


# What PyPTO's own pass gets wrong in these kernels (TL422: a value carried by reassigning a
# name that is not an iter_arg); tilecheck lowers them all the same.
PASS_WARNINGS = {
    "mlp": [("TL422", 18, 17, "gate"), ("TL422", 19, 17, "up")],
    "rmsnorm": [("TL422", 19, 13, "sq_sum")],
}


def _lower(path: pathlib.Path) -> str:
    result = lower_source(path.read_text(), str(path))
    assert [d for d in result.diagnostics if d.code != "TL422"] == []
    assert result.changed
    return result.source


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_warnings_name_what_the_pass_would_break(name):
    result = lower_source(CASES[name].read_text(), str(CASES[name]))
    found = [
        (d.code, d.span.line, d.span.column + 1, d.message.split("`")[1])
        for d in result.diagnostics
        if d.code == "TL422"
    ]
    assert found == PASS_WARNINGS.get(name, [])


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_lowers_to_its_expected_text(name):
    expected = (FIXTURES / "expected" / f"{name}.lowered.txt").read_text()
    assert _lower(CASES[name]) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_lowering_is_idempotent(name):
    once = _lower(CASES[name])
    again = lower_source(once, str(CASES[name]))
    assert again.source == once and not again.changed


def test_rmsnorm_behaves_like_the_source():
    source = CASES["rmsnorm"].read_text()
    arguments = dict(CONSTANTS, x="X", gamma="G", out="OUT")
    before = Interpreter(source, "rmsnorm").run(**arguments)
    after = Interpreter(_lower(CASES["rmsnorm"]), "rmsnorm").run(**arguments)
    assert after.trace == before.trace and after.result == before.result
    assert len(before.trace) > 40


@pytest.mark.parametrize("tokens", [0, 1, 16, 17, 48, 63, 64, 100])
def test_mlp_behaves_like_the_source_for_any_token_count(tokens):
    source = CASES["mlp"].read_text()
    arguments = dict(CONSTANTS, x="X", w_gate="WG", w_up="WU", out="OUT", tokens=tokens)
    before = Interpreter(source, "mlp", quirk=True).run(**arguments)
    after = Interpreter(_lower(CASES["mlp"]), "mlp").run(**arguments)
    assert after.trace == before.trace and after.result == before.result


def _kernel(body: str, preamble: str = "") -> str:
    return (
        "import pypto.language as pl\n"
        + preamble
        + "\n\n@pl.jit\ndef k(a, n, out):\n"
        + textwrap.indent(textwrap.dedent(body).lstrip("\n"), "    ")
    )


def test_unresolved_imported_constant_takes_the_dynamic_path_with_a_note(tmp_path):
    path = tmp_path / "kernel.py"
    path.write_text(
        _kernel(
            "for i in pl.pipeline(SIZE, stage=2):\n    t = pl.tile.load(a, [i], [16])\n",
            "from .missing import SIZE\n",
        )
    )
    result = lower_source(path.read_text(), str(path))
    assert [
        (d.code, d.severity.value, d.span.line, d.span.column, d.message) for d in result.diagnostics
    ] == [
        ("TL490", "info", 7, 13, "cannot resolve `SIZE` statically; lowering this loop with dynamic bounds")
    ]
    assert "unroll_main_end: pl.Scalar[pl.INDEX] = 0 + (SIZE - 0) // 2 * 2" in result.source


def test_constants_from_a_sibling_module_take_the_static_path(tmp_path):
    (tmp_path / "sizes.py").write_text("BASE = 4\nCOUNT = BASE * 2 + 1\n")
    path = tmp_path / "kernel.py"
    path.write_text(
        _kernel("for i in pl.pipeline(BASE, COUNT, stage=2):\n    t = i\n", "from sizes import BASE, COUNT\n")
    )
    lowered = lower_source(path.read_text(), str(path)).source
    assert lowered.endswith(
        "for i in pl.pipeline(BASE, 8, 2, stage=1):\n        t = i\n        t_1 = i + 1\n    t_2 = 8\n"
    )


def test_function_local_constant_is_a_runtime_value():
    lowered = lower_source(_kernel("m = 8\nfor i in pl.pipeline(m, stage=2):\n    t = i\n"), "k.py").source
    assert "unroll_main_end: pl.Scalar[pl.INDEX] = 0 + (m - 0) // 2 * 2" in lowered


def test_reassigned_module_constant_is_not_static():
    source = _kernel("for i in pl.pipeline(N, stage=2):\n    t = i\n", "N = 4\nN = 6\n")
    result = lower_source(source, "k.py")
    assert [d.code for d in result.diagnostics] == ["TL490"]


def test_non_ssa_names_keep_flowing_and_stay_visible_after_the_loop():
    lowered = lower_source(
        _kernel(
            """
            acc = a
            last = a
            for i in pl.pipeline(0, 3, 1, stage=2):
                t = pl.load(a, [i], [16])
                acc = pl.add(acc, t)
                last = t
            return (acc, last)
            """
        ),
        "k.py",
    ).source
    expected = """
        acc = a
        last = a
        for i in pl.pipeline(0, 2, 2, stage=1):
            t = pl.load(a, [i], [16], attrs={"pipeline_membership": "0:0"})
            acc = pl.add(acc, t)
            last = t
            t_1 = pl.load(a, [i + 1], [16], attrs={"pipeline_membership": "0:1"})
            acc = pl.add(acc, t_1)
            last = t_1
        t_2 = pl.load(a, [2], [16], attrs={"pipeline_membership": "1:0"})
        acc = pl.add(acc, t_2)
        last = t_2
        return (acc, last)
        """
    body = lowered.split("def k(a, n, out):\n")[1]
    assert body == textwrap.indent(textwrap.dedent(expected).lstrip("\n"), "    ")


def test_name_read_by_the_next_outer_iteration_is_kept():
    lowered = lower_source(
        _kernel(
            """
            prev = a
            for j in pl.range(4):
                pl.store(prev, [j], out)
                for i in pl.pipeline(0, 2, 1, stage=2):
                    prev = pl.load(a, [i], [16])
            """
        ),
        "k.py",
    ).source
    assert "prev_1" not in lowered and lowered.count("prev = pl.load") == 2


def test_loop_variable_reassigned_in_body_is_left_with_a_warning():
    result = lower_source(_kernel("for i in pl.pipeline(0, 4, 1, stage=2):\n    i = i + 1\n"), "k.py")
    assert not result.changed
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("TL491", "this pipeline loop was left as it is: `i` is reassigned in the loop body")
    ]
