"""What is wrong with a loop's pipeline metadata, shared by TL203, TL301 and TL305 (not a rule module).

Measured with TileLang 0.1.15 (`tools/oracle/schedule_questions.py`): a manual schedule with
another number of entries than the pipeline body has statements, an `order` that gives two
statements the same position, or a negative `stage` fails PipelinePlanning /
InjectSoftwarePipeline on cuda sm_80 and hip gfx942, but lowers on sm_90a when the loop takes
the warp-specialized path (the manual schedule is then not used). An `order` with gaps or
negative positions (`[0, 1, 3]`, `[-1, 0, 1]`) lowers: only the relative order counts. A lone
`order` or `stage`, and a negative `num_stages`, are dropped without a word on every target.
"""

from __future__ import annotations

from tilecheck.tilelang.model import Loop, PipelineRequest, Stmt, StmtKind
from tilecheck.tilelang.values import PyConst, Value


def malformed(request: PipelineRequest, statements: int | None = None) -> list[str]:
    """Problems of a manual schedule that the manual-schedule planner rejects, in TileLang's words;
    `statements` is the number of statements of the loop body (after macro inlining and folding
    Python-level conditions) when the model knows it exactly."""
    found: list[str] = []
    order, stage = request.order_values, request.stage_values
    size_rule = (
        "TileLang's PipelinePlanning expects the pipeline annotation size to match the statement count"
    )
    if order and stage and len(order) != len(stage):
        found.append(
            f"`order` has {len(order)} entries and `stage` {len(stage)}, so one of them does not match the "
            f"number of statements of the loop body{_counted(statements)}; {size_rule}"
        )
    elif order and stage and statements is not None and len(order) != statements:
        found.append(
            f"`order` and `stage` have {len(order)} entries but the loop body has {statements} statements "
            f"after macro inlining; {size_rule}"
        )
    repeated = sorted({value for value in order if order.count(value) > 1}) if order else []
    if order and repeated:
        positions = ", ".join(str(value) for value in repeated)
        found.append(
            f'`order={list(order)}` gives two statements the same position ({positions}): "Two statements in '
            'the software pipeline cannot have the same order"'
        )
    if stage and any(value < 0 for value in stage):
        found.append(f"`stage={list(stage)}` has a negative stage, which InjectSoftwarePipeline rejects")
    return found


def _counted(statements: int | None) -> str:
    return f" ({statements})" if statements is not None else ""


def ignored(request: PipelineRequest) -> list[str]:
    """Pipeline metadata that every backend drops silently: the loop runs without it."""
    found: list[str] = []
    if request.stages is not None and request.stages < 0:
        found.append(
            f"num_stages={request.stages} is negative; TileLang writes no pipeline annotation for it and "
            "the loop runs serially"
        )
    order_absent = _absent(request.order, request.annotations, "tl_pipeline_order")
    stage_absent = _absent(request.stage, request.annotations, "tl_pipeline_stage")
    lone = "TileLang plans a manual schedule only when both are given, so this one is ignored"
    if request.has_order and stage_absent:
        found.append(f"`order` without `stage`; {lone}")
    if request.has_stage and order_absent:
        found.append(f"`stage` without `order`; {lone}")
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


def statement_count(loop: Loop) -> int | None:
    """How many statements the loop body has in TileLang's IR, when that is certain: two or more
    plain statements (copies, gemms, stores). A Bind wraps the statements after it, a Python-level
    condition may add or remove some, and a body of nested loops is planned differently (a
    nested pipeline is serialised without this check): then None."""
    if len(loop.body) < 2:
        return None
    for item in loop.body:
        if not item.certain or not (isinstance(item, Stmt) and item.kind in (StmtKind.EVAL, StmtKind.STORE)):
            return None
    return len(loop.body)
