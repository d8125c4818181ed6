from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.model import Loop
from tilecheck.tilelang.queries import kernel_items

from .._examples import KERNEL
from ._schedules import ignored

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


def _loop(header: str) -> str:
    return (
        KERNEL + f"        for k in {header}:\n            B[k, 0] = A[k, 0]\n            B[k, 1] = A[k, 1]\n"
    )


class IgnoredPipelineSchedule(Rule):
    """Pipeline metadata that TileLang drops on every backend: the loop runs without it.

    ## What it does
    Reports, once per loop, pipeline metadata whose values are literals or constants and
    that no backend uses:
    - a negative `num_stages` (`T.Pipelined(K, num_stages=-1)`);
    - `order` without `stage`, or `stage` without `order` (as arguments of `T.Pipelined` or
      as `tl_pipeline_order` / `tl_pipeline_stage` annotations).

    ## Why is this bad?
    The kernel builds and runs, but not as written: `T.Pipelined` writes its `num_stages`
    annotation only when the value is positive
    ([`tilelang/language/loop.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/language/loop.py)),
    so a negative value gives a plain serial loop, and `PipelinePlanning` plans a manual
    schedule only when both `order` and `stage` are present
    ([`src/transform/pipeline_planning.cc`](https://github.com/tile-ai/tilelang/blob/v0.1.15/src/transform/pipeline_planning.cc)),
    so a lone one is ignored. Lowering such kernels with TileLang 0.1.15 for cuda sm_80,
    sm_90a and hip gfx942 succeeds without a warning (`tools/oracle/schedule_questions.py`).

    ## Example
    ```python
    for k in T.Pipelined(K, order=[0, 1]):
        ...
    ```

    ## Use instead
    ```python
    for k in T.Pipelined(K, order=[0, 1], stage=[0, 1]):
        ...
    ```
    or `num_stages=2` to let TileLang plan the schedule.

    ## Backends
    All, and with no backend selected: no backend uses this metadata. It is a note: the
    kernel is correct, it only runs without the schedule.
    """

    CODE = "TL305"
    NAME = "ignored-pipeline-schedule"
    GRADE = Grade.OPTIMIZATION
    HELP = "Give `order` and `stage` together, or a positive num_stages; otherwise drop the metadata."
    CHECKLIST = Checklist(
        grade="Optimization: the loop is valid and runs, but without the requested schedule.",
        shape="A For whose num_stages is a negative literal, or with only one of tl_pipeline_order / "
        "tl_pipeline_stage (from T.Pipelined's arguments or annotations).",
        smallest_invalid="`for k in T.Pipelined(8, order=[0, 1]): ...`",
        closest_valid="`for k in T.Pipelined(8, order=[0, 1], stage=[0, 1]): ...`",
        siblings="Per loop.",
        neutral_wrappers="No: the metadata belongs to the loop itself.",
        generated_ir="Only user-written metadata.",
        proof="Proven from literal or constant values; an annotation dict tilecheck cannot read is not "
        "checked.",
        first_pass="T.Pipelined itself (num_stages) and PipelinePlanning (order/stage).",
        rewrite="Both arrays, or a positive num_stages.",
    )
    VALID = [
        Valid(_loop("T.Pipelined(8, order=[0, 1], stage=[0, 1])")),
        Valid(_loop("T.Pipelined(8, num_stages=0)")),
        Valid(_loop("T.Pipelined(8, order=[], stage=[])")),
    ]
    INVALID = [
        Invalid(_loop("T.Pipelined(8, order=[0, 1])"), at=((7, 18),), message="`order` without `stage`"),
        Invalid(_loop("T.Pipelined(8, stage=[0, 1])"), at=((7, 18),), message="`stage` without `order`"),
        Invalid(_loop("T.Pipelined(8, num_stages=-1)"), at=((7, 18),), message="num_stages=-1 is negative"),
        Invalid(
            _loop('T.serial(8, annotations={"tl_pipeline_stage": [0, 1]})'),
            at=((7, 18),),
            message="`stage` without `order`",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, _ in kernel_items(ctx.model.kernels):
            if not isinstance(item, Loop) or item.pipeline is None or not item.certain:
                continue
            problems = ignored(item.pipeline)
            if problems:
                what = "; and ".join(problems)
                ctx.report(
                    item.site,
                    f"Pipeline metadata ignored by every backend: {what}{ctx.macro_note(item.site)}",
                )
