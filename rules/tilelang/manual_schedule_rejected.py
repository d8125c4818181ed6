from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.backends import REJECTED, describe_request
from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade

from .._examples import KERNEL
from ._loops import backend, requested_loops, scope_named

if TYPE_CHECKING:
    from tilecheck.lint.context import Context

_STAGED = (
    KERNEL + "        for k in T.Pipelined(4, num_stages=2, order=[0, 1], stage=[0, 0]):\n"
    "            with T.Stage(0):\n"
    "                B[k, 0] = A[k, 0]\n"
    "            with T.Stage(0):\n"
    "                B[k, 1] = A[k, 1]\n"
)
_STAGE_SCOPES = (
    KERNEL + "        for k in T.Pipelined(4, num_stages=2):\n"
    "            with T.Stage(0):\n"
    "                B[k, 0] = A[k, 0]\n"
    "            with T.Stage(0):\n"
    "                B[k, 1] = A[k, 1]\n"
)


class ManualScheduleRejected(Rule):
    """A manual `order`/`stage` schedule on a backend that rejects it.

    ## What it does
    With a backend selected whose profile rejects manual pipeline schedules, reports a
    `T.Pipelined` loop that gives `order` or `stage` (or the `tl_pipeline_order` /
    `tl_pipeline_stage` annotations). A profile may reject them always
    (`manual_schedule = "rejected"`) or only when the loop body uses the backend's own
    schedule scopes (`manual_rejected_with`): on `ascend`, `order`/`stage` on a loop whose
    body is made of `T.Stage` scopes fail the build. The message quotes the backend's error.

    ## Why is this bad?
    TileLang's Ascend backend derives each pipe's issue order from source order and takes
    manual stages from `T.Stage` scopes; its AutoSchedule stops with an ICHECK when such a
    loop also carries `tl_pipeline_order` or `tl_pipeline_stage`
    ([`src/ascend/transform/auto_schedule.cc`](https://github.com/tile-ai/tilelang/blob/v0.1.15/src/ascend/transform/auto_schedule.cc)): "Ascend manual AutoSchedule derives each pipe's issue order
    from source order; remove the T.Pipelined order argument". The kernel does not build.

    ## Example
    ```python
    for k in T.Pipelined(K, num_stages=2, order=[0, 1], stage=[0, 0]):
        with T.Stage(0):
            T.copy(A[k, 0], A_ub)
        with T.Stage(0):
            T.gemm(A_l0a, B_l0b, C_l0c)
    ```

    ## Use instead
    ```python
    for k in T.Pipelined(K, num_stages=2):
        with T.Stage(0):
            T.copy(A[k, 0], A_ub)
        with T.Stage(0):
            T.gemm(A_l0a, B_l0b, C_l0c)
    ```

    ## Backends
    `ascend` (only for loops whose body uses `T.Stage` scopes; elsewhere Ascend ignores
    `order`/`stage`, which `schedule-dropped` reports), and user profiles with
    `manual_schedule = "rejected"`. No other shipped profile rejects manual schedules, and
    nothing is reported without a backend.
    """

    CODE = "TL202"
    NAME = "manual-schedule-rejected"
    GRADE = Grade.CONTRACT
    HELP = "Remove `order`/`stage` and express the schedule the way the backend expects (`T.Stage` scopes on Ascend)."
    CHECKLIST = Checklist(
        grade="Contract: a manual schedule is legal TileLang; the selected backend's AutoSchedule refuses it.",
        shape="A serial For with tl_pipeline_order or tl_pipeline_stage annotations whose direct children "
        "are T.Stage scopes (Ascend), after target resolution.",
        smallest_invalid="`for k in T.Pipelined(4, order=[0, 1], stage=[0, 0]): with T.Stage(0): ...` under "
        "--backend ascend",
        closest_valid="The same loop without order/stage (T.Stage scopes carry the manual schedule).",
        siblings="Per loop: only the loop carrying the schedule is reported.",
        neutral_wrappers="The scopes must be the loop's direct children, as AutoSchedule inspects them.",
        generated_ir="Only user-written order/stage; T.Stage scopes are the backend's own manual form.",
        proof="Proven when the loop's direct body is known; an unknown statement in it keeps the rule silent.",
        first_pass="Ascend AutoSchedule (Z3SchedulePythonLoop).",
        rewrite="Drop order/stage; keep num_stages and the T.Stage scopes.",
    )
    VALID = [
        Valid(_STAGED),
        Valid(_STAGED, backend="cuda-sm80"),
        Valid(_STAGE_SCOPES, backend="ascend"),
        Valid(
            KERNEL
            + "        for k in T.Pipelined(4, order=[0], stage=[0]):\n            B[k, 0] = A[k, 0]\n",
            backend="ascend",
        ),
    ]
    INVALID = [
        Invalid(
            _STAGED,
            at=((7, 18),),
            backend="ascend",
            message="remove the T.Pipelined order argument",
        ),
    ]

    def check(self, ctx: Context) -> None:
        profile = backend(ctx)
        if profile is None:
            return
        for loop, _ in requested_loops(ctx):
            request = loop.pipeline
            assert request is not None
            if not (request.has_order or request.has_stage):
                continue
            scoped = False
            if profile.manual_schedule != REJECTED:
                if (
                    not profile.manual_rejected_with
                    or scope_named(loop, profile.manual_rejected_with) is not True
                ):
                    continue
                scoped = True
            error = profile.manual_rejection if request.has_order else profile.manual_stage_rejection
            error = error or profile.manual_rejection
            because = f" whose body uses `T.{profile.manual_rejected_with}` scopes" if scoped else ""
            quoted = f': "{error}"' if error else ""
            ctx.report(
                loop.site,
                f"The {profile.name} backend rejects the manual schedule "
                f"({describe_request(request, 'manual').removeprefix('the manual schedule ')}) on a loop{because}; "
                f"the kernel does not build{quoted}{ctx.macro_note(loop.site)}",
            )
