from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.backends import describe_request
from tilecheck.backends.verdict import BackendProblem, nesting_pipeline
from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade

from .._examples import KERNEL
from ._loops import backend, header, line, requested_loops
from ._related import related

if TYPE_CHECKING:
    from tilecheck.lint.context import Context

_NESTED = (
    KERNEL + "        for ko in T.Pipelined(4, num_stages=3):\n"
    "            for ki in T.Pipelined(4, num_stages=2):\n"
    "                B[ko, ki] = A[ko, ki]\n"
)
_NESTED_MANUAL = (
    KERNEL + "        for ko in T.Pipelined(4, order=[0, 1], stage=[0, 1]):\n"
    "            for ki in T.Pipelined(4, order=[1, 0], stage=[0, 1]):\n"
    "                B[ko, ki] = A[ko, ki]\n"
    "                B[ki, ko] = A[ki, ko]\n"
)


class NestedPipelineUnsupported(Rule):
    """A software pipeline nested in another on a backend that cannot plan nested pipelines.

    ## What it does
    With a backend selected (`--backend NAME` or `backend = "NAME"`) whose profile says
    `hierarchical_pipelines = false`, reports a pipeline-requested loop (`num_stages > 0`, a
    manual `order`/`stage` schedule, those keys in `annotations`, `T.Persistent(num_stages>0)`)
    inside another pipeline-requested loop on the same lexical path, when the backend would
    plan both requests. The diagnostic is at the inner loop and names the outer one.

    Not reported: a bare loop (`T.Pipelined(n)`, `num_stages=0`) in either position, sibling
    pipelines (they are independent), requests the backend strips or ignores anyway (those
    are reported by `schedule-dropped`), and anything when no backend is selected: nested
    pipelines are a backend capability, not a language rule. `tilecheck inventory` lists
    them target-agnostically.

    ## Why is this bad?
    TileLang's pipeline planner does not recurse into the body of a loop it plans. On CUDA
    (sm_80, sm_90a, sm_100a and sm_120a) the nested source lowers without an error or a warning and neither
    level is pipelined: the outer body is a single statement, so nothing overlaps and the
    schedule is stripped, while the inner loop is never planned (verified by lowering with
    TileLang 0.1.15; [`src/transform/pipeline_planning.cc`](https://github.com/tile-ai/tilelang/blob/v0.1.15/src/transform/pipeline_planning.cc),
    [`src/transform/inject_pipeline.cc`](https://github.com/tile-ai/tilelang/blob/v0.1.15/src/transform/inject_pipeline.cc)).
    Both requested schedules are dropped silently, with their async copies and buffer
    versions. TileLang's [loop rules](https://github.com/tile-ai/tilelang/blob/6ebc5ba7fe821832b0e49d699396a02b14d80a4b/.agents/skills/tilelang-semantic/references/loop-rules.md) ask for exactly this
    diagnostic: "Backend <name> does not support nested software pipelines".

    ## Example
    ```python
    for ko in T.Pipelined(K // 64, num_stages=3):
        for ki in T.Pipelined(4, num_stages=2):
            T.copy(A[ki, ko * 64], A_shared)
            T.gemm(A_shared, B_shared, C_local)
    ```

    ## Use instead
    ```python
    for ko in T.Pipelined(K // 64):              # bare: a serial loop
        for ki in T.Pipelined(4, num_stages=2):
            ...
    ```
    Keep the pipeline on the loop that benefits most, or target a backend with hierarchical
    pipelines.

    ## Backends
    Reported on `cuda-sm80`, `cuda-sm86`, `cuda-sm87`, `cuda-sm89`, `cuda-sm90`, `cuda-sm100`, `cuda-sm120`, `hip-gfx950`, `metal`
    and `webgpu`, and on
    `hip-gfx942` for manual schedules (it strips `num_stages` anyway). Not reported on
    `ascend` (hierarchical pipelines are supported), on `cpu` (it plans no pipelines; every
    request is reported by `schedule-dropped`), or with no backend selected.
    """

    CODE = "TL201"
    REPORTS = BackendProblem.NESTED_PIPELINE  # explain and the loop hover word its verdict
    NAME = "nested-pipeline-unsupported"
    GRADE = Grade.CONTRACT
    HELP = (
        "Make one of the two loops bare (drop its num_stages/order/stage) and keep the pipeline "
        "where it matters, or select a backend that supports hierarchical pipelines."
    )
    CHECKLIST = Checklist(
        grade="Contract: nested pipelines are legal at language level (TileLang's loop rules); the selected "
        "backend's PipelinePlanning cannot plan them and silently serializes both levels.",
        shape="A serial For carrying num_stages or tl_pipeline_order/tl_pipeline_stage below another "
        "such For on the same path, after target resolution.",
        smallest_invalid="`for ko in T.Pipelined(4, num_stages=3): for ki in T.Pipelined(4, num_stages=2): ...` "
        "under --backend cuda-sm80",
        closest_valid="`for ko in T.Pipelined(4): for ki in T.Pipelined(4, num_stages=2): ...` (bare outer)",
        siblings="Sibling pipelines are independent and never reported; only a requested ancestor counts.",
        neutral_wrappers="No: serial loops, ifs and blocks between the two pipelines do not change the answer; "
        "a T.Parallel between them makes the inner one a pipeline-in-parallel error instead.",
        generated_ir="Only user-written requests; post-planning keys are not requests.",
        proof="Proven when both requests are literal or constant and the profile says the backend plans both; "
        "unknown requests and loops that exist only for some Python values are not reported.",
        first_pass="PipelinePlanning (it does not recurse into a planned loop) and InjectSoftwarePipeline.",
        rewrite="Drop the request on one level (usually the outer loop).",
    )
    VALID = [
        Valid(_NESTED),
        Valid(_NESTED, backend="ascend"),
        Valid(_NESTED, backend="cpu"),
        Valid(_NESTED, backend="hip-gfx942"),
        Valid(
            KERNEL + "        for ko in T.Pipelined(4):\n"
            "            for ki in T.Pipelined(4, num_stages=2):\n"
            "                B[ko, ki] = A[ko, ki]\n",
            backend="cuda-sm80",
        ),
        Valid(
            KERNEL + "        for ko in T.Pipelined(4, num_stages=3):\n            B[ko, 0] = A[ko, 0]\n"
            "        for ki in T.Pipelined(4, num_stages=2):\n            B[ki, 1] = A[ki, 1]\n",
            backend="cuda-sm90",
        ),
    ]
    INVALID = [
        Invalid(
            _NESTED,
            at=((8, 23),),
            backend="cuda-sm80",
            message="Backend cuda-sm80 does not support nested software pipelines",
        ),
        Invalid(_NESTED, at=((8, 23),), backend="metal", message="the pipelined loop at line 7"),
        Invalid(_NESTED, at=((8, 23),), backend="cuda-sm100", message="Backend cuda-sm100 does not support"),
        Invalid(_NESTED_MANUAL, at=((8, 23),), backend="hip-gfx942", message="order=[1, 0], stage=[0, 1]"),
    ]

    def check(self, ctx: Context) -> None:
        profile = backend(ctx)
        if profile is None or profile.hierarchical_pipelines:
            return
        for loop, ancestors in requested_loops(ctx):
            outer = nesting_pipeline(profile, loop, ancestors)  # the loop hover and explain say so too
            if outer is None:
                continue
            assert loop.pipeline is not None and outer.pipeline is not None
            behaviour = f"; {profile.nested_behaviour}" if profile.nested_behaviour else ""
            ctx.report(
                loop.site,
                f"Backend {profile.name} does not support nested software pipelines: this loop requests "
                f"{describe_request(loop.pipeline)} inside the pipelined loop at line {line(ctx, outer)} "
                f"(`{header(ctx, outer)}`, {describe_request(outer.pipeline)}){behaviour}"
                f"{ctx.macro_note(loop.site)}",
                related=(related(ctx, outer.site, "the outer pipelined loop"),),
                help=f"Make one level bare: drop {describe_request(outer.pipeline)} from "
                f"`{header(ctx, outer)}` (line {line(ctx, outer)}) and keep the inner pipeline, or the "
                f"reverse; or select a backend that plans nested pipelines.",
            )
