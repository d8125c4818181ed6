"""The buffers TileLang calls make: `T.alloc_*` allocations and `T.reshape`/`T.view` views.

Apart from `evaluate` so that the evaluator keeps to walking expressions; these read only a
call's syntax, its evaluated arguments and where the frame is.
"""

from __future__ import annotations

import libcst as cst

from tilecheck.tilelang.language import ALLOCATIONS, DTYPES
from tilecheck.tilelang.scope import Frame
from tilecheck.tilelang.syntax import string_literal
from tilecheck.tilelang.values import Buffer, BufferValue, PyConst, PyValue, TirExpr, Value


def allocated(api: str, node: cst.Call, args: list[Value], frame: Frame) -> Buffer:
    """The buffer a `T.alloc_*` call allocates (`args`: its evaluated arguments)."""
    scope = ALLOCATIONS[api]
    shape: tuple[Value, ...] | None = None
    positional = [arg for arg in node.args if arg.keyword is None]
    scope_arg = positional[2] if len(positional) > 2 and api != "alloc_var" else None
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == "scope":
            scope_arg = arg
    if scope_arg is not None:
        text = string_literal(scope_arg.value)
        if text is None:  # a name or a parameter holding the scope: its value, when known
            index = next(i for i, arg in enumerate(node.args) if arg is scope_arg)
            value = args[index] if index < len(args) else None
            text = value.value if isinstance(value, PyConst) and isinstance(value.value, str) else None
        scope = text if text is not None else "?"
    at = next(
        (
            index
            for index, arg in enumerate(node.args)
            if (arg.keyword is None and index == 0)
            or (arg.keyword is not None and arg.keyword.value == "shape")
        ),
        None,
    )
    if api != "alloc_var" and at is not None and at < len(args):
        shape_value = args[at]
        if isinstance(shape_value, PyConst) and isinstance(shape_value.value, (tuple, list)):
            shape = tuple(v if isinstance(v, Value) else PyConst(v) for v in shape_value.value)
        elif isinstance(shape_value, (PyConst, PyValue, TirExpr)):
            shape = (shape_value,)
    path = frame.origin[-1].path if frame.origin else None
    buffer = Buffer(name="", scope=scope, node=node, shape=shape, api=api, top=frame.top, path=path)
    buffer.dtype = allocation_dtype(node, args)
    return buffer


def viewed(api: str, node: cst.Call, args: list[Value], frame: Frame) -> Buffer:
    """`T.reshape(src, shape)` / `T.view(src, ...)`: a new buffer over `src`'s data, in its scope."""
    source = args[0] if args else None
    scope = source.buffer.scope if isinstance(source, BufferValue) else "?"
    shape_value = args[1] if len(args) > 1 and node.args[1].keyword is None else None
    shape: tuple[Value, ...] | None = None
    if isinstance(shape_value, PyConst) and isinstance(shape_value.value, (tuple, list)):
        shape = tuple(v if isinstance(v, Value) else PyConst(v) for v in shape_value.value)
    path = frame.origin[-1].path if frame.origin else None
    return Buffer(name="", scope=scope, node=node, shape=shape, api=api, top=frame.top, path=path)


def allocation_dtype(node: cst.Call, args: list[Value]) -> str | None:
    """The element type of an allocation: its second argument (or `dtype=`) when constant."""
    for position, (arg, value) in enumerate(zip(node.args, args, strict=False)):
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "dtype" or (keyword is None and position == 1):
            if isinstance(value, PyConst) and isinstance(value.value, str):
                return value.value
            if isinstance(value, PyValue) and value.dtype is not None:
                return value.dtype  # a name bound to `T.float16`
            if isinstance(arg.value, cst.Attribute) and arg.value.attr.value in DTYPES:
                return arg.value.attr.value  # `T.float16`
            return None
    return None


def copy_annotated(node: cst.Call, args: list[Value]) -> bool | None:
    """Whether keyword arguments add annotations (which take `T.copy` off its scalar fast
    path): None, False and empty containers add none; None when undecidable."""
    found: bool | None = False
    for arg, value in zip(node.args, args, strict=True):
        if arg.keyword is None or arg.keyword.value in ("src", "dst"):
            continue
        if not isinstance(value, PyConst):
            found = None if found is False else found
        elif value.value not in (None, False) and value.value != {} and value.value != []:
            return True
    return found
