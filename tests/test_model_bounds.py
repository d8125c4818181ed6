"""The kernel model stays bounded: folding never computes or raises on huge values (issue 12 §1),
and its cost grows linearly with the input (issue 12 §2). Every input is generated here."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from tilecheck.app.workspace import Options, Workspace
from tilecheck.tilelang import folding
from tilecheck.tilelang.evaluate import ExpressionEvaluator
from tilecheck.tilelang.frontend import analyze
from tilecheck.tilelang.imports import ImportTable
from tilecheck.tilelang.scope import Env, Frame, Sink
from tilecheck.tilelang.values import UNKNOWN, PyConst, PyValue, Value

HEADER = "import tilelang.language as T\n"
KERNEL = """

@T.prim_func
def kernel(A: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        loc = T.alloc_local((8,), "float32")
        for i in T.Parallel({extent}):
            loc[i] = A[i]
"""


def finding(text: str) -> tuple[int, int, str]:
    """The kernel's one finding when it is modelled: TL104 on `loc[i]`."""
    return (text[: text.index("loc[i] = A[i]")].count("\n") + 1, 13, "TL104")


HUGE_LITERAL = "1" + "0" * 5000  # beyond CPython's 4,300-digit int <-> str limit


def evaluate(source: str, **names: object) -> Value:
    """Evaluate one expression with the evaluator alone (no interpreter, no kernel)."""
    module = cst.parse_module(HEADER)
    evaluator = ExpressionEvaluator(ImportTable.from_module(module))
    env = Env()
    for name, value in names.items():
        env.bind(name, PyConst(value))
    return evaluator.value(cst.parse_expression(source), Frame(env, module), Sink([]))


def check(text: str, tmp_path: Path) -> list[tuple[int, int, str]]:
    analysis = Workspace(Options(isolated=True), cwd=tmp_path).check_text(text, str(tmp_path / "k.py"))
    return [(d.span.line, d.span.column + 1, d.code) for d in analysis.diagnostics]


def is_unknown_int(value: Value) -> bool:
    return isinstance(value, PyValue) and value.is_int


# -- folding: small values fold exactly, huge ones are unknown, nothing raises --------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("2 * 3 + 1", 7),
        ("2 ** 64", 1 << 64),
        ("(1 << 62) * 4", 1 << 64),
        ("7 // 2", 3),
        ("'ab' * 3", "ababab"),
        ("T.ceildiv(1000, 64)", 16),
        ("max(3, 9)", 9),
    ],
)
def test_small_constants_still_fold(source, expected):
    value = evaluate(source)
    assert isinstance(value, PyConst)
    assert value.value == expected


@pytest.mark.parametrize(
    "source",
    [
        HUGE_LITERAL,
        "0x" + "f" * 2000,
        "10**4096 * 10**4096",
        "(10**4096) ** 4096",
        "1 << 10**6",
        "1 << 4000 << 4000",
        "BIG * BIG",
        "BIG << 2000",
        "BIG ** 2",
        "BIG * BIG * BIG * BIG * BIG * BIG * BIG * BIG",
        "-BIG * BIG",
    ],
)
def test_huge_integers_are_unknown_ints(source):
    assert is_unknown_int(evaluate(source, BIG=1 << 3000))


@pytest.mark.parametrize(
    "source",
    ["[0] * 10**9", "'ab' * (1 << 20)", "S + S", "'%099999999d' % 1", "b'%099999999d' % 1", "{[1]: 2}"],
)
def test_huge_or_unbuildable_sequences_are_unknown(source):
    value = evaluate(source, S="x" * folding.MAX_SEQUENCE)
    assert isinstance(value, PyValue)
    assert not value.is_int


@pytest.mark.parametrize(
    "source",
    ["float(BIG)", "T.truncdiv(BIG, 3)", "T.truncmod(BIG, 3)", "1 << -1", "1 / 0", "int('x')", "(1, 2)[BIG]"],
)
def test_folding_errors_are_unknown(source):
    assert evaluate(source, BIG=1 << 3000) is UNKNOWN


def test_repeated_squaring_stops_at_the_bound():
    value: object = 10**60
    names = {"X": value}
    for _ in range(12):  # 10**(60 * 2**12) would have 245,760 digits
        result = evaluate("X * X", **names)
        if not isinstance(result, PyConst):
            break
        names = {"X": result.value}
    assert is_unknown_int(result)
    assert names["X"].bit_length() <= folding.MAX_INT_BITS  # type: ignore[attr-defined]


# -- end to end: such a file is still checked, never crashes (TL005) ----------------------


@pytest.mark.parametrize(
    "constant",
    [
        HUGE_LITERAL,
        "10**4096 * 10**4096",
        "(10**4096) ** 4096",
        "1 << 4000 << 4000",
        "'%099999999d' % 1",
        "float(1 << 4000)",
        "T.truncdiv(" + "9" * 1000 + ", 3)",
    ],
)
def test_a_huge_constant_does_not_stop_the_check(constant, tmp_path):
    text = HEADER + f"HUGE = {constant}\n" + KERNEL.format(extent="HUGE")
    assert check(text, tmp_path) == [finding(text)]


def test_repeated_multiplication_in_the_module(tmp_path):
    text = HEADER + "X = 10**60\n" + "X = X * X\n" * 40 + KERNEL.format(extent="X")
    assert check(text, tmp_path) == [finding(text)]


# -- linear cost ------------------------------------------------------------------------------


def count_evaluations(text: str, monkeypatch) -> int:
    calls = 0
    original = ExpressionEvaluator.value

    def counting(self, node, frame, sink):
        nonlocal calls
        calls += 1
        return original(self, node, frame, sink)

    monkeypatch.setattr(ExpressionEvaluator, "value", counting)
    analyze(cst.parse_module(text))
    return calls


@pytest.mark.parametrize(
    "template",
    [
        "A[0] = {open}A[1]{close}",  # nested tile-op-like calls: each evaluated once, not twice
        "T.copy({open}A[1]{close}, A[0])",
        "x = {open}A[1]{close}",
        "f = T.alloc_fragment({open}64{close}, 'float32')",
    ],
)
@pytest.mark.parametrize("kind", ["T.exp(", "[", "T.max(1.0, ", "T.alloc_fragment("])
def test_nested_expressions_are_evaluated_once_per_node(template, kind, monkeypatch):
    def body(depth: int) -> str:
        statement = template.format(open=kind * depth, close=(")" if kind != "[" else "]") * depth)
        return HEADER + KERNEL.format(extent=8) + "        " + statement + "\n"

    # Evaluating an operand twice (once to classify it) made this 2**depth.
    small, large = count_evaluations(body(10), monkeypatch), count_evaluations(body(18), monkeypatch)
    assert large - small <= 4 * (18 - 10)  # a few evaluations per level (call, argument)


def test_brackets_nested_deeper_than_cpython_allows_are_refused_cheaply(tmp_path, monkeypatch):
    depth = 1000  # 2 KB that libcst alone parses in 7 s and 950 MB: it must never see them
    text = HEADER + "x = " + "[" * depth + "]" * depth + "\n"

    def refuse(*args, **kwargs):
        raise AssertionError("libcst was handed the deeply nested file")

    monkeypatch.setattr(cst, "parse_module", refuse)
    found = check(text, tmp_path)
    # CPython's own position: the 201st opening bracket.
    assert found == [(2, 4 + 201, "TL004")]


def test_brackets_nested_one_per_line_are_refused_at_their_line(tmp_path):
    text = HEADER + "x = (\n" + "[\n" * 300 + "]\n" * 300 + ")\n"
    assert check(text, tmp_path) == [(2 + 200, 1, "TL004")]


def test_the_deepest_nesting_cpython_accepts_is_checked(tmp_path):
    text = HEADER + "SHAPE = " + "[" * 199 + "]" * 199 + KERNEL.format(extent=8)
    assert check(text, tmp_path) == [finding(text)]


def trivial_kernels(count: int) -> cst.Module:
    """`count` one-statement kernels, built as a tree (parsing them would dominate the time)."""
    module = cst.parse_module(HEADER + KERNEL.format(extent=8))
    kernel = module.body[1]
    assert isinstance(kernel, cst.FunctionDef)
    copies = [kernel.with_changes(name=cst.Name(f"kernel_{n}")) for n in range(count)]
    return module.with_changes(body=[module.body[0], *copies])


def model_work(module: cst.Module, monkeypatch) -> int:
    """Expressions evaluated and statements interpreted: a deterministic measure of the cost."""
    calls = 0
    original = ExpressionEvaluator.value

    def counting(self, node, frame, sink):
        nonlocal calls
        calls += 1
        return original(self, node, frame, sink)

    monkeypatch.setattr(ExpressionEvaluator, "value", counting)
    model = analyze(module)
    assert len(model.kernels) == len(module.body) - 1
    return calls


def test_many_kernels_in_one_file_cost_linear_work(monkeypatch):
    small = model_work(trivial_kernels(1_000), monkeypatch)
    large = model_work(trivial_kernels(8_000), monkeypatch)
    assert large <= 8 * small  # linear in the number of kernels, not more
