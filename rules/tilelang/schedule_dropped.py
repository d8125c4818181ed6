from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.backends import PLANNED, STRIPPED
from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade

from .._examples import KERNEL
from ._loops import backend, requested_loops, scope_named
from ._schedules import ignored, malformed

if TYPE_CHECKING:
    from tilecheck.lint.context import Context

_STAGES = KERNEL + "        for k in T.Pipelined(8, num_stages=3):\n            B[k, 0] = A[k, 0]\n"
_MANUAL = (
    KERNEL + "        for k in T.Pipelined(8, order=[0, 1], stage=[0, 1]):\n"
    "            B[k, 0] = A[k, 0]\n            B[k, 1] = A[k, 1]\n"
)


class ScheduleDropped(Rule):
    """A requested software pipeline that the selected backend ignores or strips.

    ## What it does
    With a backend selected, reports a pipeline-requested loop whose request the backend
    will not honour, naming the backend and what happens instead, e.g. `num_stages=3 is
    ignored by the cpu backend (it runs no software-pipeline planning); the loop runs
    serially`. It is a note: the kernel is still correct, it only loses the schedule, but
    the loss is never silent.

    ## Why is this bad?
    TileLang drops these requests without a word (verified by lowering with TileLang 0.1.15;
    [`src/transform/pipeline_planning.cc`](https://github.com/tile-ai/tilelang/blob/v0.1.15/src/transform/pipeline_planning.cc)): the CPU
    backend runs no pipeline planning at all and leaves the raw annotation unused; ROCm
    targets other than gfx950 strip `num_stages` in `pipeline_planning.cc:1155` and run
    the loop single-buffered (a complete manual `order`/`stage` schedule is kept there);
    Ascend never reads `order`/`stage` (its AutoSchedule derives the order from the
    source). TileLang's design notes say a requested schedule must never be discarded
    silently, because the author asked for asynchronous copies and buffer versions.

    ## Example
    ```python
    for k in T.Pipelined(K // 32, num_stages=3):   # --backend cpu
        T.copy(A[k * 32, 0], A_local)
        ...
    ```

    ## Use instead
    ```python
    for k in T.Pipelined(K // 32):                 # state that the loop is serial here
        ...
    ```
    or keep the request for the backends that plan it and accept the note.

    ## Backends
    `cpu` (`num_stages` and `order`/`stage` ignored), `hip-gfx942` (`num_stages` stripped
    unless a complete `order`/`stage` schedule is given), `ascend` (`order`/`stage` ignored,
    unless the body uses `T.Stage` scopes: then `manual-schedule-rejected`), and user profiles
    with `num_stages`/`manual_schedule` set to `"ignored"` or `"stripped"`. Nothing is
    reported with no backend selected or on backends that plan the request.
    """

    CODE = "TL301"
    NAME = "schedule-dropped"
    GRADE = Grade.OPTIMIZATION
    HELP = "Drop the request to state that the loop is serial on this backend, or accept the note."
    CHECKLIST = Checklist(
        grade="Optimization: the code stays correct; the requested pipeline (an optimization) does not "
        "happen on the selected backend. A note, never an error, but never silent.",
        shape="A serial For with num_stages / tl_pipeline_order+tl_pipeline_stage annotations on a target "
        "whose pipeline ignores or strips them.",
        smallest_invalid="`for k in T.Pipelined(8, num_stages=3): ...` under --backend cpu",
        closest_valid="`for k in T.Pipelined(8): ...` (bare), or the same loop under --backend cuda-sm80",
        siblings="Per loop: every requested loop is judged on its own.",
        neutral_wrappers="No; a request inside T.Parallel is pipeline-in-parallel instead.",
        generated_ir="Only user-written requests.",
        proof="Proven when the request is literal or constant; unknown requests stay silent.",
        first_pass="PipelinePlanning (ROCm strip), or its absence (CPU); Ascend AutoSchedule.",
        rewrite="Drop num_stages/order/stage, or target a backend that plans them.",
    )
    VALID = [
        Valid(_STAGES),
        Valid(_STAGES, backend="cuda-sm80"),
        Valid(_MANUAL, backend="hip-gfx942"),
        Valid(KERNEL + "        for k in T.Pipelined(8):\n            B[k, 0] = A[k, 0]\n", backend="cpu"),
    ]
    INVALID = [
        Invalid(
            _STAGES,
            at=((7, 18),),
            backend="cpu",
            message="num_stages=3 is ignored by the cpu backend (it runs no software-pipeline planning); "
            "the loop runs serially",
        ),
        Invalid(
            _STAGES, at=((7, 18),), backend="hip-gfx942", message="num_stages=3 is stripped by the hip-gfx942"
        ),
        Invalid(_MANUAL, at=((7, 18),), backend="ascend", message="order=[0, 1], stage=[0, 1] is ignored"),
        Invalid(_MANUAL, at=((7, 18),), backend="cpu"),
    ]

    def check(self, ctx: Context) -> None:
        profile = backend(ctx)
        if profile is None:
            return
        for loop, _ in requested_loops(ctx):
            assert loop.pipeline is not None
            if ignored(loop.pipeline):
                continue  # ignored-pipeline-schedule already reports it, on every backend
            if malformed(loop.pipeline) and profile.manual_schedule == PLANNED:
                continue  # malformed-pipeline-schedule: the planner rejects it rather than drop it
            parts = profile.dropped(loop.pipeline)
            if profile.manual_rejected_with and scope_named(loop, profile.manual_rejected_with) is not False:
                # Rejected outright (manual-schedule-rejected), or unknown: not a silent drop to report.
                parts = [(what, mode) for what, mode in parts if not what.startswith("the manual schedule")]
            if not parts:
                continue
            modes = {mode for _, mode in parts}
            what = " and ".join(what for what, _ in parts)
            what = what[0].upper() + what[1:] if what.startswith("the ") else what
            verb = "are" if len(parts) > 1 else "is"
            mode = "stripped" if modes == {STRIPPED} else "ignored"
            reason = f" ({profile.drop_reason})" if profile.drop_reason else ""
            ctx.report(
                loop.site,
                f"{what} {verb} {mode} by the {profile.name} backend{reason}; {profile.drop_effect}"
                f"{ctx.macro_note(loop.site)}",
            )
