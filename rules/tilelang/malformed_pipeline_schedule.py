from tilecheck.analysis.model import Loop, PipelineRequest
from tilecheck.analysis.queries import kernel_items
from tilecheck.analysis.values import PyConst, Value
from tilecheck.context import Context
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.rules._examples import KERNEL
from tilecheck.types import Grade


def _loop(header: str) -> str:
    return (
        KERNEL + f"        for k in {header}:\n            B[k, 0] = A[k, 0]\n            B[k, 1] = A[k, 1]\n"
    )


class MalformedPipelineSchedule(Rule):
    """Malformed pipeline metadata: negative `num_stages`, or a bad `order`/`stage` pair.

    ## What it does
    Checks the schedule arguments of `T.Pipelined` (and the `num_stages`,
    `tl_pipeline_order`, `tl_pipeline_stage` annotations of any loop) when their values are
    literals or constants, and reports:
    - a negative `num_stages`;
    - `order` without `stage`, or `stage` without `order`;
    - `order` and `stage` of different lengths;
    - an `order` that is not a permutation of `0 .. len(order) - 1`;
    - a negative stage.

    ## Why is this bad?
    TileLang's operations-layout rules require `order` and `stage` "present together and
    aligned", with "valid stage/order/group arrays of consistent length", and classify
    malformed metadata as invalid (reference §1.4). The lowering does not diagnose it: its
    PipelinePlanning plans a manual schedule only when both annotations are present
    (`pipeline_planning.cc:1087`), so a lone `order` or `stage` is dropped without a word,
    and `T.Pipelined` writes `num_stages` only when it is positive, so a negative value
    silently yields a serial loop. Mismatched arrays reach the software-pipeline injector
    as a schedule that does not describe the loop body.

    ## Example
    ```python
    for k in T.Pipelined(K, order=[0, 1]):                 # stage missing
        ...
    for k in T.Pipelined(K, order=[0, 0], stage=[0, 1]):   # order is not a permutation
        ...
    ```

    ## Use instead
    ```python
    for k in T.Pipelined(K, order=[0, 1], stage=[0, 1]):
        ...
    ```
    (one order position and one stage per statement of the loop body), or `num_stages=2`
    to let TileLang plan the schedule.

    ## Backends
    All, and with no backend selected: the metadata is malformed before any target is chosen.
    """

    CODE = "TL203"
    NAME = "malformed-pipeline-schedule"
    GRADE = Grade.SEMANTIC
    HELP = (
        "Give `order` and `stage` together, with one entry per statement of the loop body: `order` a "
        "permutation of 0..n-1 and non-negative stages; use num_stages >= 0."
    )
    CHECKLIST = Checklist(
        grade="Semantic: malformed pipeline metadata is invalid for every lowering (operations-layout.md).",
        shape="A For whose num_stages / tl_pipeline_order / tl_pipeline_stage values (from T.Pipelined's "
        "arguments or annotations) are literal and inconsistent.",
        smallest_invalid="`for k in T.Pipelined(8, order=[0, 1]): ...`",
        closest_valid="`for k in T.Pipelined(8, order=[0, 1], stage=[0, 1]): ...`",
        siblings="Per loop: each loop's metadata is checked on its own.",
        neutral_wrappers="No: the metadata belongs to the loop itself.",
        generated_ir="Only user-written metadata.",
        proof="Proven from literal or constant values only; a value tilecheck cannot evaluate is not checked.",
        first_pass="PipelinePlanning (manual branch) and InjectSoftwarePipeline.",
        rewrite="Give both arrays, consistent lengths, a permutation for order, non-negative stages.",
    )
    VALID = [
        Valid(_loop("T.Pipelined(8, order=[0, 1], stage=[0, 1])")),
        Valid(_loop("T.Pipelined(8, num_stages=0)")),
        Valid(_loop("T.Pipelined(8, order=[], stage=[])")),
        Valid(_loop('T.serial(8, annotations={"tl_pipeline_order": [1, 0], "tl_pipeline_stage": [0, 1]})')),
    ]
    INVALID = [
        Invalid(_loop("T.Pipelined(8, order=[0, 1])"), at=((7, 18),), message="`order` without `stage`"),
        Invalid(_loop("T.Pipelined(8, stage=[0, 1])"), at=((7, 18),), message="`stage` without `order`"),
        Invalid(_loop("T.Pipelined(8, order=[0, 1], stage=[0])"), at=((7, 18),), message="different lengths"),
        Invalid(
            _loop("T.Pipelined(8, order=[0, 0], stage=[0, 1])"), at=((7, 18),), message="not a permutation"
        ),
        Invalid(_loop("T.Pipelined(8, order=[0, 1], stage=[0, -1])"), at=((7, 18),), message="negative"),
        Invalid(_loop("T.Pipelined(8, num_stages=-1)"), at=((7, 18),), message="num_stages=-1"),
        Invalid(
            _loop('T.serial(8, annotations={"tl_pipeline_order": [0, 2], "tl_pipeline_stage": [0, 1]})'),
            at=((7, 18),),
            message="not a permutation",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, _ in kernel_items(ctx.model.kernels):
            if not isinstance(item, Loop) or item.pipeline is None or not item.certain:
                continue
            for problem in problems(item.pipeline):
                ctx.report(item.site, f"Malformed pipeline schedule: {problem}{ctx.macro_note(item.site)}")


def problems(request: PipelineRequest) -> list[str]:
    found: list[str] = []
    if request.stages is not None and request.stages < 0:
        found.append(
            f"num_stages={request.stages} is negative; TileLang writes no pipeline annotation for it and "
            "the loop silently runs serially"
        )
    order_absent = _absent(request.order, request.annotations, "tl_pipeline_order")
    stage_absent = _absent(request.stage, request.annotations, "tl_pipeline_stage")
    lone = "TileLang plans a manual schedule only when both are given, so this one is silently ignored"
    if request.has_order and stage_absent:
        found.append(f"`order` without `stage`; {lone}")
    if request.has_stage and order_absent:
        found.append(f"`stage` without `order`; {lone}")
    order, stage = request.order_values, request.stage_values
    if order and stage and len(order) != len(stage):
        found.append(
            f"`order` ({len(order)} entries) and `stage` ({len(stage)} entries) have different lengths; "
            "both need one entry per statement of the loop body"
        )
    if order and sorted(order) != list(range(len(order))):
        found.append(f"`order={list(order)}` is not a permutation of 0..{len(order) - 1}")
    if stage and any(value < 0 for value in stage):
        found.append(f"`stage={list(stage)}` has a negative stage")
    return found


def _absent(value: Value | None, annotations: Value | None, key: str) -> bool:
    """Proven absent (or empty) both as an argument and as an annotation key."""
    if value is not None and not (
        isinstance(value, PyConst) and (value.value is None or value.value in ([], ()))
    ):
        return False
    if annotations is None:
        return True
    if isinstance(annotations, PyConst):
        return annotations.value is None or (
            isinstance(annotations.value, dict) and key not in annotations.value
        )
    return False
