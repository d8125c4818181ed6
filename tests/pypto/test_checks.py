"""The TL4xx diagnostics: PyPTO's exact messages at exact positions (body starts on line 6)."""

from __future__ import annotations

import pytest

from tests.pypto.helpers import program
from tilecheck.core.types import Grade, Severity
from tilecheck.pypto import check_pypto_source, lower_source


def found(body: str, backend: str | None = None) -> list[tuple[str, int, int, int, int, str]]:
    return [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column, d.message)
        for d in check_pypto_source(program(body), "k.py", backend=backend)
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "for i in pl.pipeline(8):\n    x = i\n",
            ("TL401", 6, 13, 6, 27, "pl.pipeline() requires stage= (positive integer)"),
        ),
        (
            "for i in pl.pipeline(8, stage=n):\n    x = i\n",
            ("TL402", 6, 28, 6, 35, "pl.pipeline() stage must be a compile-time constant integer"),
        ),
        (
            "for i in pl.pipeline(8, stage=2.0):\n    x = i\n",
            ("TL402", 6, 28, 6, 37, "pl.pipeline() stage must be a compile-time constant integer"),
        ),
        (
            "for i in pl.pipeline(8, stage=0):\n    x = i\n",
            ("TL403", 6, 28, 6, 35, "pl.pipeline() stage must be >= 1, got 0"),
        ),
        (
            "for i in pl.pipeline(8, stage=-2):\n    x = i\n",
            ("TL403", 6, 28, 6, 36, "pl.pipeline() stage must be >= 1, got -2"),
        ),
        (
            "for i in pl.range(8, stage=2):\n    x = i\n",
            ("TL404", 6, 25, 6, 32, "stage= is only supported on pl.pipeline(), not pl.range()"),
        ),
        (
            "for i in pl.unroll(8, stage=2):\n    x = i\n",
            ("TL404", 6, 26, 6, 33, "stage= is only supported on pl.pipeline(), not pl.unroll()"),
        ),
        (
            "for i in pl.parallel(8, stage=2):\n    x = i\n",
            ("TL404", 6, 28, 6, 35, "stage= is only supported on pl.pipeline(), not pl.parallel()"),
        ),
        (
            "for i in pl.pipeline(8, stage=2, foo=1):\n    x = i\n",
            ("TL405", 6, 37, 6, 42, "Unknown keyword argument 'foo' in pl.pipeline()"),
        ),
        (
            "for i in pl.range(8, unroll=4):\n    x = i\n",
            ("TL405", 6, 25, 6, 33, "Unknown keyword argument 'unroll' in pl.range()"),
        ),
        (
            "for i in pl.pipeline(stage=2):\n    x = i\n",
            ("TL406", 6, 13, 6, 33, "pl.pipeline() requires at least 1 argument (stop)"),
        ),
        (
            "for i, (x,) in pl.unroll(4, init_values=(s0,)):\n    y = pl.yield_(x)\n",
            ("TL407", 6, 32, 6, 49, "pl.unroll() cannot be combined with init_values"),
        ),
        (
            "for i in pl.unroll(n):\n    x = i\n",
            ("TL408", 6, 13, 6, 25, "pl.unroll() requires compile-time constant integer bounds"),
        ),
        (
            "for i in pl.unroll(0, 4, 0):\n    x = i\n",
            ("TL409", 6, 29, 6, 30, "pl.unroll() step cannot be zero"),
        ),
        (
            "for i in pl.pipeline(4, stage=2, init_values=(s0,)):\n    x = pl.yield_(i)\n",
            ("TL410", 6, 8, 6, 9, "For loop target must be a tuple when init_values is provided"),
        ),
        (
            "for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n    pl.yield_(x)\n",
            (
                "TL411",
                7,
                8,
                7,
                20,
                "Loop with init_values requires an assignment-form pl.yield_(...) \u2014 the LHS supplies the "
                "post-loop binding name. Bare pl.yield_(...) is rejected here.",
            ),
        ),
        (
            "for i, (x, y) in pl.pipeline(4, stage=2, init_values=(s0,)):\n    r = pl.yield_(x)\n",
            ("TL412", 6, 8, 6, 17, "Mismatch: 2 iter_args but 1 init_values"),
        ),
        (
            "for i, (x,) in pl.pipeline(4, stage=2, init_values=s0):\n    r = pl.yield_(x)\n",
            ("TL413", 6, 55, 6, 57, "init_values must be a list or tuple"),
        ),
        (
            "for i in pl.pipeline(0, 8, s, stage=2):\n    x = i\n",
            (
                "TL414",
                6,
                31,
                6,
                32,
                "LowerPipelineLoops: step must be a compile-time integer constant, got Var",
            ),
        ),
        (
            "for i in pl.pipeline(0, 8, s * 2, stage=2):\n    x = i\n",
            (
                "TL414",
                6,
                31,
                6,
                36,
                "LowerPipelineLoops: step must be a compile-time integer constant, got Mul",
            ),
        ),
        (
            "for i in pl.pipeline(0, 8, 0, stage=2):\n    x = i\n",
            ("TL415", 6, 31, 6, 32, "LowerPipelineLoops: step cannot be zero"),
        ),
        (
            "for i in pl.pipeline(n, 0, -1, stage=2):\n    x = i\n",
            (
                "TL416",
                6,
                31,
                6,
                33,
                "LowerPipelineLoops: dynamic bounds require a positive step, got -1. "
                "Use static bounds for negative-step loops.",
            ),
        ),
        (
            "for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n    r = pl.yield_(x, i)\n",
            ("TL417", 7, 8, 7, 27, "Internal error: loop body must yield 1 values for iter_args, got 2"),
        ),
        (
            "for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n    x2 = x + 1\n",
            ("TL417", 6, 8, 6, 15, "Internal error: loop body must yield 1 values for iter_args, got 0"),
        ),
        (
            'for i in pl.range(8, attrs={"pipeline_stages": 2}):\n    x = i\n',
            (
                "TL418",
                6,
                25,
                6,
                53,
                "ForStmt in function 'f' carries `attrs[\"pipeline_stages\"]` but `kind_` is not "
                "`ForKind::Pipeline`. The attr is only meaningful on Pipeline loops.",
            ),
        ),
    ],
)
def test_each_pypto_error_is_reported_with_its_own_message_and_position(body, expected):
    assert found(body) == [expected]


def test_parser_order_reports_only_the_first_error_of_a_loop():
    assert [d[0] for d in found("for i in pl.pipeline(8, foo=1):\n    x = i\n")] == ["TL405"]


def test_hints_are_pypto_hints():
    diagnostic = check_pypto_source(program("for i in pl.pipeline(8, stage=2, foo=1):\n    x = i\n"), "k.py")[
        0
    ]
    assert diagnostic.help == "Supported keywords for pl.pipeline(): init_values, stage, attrs"
    assert diagnostic.rule == "pypto-loop-unknown-keyword"
    assert diagnostic.grade is Grade.SEMANTIC and diagnostic.severity is Severity.ERROR


def test_pass_limitations_are_contract_grade():
    diagnostic = check_pypto_source(program("for i in pl.pipeline(0, 8, s, stage=2):\n    x = i\n"), "k.py")[
        0
    ]
    assert diagnostic.grade is Grade.CONTRACT


def test_valid_programs_and_stage_one_runtime_step_are_clean():
    assert found("for i in pl.pipeline(0, 8, s, stage=1):\n    x = i\n") == []
    assert found("for i in pl.pipeline(0, n, 2, stage=4):\n    x = i\n") == []
    assert found("for i in pl.range(n):\n    x = i\n") == []


def test_unresolvable_global_is_never_an_error():
    source = program("for i in pl.pipeline(0, 8, STEP, stage=STAGES):\n    x = i\n")
    source = source.replace(
        "import pypto.language as pl\n", "import pypto.language as pl\nfrom cfg import STEP, STAGES\n"
    )
    assert check_pypto_source(source, "missing/k.py") == []


def test_nested_pipelines_are_gated_by_the_backend():
    body = "for i in pl.pipeline(0, 4, 1, stage=2):\n    for j in pl.pipeline(0, 4, 1, stage=2):\n        x = i + j\n"
    assert found(body) == []
    assert found(body, backend="cuda-sm80") == [
        ("TL419", 7, 17, 7, 46, "Backend cuda-sm80 does not support nested software pipelines")
    ]
    result = lower_source(program(body), "k.py", backend="cuda-sm80")
    assert not result.changed and result.source == program(body)
    assert [d.code for d in result.diagnostics] == ["TL419"]


def test_an_error_prevents_lowering_and_leaves_the_text():
    source = program(
        "for i in pl.pipeline(0, 8, 1, stage=2):\n    x = i\nfor j in pl.pipeline(8):\n    y = j\n"
    )
    result = lower_source(source, "k.py")
    assert result.source == source and not result.changed
    assert [d.code for d in result.diagnostics] == ["TL401"]


def test_non_dsl_functions_and_files_without_pypto_are_ignored():
    assert check_pypto_source("def f():\n    for i in pl.pipeline(8):\n        pass\n", "k.py") == []
    plain = "import pypto.language as pl\n\ndef f():\n    for i in pl.pipeline(8):\n        pass\n"
    assert check_pypto_source(plain, "k.py") == []
    assert lower_source(plain, "k.py").changed is False


@pytest.mark.parametrize(
    ("source", "column"),
    [("def f(:\n", 7), ("x = (\n", 5), ("\x00", 1), ("for i in pl.pipeline(8 stage=2):\n", 22)],
)
def test_bad_input_gives_the_engines_syntax_error_not_a_traceback(source, column):
    # The engine's TL001, positioned by CPython's parser (one code for `check` and `lower`).
    result = lower_source(source, "bad.py")
    assert result.source == source and not result.changed and result.blocked
    assert [(d.code, d.span.line, d.span.column + 1) for d in result.diagnostics] == [("TL001", 1, column)]


_POSITIONED = [
    # a finding on a continuation line, with a comment and a blank line before the loop
    "# note\n\nfor i in pl.pipeline(\n    8,\n        stage=n,\n):\n    x = i\n",
    # an inner loop of a lowered one, the keyword on its own line
    "for i in pl.range(4):\n    for j in pl.pipeline(8,\n            foo=1):\n        x = j\n",
    # a step on a continuation line, then the body's finding
    "for i, (x,) in pl.pipeline(0, 8,\n        1, stage=2, init_values=(s0,)):\n    r = pl.yield_(x, i)\n",
]


# A continuation line indented less than the block it is in.
_LESS_INDENTED = program(
    "for i in pl.range(2):\n    for j in pl.pipeline(0, 8, 0, stage=2):\n        x = j\n"
).replace("pl.pipeline(0, 8, 0, stage=2)", "pl.pipeline(0, 8,\n0, stage=2)")


@pytest.mark.parametrize("body", [*_POSITIONED, ""])
def test_lower_positions_findings_as_check_does(body):
    # `lower` positions findings by regenerating only their loop; `check` through the module.
    source = program(body) if body else _LESS_INDENTED
    lowered = [(d.code, d.span) for d in lower_source(source, "k.py").diagnostics]
    checked = [(d.code, d.span) for d in check_pypto_source(source, "k.py")]
    assert lowered == checked and lowered


def _codes_at(body: str) -> list[tuple[str, int, int]]:
    return [(code, line, column + 1) for code, line, column, *_ in found(body)]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # an outer pipeline's iter_arg read by an inner pipeline
        (
            "for k, (acc,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n"
            "    for i in pl.pipeline(8, stage=2):\n        t = pl.add(i, acc)\n    r = pl.yield_(acc)\n",
            [("TL420", 8, 27)],
        ),
        # two levels up, through a plain loop
        (
            "for k, (acc,) in pl.range(4, init_values=(s0,)):\n    for j in pl.range(2):\n"
            "        for i in pl.pipeline(8, stage=2):\n            t = pl.add(acc, i)\n    r = pl.yield_(acc)\n",
            [("TL420", 9, 28)],
        ),
        # the pipeline's own iter_arg of the same name shadows the outer one
        (
            "for k, (acc,) in pl.range(4, init_values=(s0,)):\n"
            "    for i, (acc,) in pl.pipeline(8, stage=2, init_values=(acc,)):\n"
            "        r2 = pl.yield_(pl.add(acc, i))\n    r = pl.yield_(acc)\n",
            [],
        ),
        # assigned in the body before it is read: a new value, not the carried one
        (
            "for k, (acc,) in pl.range(4, init_values=(s0,)):\n    for i in pl.pipeline(8, stage=2):\n"
            "        acc = pl.load(a, [i], [16])\n        t = pl.add(acc, i)\n    r = pl.yield_(acc)\n",
            [],
        ),
        # stage=1 replicates nothing
        (
            "for k, (acc,) in pl.range(4, init_values=(s0,)):\n"
            "    for i in pl.pipeline(8, stage=1):\n        t = pl.add(acc, i)\n    r = pl.yield_(acc)\n",
            [],
        ),
    ],
)
def test_enclosing_carried_values(body, expected):
    assert _codes_at(body) == expected


_INT64 = "import pypto.language as pl\n\n\n@pl.function\ndef f(a, m: pl.Scalar[pl.INT64], n: pl.Scalar):\n"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("    for i in pl.pipeline(m, 64, 1, stage=2):\n        x = i\n", [("TL421", 6, 26)]),
        ("    for i in pl.pipeline(0, m, 1, stage=4):\n        x = i\n", [("TL421", 6, 29)]),
        ("    for i in pl.pipeline(0, n, 1, stage=4):\n        x = i\n", []),  # a plain pl.Scalar
        ("    for i in pl.range(0, m, 1):\n        x = i\n", []),  # not replicated
        ("    m = 8\n    for i in pl.pipeline(0, m, 1, stage=2):\n        x = i\n", []),  # rebound
    ],
)
def test_int64_dynamic_bounds(body, expected):
    source = _INT64 + body
    assert [(d.code, d.span.line, d.span.column + 1) for d in check_pypto_source(source, "k.py")] == expected


def test_contract_findings_on_replication_stop_lowering_unless_ignored(tmp_path):
    from tilecheck.app.workspace import Options, Workspace

    source = _INT64 + "    for i in pl.pipeline(0, m, 1, stage=2):\n        x = i\n"
    assert lower_source(source, "k.py").blocked
    lowered = Workspace(Options(ignore=("TL421",), isolated=True)).lower_text(source, str(tmp_path / "k.py"))
    assert lowered.changed and lowered.diagnostics == []
