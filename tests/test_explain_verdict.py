"""The selected backend's verdict on a pipelined loop: `tilecheck explain` and the server's loop
hover state what `nested-pipeline-unsupported` (TL201) decides, from one place
(`tilecheck.backends.verdict`), so they never call planned a pipeline TL201 says is serialized."""

from __future__ import annotations

import json

import pytest

from tests.support import run, write
from tilecheck.app.workspace import Options, Workspace
from tilecheck.server.hover_data import loops_at
from tilecheck.server.positions import UTF16, PositionMap

# The reviewer's kernel: a `T.Pipelined(num_stages=2)` macro loop inlined in a `num_stages=3` one.
NESTED = """import tilelang
import tilelang.language as T


@T.macro
def inner(S, ko):
    for ki in T.Pipelined(4, num_stages=2):
        S[ko, ki] = 0


@tilelang.jit
def kern(n):
    @T.prim_func
    def main(A: T.Tensor((128, 128), "float16")):
        with T.Kernel(1, threads=128) as bx:
            S = T.alloc_fragment((64, 64), "float32")
            for ko in T.Pipelined(4, num_stages=3):
                inner(S, ko)

    return main
"""
OUTER_HEADER = (17, 12)  # `for ko in T.Pipelined(4, num_stages=3):`
INNER_HEADER = (7, 4)  # `for ki in T.Pipelined(4, num_stages=2):`, in the macro

SINGLE = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for ko in T.Pipelined(4, num_stages=3):
            A[ko, 0] = 0
"""

SM80_NESTED = (
    "TileLang plans only the outer loop, finds nothing to overlap and lowers both levels as plain "
    "serial loops without a warning (TL201)"
)
OUTER_VERDICT = (
    "nested pipelines are not supported: the pipelined loop at line 18 "
    "(`T.Pipelined(4, num_stages=2)`; in macro `inner`, line 7) is nested in this one; " + SM80_NESTED
)
INNER_VERDICT = (
    "nested pipelines are not supported: this loop is nested in the pipelined loop at line 17 "
    "(`T.Pipelined(4, num_stages=3)`); " + SM80_NESTED
)

EXPLAIN_SM80 = f"""k.py  (backend: cuda-sm80)

kernel main  (line 14)
└── for ko in T.Pipelined(4, num_stages=3)  [line 17]
      pipelined; extent 4 (constant)
      pipeline: requested: num_stages=3, depth 3
      backend cuda-sm80: {OUTER_VERDICT}
    └── for ki in T.Pipelined(4, num_stages=2)  [line 18]
          pipelined; extent 4 (constant)
          pipeline: requested: num_stages=2, depth 2
          inlined from macro `inner` (called at line 18); written at k.py:7
          backend cuda-sm80: {INNER_VERDICT}
          error: TL201 [contract] 18:17 Backend cuda-sm80 does not support nested software pipelines: this loop requests num_stages=2 inside the pipelined loop at line 17 (`T.Pipelined(4, num_stages=3)`, num_stages=3); TileLang plans only the outer loop, finds nothing to overlap and lowers both levels as plain serial loops without a warning (in macro `inner`, line 7)
            ├─ line 17: for ko in T.Pipelined(4, num_stages=3):  (the outer pipelined loop)
            └─ line 7: for ki in T.Pipelined(4, num_stages=2):  (in macro `inner`)

legend: `?for`, `?if`: exists only for some Python-level values tilecheck cannot evaluate; (xN): N copies made by Python-level unrolling; <<<: on the requested line
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": NESTED, "single.py": SINGLE})
    return tmp_path


def test_explain_states_tl201s_verdict_on_both_levels_of_a_nested_pipeline(project, capsys):
    outcome = run(capsys, "explain", "k.py", "--backend", "cuda-sm80", "--isolated")
    assert outcome.status == 0, outcome.err
    assert outcome.out == EXPLAIN_SM80


def test_explain_json_carries_the_same_verdict(project, capsys):
    outcome = run(
        capsys, "explain", "k.py", "--backend", "cuda-sm80", "--isolated", "--output-format", "json"
    )
    (kernel,) = json.loads(outcome.out)["kernels"]
    (outer,) = kernel["children"]
    (inner,) = outer["children"]
    assert outer["verdict"] == f"cuda-sm80: {OUTER_VERDICT}"
    assert inner["verdict"] == f"cuda-sm80: {INNER_VERDICT}"
    assert [d["code"] for d in inner["diagnostics"]] == ["TL201"]


def _hover(project, name: str, backend: str, line: int, column: int) -> tuple[str, tuple[int, int, int, int]]:
    """The server's loop hover (`loops_at`, as the worker computes it for the hover handler) at a
    1-based line, 0-based column: its text and LSP range."""
    path = project / name
    text = path.read_text()
    workspace = Workspace(Options(backend=backend, isolated=True), cwd=str(project))
    analysis = workspace.check_text(text, str(path))
    assert analysis.context is not None
    found = loops_at(analysis.context, line, column)
    assert found
    lsp = PositionMap(text, UTF16).range(found[0][0])
    start, end = lsp.start, lsp.end
    return "\n---\n\n".join(described for _, described in found), (
        start.line,
        start.character,
        end.line,
        end.character,
    )


def test_hover_on_a_nested_pipeline_under_a_backend_that_cannot_plan_it(project):
    assert _hover(project, "k.py", "cuda-sm80", *OUTER_HEADER) == (
        "**for ko in T.Pipelined(4, num_stages=3)**\n\n"
        "- pipelined; extent 4 (constant)\n"
        "- pipeline: requested: num_stages=3, depth 3\n"
        f"- backend `cuda-sm80`: {OUTER_VERDICT}\n",
        (16, 12, 16, 50),
    )
    assert _hover(project, "k.py", "cuda-sm80", *INNER_HEADER) == (
        "**for ki in T.Pipelined(4, num_stages=2)**\n\n"
        "- pipelined; extent 4 (constant)\n"
        "- pipeline: requested: num_stages=2, depth 2\n"
        "- inlined from macro `inner` (called at line 18); written at k.py:7\n"
        f"- backend `cuda-sm80`: {INNER_VERDICT}\n",
        (6, 4, 6, 42),
    )


def test_hover_on_a_nested_pipeline_under_other_backends(project):
    # ascend plans hierarchical pipelines; metal cannot, and says why in its own words.
    value, _ = _hover(project, "k.py", "ascend", *OUTER_HEADER)
    assert value.endswith("- backend `ascend`: planned\n")
    value, _ = _hover(project, "k.py", "ascend", *INNER_HEADER)
    assert value.endswith("- backend `ascend`: planned\n")
    value, _ = _hover(project, "k.py", "metal", *INNER_HEADER)
    assert value.endswith(
        "- backend `metal`: nested pipelines are not supported: this loop is nested in the pipelined "
        "loop at line 17 (`T.Pipelined(4, num_stages=3)`); TileLang's PipelinePlanning does not "
        "recurse into the body of a loop it plans, so the inner pipeline is never planned (TL201)\n"
    )
    # cpu plans no pipeline at all: each request is dropped (schedule-dropped), not nested.
    value, _ = _hover(project, "k.py", "cpu", *OUTER_HEADER)
    assert value.endswith("- backend `cpu`: num_stages=3 ignored\n")


def test_hover_on_a_single_pipeline(project):
    assert _hover(project, "single.py", "cuda-sm80", 7, 8) == (
        "**for ko in T.Pipelined(4, num_stages=3)**\n\n"
        "- pipelined; extent 4 (constant)\n"
        "- pipeline: requested: num_stages=3, depth 3\n"
        "- backend `cuda-sm80`: planned\n",
        (6, 8, 6, 46),
    )
    value, _ = _hover(project, "single.py", "hip-gfx942", 7, 8)
    assert value.endswith("- backend `hip-gfx942`: num_stages=3 stripped\n")


@pytest.mark.parametrize(
    ("backend", "codes"),
    [("cuda-sm80", ["TL201"]), ("metal", ["TL201"]), ("ascend", []), ("cpu", ["TL301", "TL301"])],
)
def test_the_verdict_and_tl201_agree(project, capsys, backend, codes):
    outcome = run(capsys, "check", "k.py", "--backend", backend, "--isolated", "--output-format", "json")

    found = [d["code"] for d in json.loads(outcome.out)]
    assert found == codes
    value, _ = _hover(project, "k.py", backend, *INNER_HEADER)
    assert ("(TL201)" in value) == ("TL201" in codes)
