"""What a kernel's parameters and annotated declarations hold, read from their annotations.

Apart from `statements` because an annotation is read alone: nothing is emitted.
"""

from __future__ import annotations

import libcst as cst

from tilecheck.tilelang.allocation import allocation_dtype
from tilecheck.tilelang.evaluate import ExpressionEvaluator
from tilecheck.tilelang.language import SCALAR_ANNOTATIONS, TENSOR_ANNOTATIONS
from tilecheck.tilelang.scope import Frame, Sink
from tilecheck.tilelang.values import (
    PY_INT,
    UNKNOWN,
    Buffer,
    BufferValue,
    PyConst,
    PyValue,
    TirExpr,
    Value,
    Var,
    VarKind,
)


def parameter_value(evaluator: ExpressionEvaluator, param: cst.Param, frame: Frame) -> Value:
    """What a kernel parameter holds: a buffer, a symbolic scalar, or a Python value."""
    if param.annotation is None:
        if param.default is not None:  # a Python parameter of an eager-JIT kernel
            default = evaluator.value(param.default, frame, Sink([]))
            return PY_INT if isinstance(default, PyConst) and type(default.value) is int else PyValue()
        return UNKNOWN
    return annotation_value(evaluator, param.name.value, param.annotation, param, frame)


def annotation_value(
    evaluator: ExpressionEvaluator,
    name: str,
    annotation_node: cst.Annotation,
    node: cst.CSTNode,
    frame: Frame,
) -> Value:
    """What a kernel parameter (or an eager-JIT declaration) annotated this way holds."""
    annotation = annotation_node.annotation
    if isinstance(annotation, cst.Name) and annotation.value in ("int", "float", "bool"):
        return PY_INT if annotation.value == "int" else PyValue()
    head = annotation.func if isinstance(annotation, cst.Call) else annotation
    if isinstance(annotation, cst.Subscript):
        head = annotation.value
    api = evaluator.api(head, frame)
    if api in SCALAR_ANNOTATIONS:
        return TirExpr.of_var(Var(name, VarKind.SYMBOL))
    if api in TENSOR_ANNOTATIONS:
        shape = None
        if isinstance(annotation, cst.Call) and annotation.args:
            value = evaluator.value(annotation.args[0].value, frame, Sink([]))
            if isinstance(value, PyConst) and isinstance(value.value, (tuple, list)):
                shape = tuple(v if isinstance(v, Value) else PyConst(v) for v in value.value)
        buffer = Buffer(name, "global", node, shape, "param")
        if isinstance(annotation, cst.Call):
            # The element type, as an allocation's (`T.Tensor((M, K), "float16")`): a TMA load
            # needs the tile's dtype to be the tensor's.
            args = [evaluator.value(arg.value, frame, Sink([])) for arg in annotation.args]
            buffer.dtype = allocation_dtype(annotation, args)
        return BufferValue(buffer)
    return UNKNOWN
