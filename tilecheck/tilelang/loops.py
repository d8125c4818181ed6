"""TileLang's loop constructors: signatures, bounds and pipeline requests (reference §2.2)."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tilecheck.tilelang.model import LoopKind, PipelineRequest, Request
from tilecheck.tilelang.values import PyConst, PyValue, Value

# API name -> (kind, positional parameter names). `range` is Python's builtin.
CONSTRUCTORS: dict[str, tuple[LoopKind, tuple[str, ...]]] = {
    "Parallel": (LoopKind.PARALLEL, ()),  # *extents
    "parallel": (LoopKind.PARALLEL, ("start", "stop")),
    "Pipelined": (LoopKind.PIPELINED, ("start", "stop", "num_stages", "order", "stage")),
    "Persistent": (LoopKind.PERSISTENT, ("domain", "wave_size", "index", "group_size", "num_stages")),
    "serial": (LoopKind.SERIAL, ("start", "stop", "step")),
    "Serial": (LoopKind.SERIAL, ("start", "stop", "step")),
    "unroll": (LoopKind.UNROLLED, ("start", "stop", "step")),
    "Unroll": (LoopKind.UNROLLED, ("start", "stop", "step")),
    "vectorized": (LoopKind.VECTORIZED, ("start", "stop")),
    "Vectorized": (LoopKind.VECTORIZED, ("start", "stop")),
    "grid": (LoopKind.GRID, ()),  # *extents
    "thread_binding": (LoopKind.THREAD_BINDING, ("start", "stop", "thread")),
}

PIPELINE_ANNOTATION_KEYS = ("num_stages", "tl_pipeline_order", "tl_pipeline_stage")


@dataclass
class ConstructorCall:
    """A loop constructor call with its arguments matched to parameter names."""

    api: str
    kind: LoopKind
    call: cst.Call
    extents: list[cst.BaseExpression]  # for the variadic constructors
    named: dict[str, cst.BaseExpression]
    starred: bool  # *args or **kwargs: arguments cannot be matched
    extra: tuple[cst.BaseExpression, ...] = ()  # positional arguments beyond the signature


def match(api: str, call: cst.Call) -> ConstructorCall:
    kind, params = CONSTRUCTORS[api]
    extents: list[cst.BaseExpression] = []
    named: dict[str, cst.BaseExpression] = {}
    starred = False
    position = 0
    extra: list[cst.BaseExpression] = []
    for arg in call.args:
        if arg.star:
            starred = True
        elif arg.keyword is not None:
            named[arg.keyword.value] = arg.value
        elif not params:
            extents.append(arg.value)
        elif position < len(params):
            named[params[position]] = arg.value
            position += 1
        else:
            starred = True  # too many positional arguments: TileLang raises TypeError
            extra.append(arg.value)
    return ConstructorCall(api, kind, call, extents, named, starred, tuple(extra))


def _literal_length(value: Value) -> int | None:
    if isinstance(value, PyConst):
        if value.value is None:
            return 0
        if isinstance(value.value, (list, tuple)):
            return len(value.value)
    return None


def pipeline_request(
    num_stages: Value | None,
    order: Value | None,
    stage: Value | None,
    annotations: Value | None,
    positional_stages: bool = False,
) -> PipelineRequest:
    """Classify a loop as a bare, requested or unknown pipeline (one rule, used everywhere).

    Requested: num_stages > 0, a non-empty order or stage, or a pipeline key in
    `annotations` (TileLang tests key presence). `num_stages=0`, empty lists and
    group/sync metadata alone are not requests.
    """
    reasons: list[str] = []
    unknown = False
    requests_stages = requests_manual = False
    present: set[str] = set()
    stages: int | None = None
    if num_stages is not None:
        if isinstance(num_stages, PyConst) and type(num_stages.value) is int:
            stages = num_stages.value
            if num_stages.value > 0:
                reasons.append(f"num_stages={num_stages.value}")
                requests_stages = True
        elif not (isinstance(num_stages, PyConst) and num_stages.value is None):
            unknown = True
    for name, value in (("order", order), ("stage", stage)):
        if value is None:
            continue
        length = _literal_length(value)
        if length is None:
            unknown = True
        elif length > 0:
            reasons.append(f"{name}=[...]")
            requests_manual = True
            present.add(name)
    order_values = literal_ints(order)
    stage_values = literal_ints(stage)
    if annotations is not None:
        if isinstance(annotations, PyConst) and isinstance(annotations.value, dict):
            for key, item in annotations.value.items():
                if key in PIPELINE_ANNOTATION_KEYS:
                    reasons.append(f'annotations["{key}"]')
                    if key == "num_stages":
                        requests_stages = True
                        raw = item.value if isinstance(item, PyConst) else item
                        if type(raw) is int:
                            stages = raw
                    else:
                        requests_manual = True
                        present.add("order" if key == "tl_pipeline_order" else "stage")
                        if key == "tl_pipeline_order" and order_values is None:
                            order_values = literal_ints(item)
                        if key == "tl_pipeline_stage" and stage_values is None:
                            stage_values = literal_ints(item)
        elif not (isinstance(annotations, PyConst) and annotations.value is None):
            unknown = True
    if reasons:
        state = Request.REQUESTED
    elif unknown or isinstance(num_stages, PyValue):
        state = Request.UNKNOWN
    else:
        state = Request.BARE
    return PipelineRequest(
        state=state,
        num_stages=num_stages,
        num_stages_positional=positional_stages,
        order=order,
        stage=stage,
        annotations=annotations,
        reasons=tuple(reasons),
        requests_stages=requests_stages,
        requests_manual=requests_manual,
        has_order="order" in present,
        has_stage="stage" in present,
        stages=stages,
        order_values=order_values,
        stage_values=stage_values,
    )


def literal_ints(value: Value | None) -> tuple[int, ...] | None:
    """The integers of a literal or constant list/tuple (`[0, 1]`), else None."""
    if not isinstance(value, PyConst) or not isinstance(value.value, (list, tuple)):
        return None
    result: list[int] = []
    for item in value.value:
        raw = item.value if isinstance(item, PyConst) else item
        if type(raw) is not int:
            return None
        result.append(raw)
    return tuple(result)
