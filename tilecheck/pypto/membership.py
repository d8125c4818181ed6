"""`pipeline_membership` tags: which assignments the pass stamps, and how the tag is written.

The pass tags the Call on the right of an assignment whose variable has a TileType, except a
`tile.matmul*` whose result lives in the accumulator (Mem.Acc), unless the loop being lowered
sets `pipeline_double_buffer_c=True`. Source has no types, so tilecheck decides "tile" from:

- an annotation `x: pl.Tile[...] = <call>` (any call: a `pl.tile.*` op, a unified op such as
  `pl.add`, or a call of another `@pl.function`);
- with no annotation, a `pl.tile.<op>` whose result is always a tile (the list below, read from
  PyPTO's `language/op/tile_ops.py`).

Not decidable statically, and therefore left untagged (PyPTO tags them after its tensor-to-tile
conversion): unannotated tensor-level and unified ops (`pl.add`, `pl.matmul`, `pl.load`,
slicing), `pl.tile.max`/`pl.tile.min` (tile or scalar by argument type), tuple-unpacking
assignments, and calls whose `attrs=` is not a dict literal. A matmul result counts as Acc
unless its annotation names another memory space, since PyPTO infers Acc for every
`tile.matmul*` before the pass runs.
"""

from __future__ import annotations

import libcst as cst

from tilecheck.analysis.evaluate import string_value
from tilecheck.pypto.cstutil import replace
from tilecheck.pypto.dsl import Aliases

KEY = "pipeline_membership"

TILE_OPS = frozenset(
    [
        "create",
        "create_tile",
        "load",
        "assemble",
        "extract",
        "scatter_update",
        "concat",
        "move",
        "full",
        "ci",
        "arange",
        "fillpad",
        "fillpad_inplace",
        "add",
        "sub",
        "mul",
        "div",
        "adds",
        "subs",
        "muls",
        "divs",
        "neg",
        "exp",
        "sin",
        "cos",
        "sqrt",
        "rsqrt",
        "recip",
        "log",
        "abs",
        "relu",
        "cast",
        "matmul",
        "batch_matmul",
        "matmul_acc",
        "batch_matmul_acc",
        "matmul_bias",
        "gemv",
        "gemv_acc",
        "gemv_bias",
        "row_max",
        "row_sum",
        "row_min",
        "col_sum",
        "col_max",
        "col_min",
        "maximum",
        "row_expand",
        "row_expand_sub",
        "row_expand_div",
        "row_expand_mul",
        "row_expand_add",
        "col_expand",
        "col_expand_mul",
        "col_expand_div",
        "col_expand_sub",
        "expands",
        "minimum",
        "cmp",
        "cmps",
        "sum",
        "slice",
        "reshape",
        "transpose",
        "set_validshape",
        "rem",
        "rems",
        "and_",
        "ands",
        "or_",
        "ors",
        "xor",
        "xors",
        "shl",
        "shls",
        "shr",
        "shrs",
        "maximums",
        "minimums",
        "prelu",
        "not_",
        "addc",
        "subc",
        "addsc",
        "subsc",
        "lrelu",
        "sel",
        "sels",
        "sort32",
        "gather",
        "gather_mask",
        "mrgsort",
    ]
)
_NOT_OP_CALLS = frozenset({"yield_", "const"})
_MEMORY_ENUMS = ("Mem.", "MemorySpace.")


def _memory_in(node: cst.CSTNode, aliases: Aliases) -> str | None:
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Attribute):
            member = aliases.member(current)
            if member is not None:
                for enum in _MEMORY_ENUMS:
                    if member.startswith(enum):
                        return member[len(enum) :]
        stack.extend(current.children)
    return None


def tile_call(small: cst.BaseSmallStatement, aliases: Aliases) -> tuple[cst.Call, bool] | None:
    """(call, is_acc_matmul) when `small` assigns a tile-producing call to one name."""
    annotation: cst.BaseExpression | None = None
    if isinstance(small, cst.Assign):
        if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
            return None
        value = small.value
    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
        value = small.value
        annotation = small.annotation.annotation
    else:
        return None
    if not isinstance(value, cst.Call):
        return None
    op = aliases.member(value.func)
    if op in _NOT_OP_CALLS:
        return None
    memory = None
    if annotation is not None:
        head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
        if aliases.member(head) != "Tile":
            return None
        memory = _memory_in(annotation, aliases)
    elif op is None or not op.startswith("tile.") or op[5:] not in TILE_OPS:
        return None
    short = op.rsplit(".", 1)[-1] if op else ""
    is_matmul = op is not None and op in (short, "tile." + short) and short.startswith("matmul")
    return value, is_matmul and memory in (None, "Acc")


def _string(text: str) -> cst.SimpleString:
    return replace(_STRING, {"value": '"' + text + '"'})


def _pair_of(value: cst.BaseExpression) -> str | None:
    if isinstance(value, cst.SimpleString):
        text = string_value(value)
        return text if isinstance(text, str) else None
    return None


def tag(call: cst.Call, pair: str) -> cst.Call | None:
    """`call` with `pair` ("g:s") appended to its membership (made the last attr); None if impossible.

    New nodes are copies of prototypes (`replace`): libcst's constructors validate every node.
    """
    args = list(call.args)
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == "attrs":
            if not isinstance(arg.value, cst.Dict):
                return None
            elements = list(arg.value.elements)
            packed = ""
            for position, element in enumerate(elements):
                if isinstance(element, cst.DictElement) and _pair_of(element.key) == KEY:
                    existing = _pair_of(element.value)
                    if existing is None:
                        return None
                    packed = existing
                    del elements[position]
                    break
            value = packed + ";" + pair if packed else pair
            if elements:
                elements[-1] = replace(elements[-1], {"comma": cst.MaybeSentinel.DEFAULT})
            elements.append(_entry(value))
            args[index] = replace(arg, {"value": replace(arg.value, {"elements": elements})})
            return replace(call, {"args": args})
    attrs = replace(_ATTRS_ARG, {"value": replace(_DICT, {"elements": [_entry(pair)]})})
    if args and args[-1].comma is not cst.MaybeSentinel.DEFAULT and not args[-1].star:
        last = args[-1]
        if isinstance(last.comma, cst.Comma) and _is_multiline(last.comma):
            return replace(call, {"args": [*args, attrs]})
        args[-1] = replace(last, {"comma": cst.MaybeSentinel.DEFAULT})
    args.append(attrs)
    return replace(call, {"args": args})


def _entry(value: str) -> cst.DictElement:
    return replace(_ENTRY, {"value": _string(value)})


_EQUAL = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
)
_STRING = cst.SimpleString('""')
_ENTRY = cst.DictElement(cst.SimpleString('"' + KEY + '"'), _STRING)
_DICT = cst.Dict([])
_ATTRS_ARG = cst.Arg(_DICT, keyword=cst.Name("attrs"), equal=_EQUAL)


def _is_multiline(comma: cst.Comma) -> bool:
    return isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)
