from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.backends import PLANNED, shipped
from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade, Severity
from tilecheck.tilelang.model import Loop
from tilecheck.tilelang.queries import kernel_items

from .._examples import KERNEL
from ._loops import backend
from ._schedules import malformed, statement_count

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


def _loop(header: str) -> str:
    return (
        KERNEL + f"        for k in {header}:\n            B[k, 0] = A[k, 0]\n            B[k, 1] = A[k, 1]\n"
    )


class MalformedPipelineSchedule(Rule):
    """A manual pipeline schedule (`order`/`stage`) that TileLang's pipeline planner rejects.

    ## What it does
    Checks the `order` and `stage` of `T.Pipelined` (and the `tl_pipeline_order` /
    `tl_pipeline_stage` annotations of any loop) when their values are literals or
    constants, and reports, once per loop:
    - `order` and `stage` with another number of entries than the loop body has statements
      after macro inlining (`order` and `stage` of different lengths always are; the count is
      checked when the body is two or more plain statements: no Binds, loops or Python-level
      conditions);
    - an `order` that gives two statements the same position (`[0, 0, 1]`, `[-1, 0, -1]`);
      gaps and negative positions (`[0, 1, 3]`, `[-1, 0, 1]`) are fine: only the relative
      order counts;
    - a negative stage.

    With a backend whose planner uses the manual schedule (`cuda-sm80`, `cuda-sm86`,
    `cuda-sm89`, `hip-*`, `metal`, `webgpu`) it is an error. On the warp-specializing `cuda-sm90`, `cuda-sm100` and
    `cuda-sm120` it is a note: the loop fails the same way
    unless TileLang warp-specializes it, and then the manual schedule is not used. Without a
    backend it is a note naming the backends that reject it. On `cpu` and `ascend`, which do
    not plan manual schedules, it is not reported (schedule-dropped says the schedule is
    dropped).

    ## Why is this bad?
    TileLang 0.1.15's `PipelinePlanning` checks the manual schedule against the loop body
    ([`src/transform/pipeline_planning.cc`](https://github.com/tile-ai/tilelang/blob/v0.1.15/src/transform/pipeline_planning.cc)): `annotations.size() == original_stmt_count`
    ("expected pipeline annotation size to match the scheduled statement count, executable
    statement count, or original statement count", counted after macros are inlined and
    Python-level conditions folded) and "Two statements in the software pipeline cannot have
    the same order"; `InjectSoftwarePipeline` rejects a negative stage ("A dependency on
    multiple async stages is not supported" in the kernels measured). Lowering small kernels
    with 0.1.15 for `{"kind": "cuda", "arch": "sm_80"}` and `{"kind": "hip", "mcpu":
    "gfx942"}` fails with these messages, and lowers an `order` with gaps; for `sm_90a`, a
    FlashAttention-shaped loop that takes the warp-specialized TMA path lowers with any of
    them (`tools/oracle/schedule_questions.py` reproduces both). TileLang's own
    FlashAttention examples used `order=[-1, 0, 3, 1, -1, 2]` that way for sm_90a.

    ## Example
    ```python
    for k in T.Pipelined(K, order=[0, 0], stage=[0, 1]):   # two statements at position 0
        ...
    ```

    ## Use instead
    ```python
    for k in T.Pipelined(K, order=[0, 1], stage=[0, 1]):
        ...
    ```
    (one distinct order position and one non-negative stage per statement of the loop body), or
    `num_stages=2` to let TileLang plan the schedule.

    ## Backends
    Error (contract) on `cuda-sm80`, `cuda-sm86`, `cuda-sm87`, `cuda-sm89`, `hip-gfx942`, `hip-gfx950`, `metal` and `webgpu` (the
    last two inferred: they run the same planner; not lowered here). Note on `cuda-sm90`,
    `cuda-sm100` and `cuda-sm120` (warp-specializing targets: sm_100a and sm_120a lower the
    kernels of `tools/oracle/schedule_questions.py` exactly as sm_90a does, verified with
    0.1.15) and with no backend selected. Not reported on `cpu` and `ascend`.
    """

    CODE = "TL203"
    NAME = "malformed-pipeline-schedule"
    GRADE = Grade.CONTRACT
    HELP = (
        "Give one distinct `order` position and one non-negative `stage` per statement of the loop body; "
        "or use num_stages=N and let TileLang plan the schedule."
    )
    CHECKLIST = Checklist(
        grade="Contract: the manual-schedule planner of cuda sm_80 and ROCm rejects it; sm_90a accepts it "
        "when it warp-specializes the loop; cpu and ascend ignore manual schedules.",
        shape="A For whose tl_pipeline_order / tl_pipeline_stage values (from T.Pipelined's arguments or "
        "annotations) are literal and inconsistent with each other.",
        smallest_invalid="`for k in T.Pipelined(8, order=[0, 0], stage=[0, 1]): ...` under --backend cuda-sm80",
        closest_valid="`for k in T.Pipelined(8, order=[1, 0], stage=[0, 1]): ...`",
        siblings="Per loop: each loop's metadata is checked on its own.",
        neutral_wrappers="No: the metadata belongs to the loop itself.",
        generated_ir="Only user-written metadata.",
        proof="Proven from literal or constant values only; whether sm_90a warp-specializes the loop is not "
        "decided, so there it is a note.",
        first_pass="PipelinePlanning (manual branch) and InjectSoftwarePipeline.",
        rewrite="One entry per statement, distinct order positions, non-negative stages; or num_stages.",
    )
    VALID = [
        Valid(_loop("T.Pipelined(8, order=[0, 1], stage=[0, 1])"), backend="cuda-sm80"),
        Valid(_loop("T.Pipelined(8, order=[], stage=[])"), backend="cuda-sm80"),
        Valid(_loop("T.Pipelined(8, order=[0, 0], stage=[0, 1])"), backend="cpu"),
        Valid(_loop('T.serial(8, annotations={"tl_pipeline_order": [1, 0], "tl_pipeline_stage": [0, 1]})')),
        Valid(_loop("T.Pipelined(8, order=[0, 2], stage=[0, 1])"), backend="cuda-sm80"),  # gaps lower
        Valid(_loop("T.Pipelined(8, order=[-1, 0], stage=[0, 1])"), backend="hip-gfx942"),
    ]
    INVALID = [
        Invalid(
            _loop("T.Pipelined(8, order=[0, 1], stage=[0])"),
            at=((7, 18),),
            backend="cuda-sm80",
            message="`order` has 2 entries and `stage` 1, so one of them does not match the number of "
            "statements of the loop body (2); TileLang's PipelinePlanning expects the pipeline annotation size to "
            "match the statement count",
        ),
        Invalid(
            _loop("T.Pipelined(8, order=[0, 0], stage=[0, 1])"),
            at=((7, 18),),
            backend="hip-gfx942",
            message="Backend hip-gfx942 rejects this manual pipeline schedule: `order=[0, 0]` gives two statements "
            'the same position (0): "Two statements in the software pipeline cannot have the same order"',
        ),
        Invalid(
            _loop("T.Pipelined(8, order=[-1, 0, 1, -1], stage=[-1, 0, 1, -1])"),
            at=((7, 18),),
            backend="cuda-sm80",
            message="`order` and `stage` have 4 entries but the loop body has 2 statements after macro inlining; "
            "TileLang's PipelinePlanning expects the pipeline annotation size to match the statement count, and "
            "`order=[-1, 0, 1, -1]` gives two statements the same position (-1)",
        ),
        Invalid(
            _loop("T.Pipelined(8, order=[0, 1, 2], stage=[0, 0, 1])"),
            at=((7, 18),),
            backend="cuda-sm80",
            message="`order` and `stage` have 3 entries but the loop body has 2 statements after macro inlining",
        ),
        Invalid(
            _loop("T.Pipelined(8, order=[0, 0], stage=[0, 1])"),
            at=((7, 18),),
            backend="cuda-sm90",
            message="cuda-sm90 rejects this manual pipeline schedule unless it warp-specializes the loop",
        ),
        Invalid(
            _loop('T.serial(8, annotations={"tl_pipeline_order": [1, 1], "tl_pipeline_stage": [0, 1]})'),
            at=((7, 18),),
            message="Malformed manual pipeline schedule, rejected by cuda-sm80, ",
        ),
    ]

    def check(self, ctx: Context) -> None:
        profile = backend(ctx)
        if profile is not None and profile.manual_schedule != PLANNED:
            return  # this backend drops manual schedules (schedule-dropped reports that)
        for item, _ in kernel_items(ctx.model.kernels):
            if not isinstance(item, Loop) or item.pipeline is None or not item.certain:
                continue
            problems = malformed(item.pipeline, statement_count(item))
            if not problems:
                continue
            what = ", and ".join(problems)
            note = ctx.macro_note(item.site)
            if profile is None:
                rejecting, unless = _verdicts()
                ctx.report(
                    item.site,
                    f"Malformed manual pipeline schedule, rejected by {_and(rejecting)} (and by {_and(unless)} "
                    f"unless TileLang warp-specializes the loop): {what}{note}",
                    severity=Severity.INFO,
                )
            elif profile.warp_specialization:
                ctx.report(
                    item.site,
                    f"{profile.name} rejects this manual pipeline schedule unless it warp-specializes the loop "
                    f"(the manual schedule is then not used): {what}{note}",
                    severity=Severity.INFO,
                )
            else:
                ctx.report(
                    item.site, f"Backend {profile.name} rejects this manual pipeline schedule: {what}{note}"
                )


def _verdicts() -> tuple[list[str], list[str]]:
    """The shipped backends that reject a malformed manual schedule, and those that reject it
    unless they warp-specialize the loop."""
    planning = [(name, p) for name, p in shipped().items() if p.manual_schedule == PLANNED]
    return (
        [name for name, p in planning if not p.warp_specialization],
        [name for name, p in planning if p.warp_specialization],
    )


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
