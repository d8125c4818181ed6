"""`pipeline_membership` tags: which assignments the pass stamps, and how the tag is written.

The pass tags the Call on the right of an assignment whose variable has a TileType, except a
`tile.matmul*` whose result lives in the accumulator (Mem.Acc), unless the loop being lowered
sets `pipeline_double_buffer_c=True`. Source has no types, so tilecheck decides "tile" from:

- an annotation `x: pl.Tile[...] = <call>` (any call: a `pl.tile.*` op, a unified op such as
  `pl.add`, or a call of another `@pl.function`);
- with no annotation, a `pl.tile.<op>` whose result is always a tile (the list below, read from
  PyPTO's `language/op/tile_ops.py`), the unified `pl.load` (a tile load), or a unified op of
  that list (`pl.add`, `pl.matmul`, ...) whose first operand is a name known to be a tile: the
  DSL dispatches it to the tile op then (`t = pl.load(...); u = pl.add(t, t)` tags both).
  Known tiles (`tile_facts`) are such results, parameters annotated `pl.Tile[...]`, and the
  iter_args a tile seeds through `init_values`, in one function; known tensors likewise
  (parameters annotated `pl.Tensor`, and the iter_args such a tensor seeds).

Not decidable statically, and therefore left untagged: a unified op whose first operand's type
is unknown (an unannotated parameter, a value from a call tilecheck cannot type; `tile_facts`
lists these so the lowering can say so, TL492), `pl.tile.max`/`pl.tile.min` (tile or scalar by
argument type), tuple-unpacking assignments, and calls whose `attrs=` is not a dict literal.
A unified op on a known tensor (an operand annotated `pl.Tensor`) is a tensor op: untagged, as
in PyPTO. A matmul result counts as Acc unless its annotation names another memory space,
since PyPTO infers Acc for every `tile.matmul*` before the pass runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst

from tilecheck.pypto.cstutil import replace
from tilecheck.pypto.dsl import Aliases
from tilecheck.pypto.limits import statement_children
from tilecheck.tilelang.syntax import string_value

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
_ALWAYS_TILE_UNIFIED = frozenset({"load"})  # pl.load is tile.load
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


def tile_call(
    small: cst.BaseSmallStatement, aliases: Aliases, tiles: frozenset[str] = frozenset()
) -> tuple[cst.Call, bool] | None:
    """(call, is_acc_matmul) when `small` assigns a tile-producing call to one name; `tiles`
    are the names known to be tiles (`tile_facts`)."""
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
    elif op is None or _unified_kind(op, value, tiles) != "tile":
        return None
    short = op.rsplit(".", 1)[-1] if op else ""
    is_matmul = op is not None and op in (short, "tile." + short) and short.startswith("matmul")
    return value, is_matmul and memory in (None, "Acc")


def _unified_kind(
    op: str, call: cst.Call, tiles: frozenset[str], tensors: frozenset[str] = frozenset()
) -> str:
    """What an unannotated call of `op` returns: "tile", "tensor" (a unified op on a known
    tensor), "other" or "unknown"."""
    if op.startswith("tile."):
        return "tile" if op[5:] in TILE_OPS else "other"
    if op in _ALWAYS_TILE_UNIFIED:
        return "tile"
    if op not in TILE_OPS:
        return "other"
    first = next((arg.value for arg in call.args if arg.keyword is None and not arg.star), None)
    if isinstance(first, cst.Name):
        if first.value in tiles:
            return "tile"
        if first.value in tensors:
            return "tensor"
    return "unknown"


@dataclass
class TileFacts:
    """What one function's assignments say about tiles (see the module docstring)."""

    tiles: frozenset[str] = frozenset()
    # id of an assignment whose result may be a tile but cannot be decided -> the op it calls
    undecided: dict[int, str] = field(default_factory=dict)


def tile_facts(function: cst.FunctionDef, aliases: Aliases) -> TileFacts:
    tiles: set[str] = set()
    tensors: set[str] = set()
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.annotation is not None:
            annotation = param.annotation.annotation
            head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            (tiles if aliases.member(head) == "Tile" else tensors).add(param.name.value)
    assigns: list[tuple[cst.BaseSmallStatement, str, cst.Call]] = []
    slices: list[tuple[str, cst.BaseExpression]] = []  # `xs = x[...]`: (name, sliced value)
    seeds: list[tuple[str, cst.BaseExpression]] = []  # (iter_arg, init value)
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, cst.Name) and isinstance(node.value, cst.Call):
                assigns.append((node, target.value, node.value))
            elif isinstance(target, cst.Name) and isinstance(node.value, cst.Subscript):
                slices.append((target.value, node.value.value))
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
            head = node.annotation.annotation
            head = head.value if isinstance(head, cst.Subscript) else head
            (tiles if aliases.member(head) == "Tile" else tensors).add(node.target.value)
        elif isinstance(node, cst.For):
            _collect_seeds(node, seeds)
        stack.extend(statement_children(node))  # assignments are statements: expressions hold none
    undecided: dict[int, str] = {}
    for _ in range(4):  # names defined later seed earlier ones through iter_args: a few rounds
        before = len(tiles) + len(tensors)
        tensors.update(
            name for name, sliced in slices if isinstance(sliced, cst.Name) and sliced.value in tensors
        )
        undecided.clear()
        for small, name, call in assigns:
            op = aliases.member(call.func)
            if op is None or op in _NOT_OP_CALLS:
                continue
            kind = _unified_kind(op, call, frozenset(tiles), frozenset(tensors))
            if kind == "tile":
                tiles.add(name)
            elif kind == "tensor":
                tensors.add(name)
            elif kind == "unknown" and name not in tensors:
                undecided[id(small)] = op
        for known in (tiles, tensors):  # an iter_arg has its seed's type
            known.update(arg for arg, seed in seeds if isinstance(seed, cst.Name) and seed.value in known)
        if len(tiles) + len(tensors) == before:
            break
    return TileFacts(frozenset(tiles), undecided)


def undecided_in(
    body: list[cst.BaseStatement], facts: TileFacts, seen: set[int]
) -> Iterator[tuple[cst.Assign, str, str]]:
    """(assignment, name, op) for each undecided assignment in `body` not in `seen` (then added)."""
    if not facts.undecided:
        return
    stack: list[cst.CSTNode] = list(reversed(body))
    while stack:
        node = stack.pop()
        if id(node) in facts.undecided and id(node) not in seen and isinstance(node, cst.Assign):
            seen.add(id(node))
            target = node.targets[0].target
            yield node, target.value if isinstance(target, cst.Name) else "?", facts.undecided[id(node)]
        else:
            stack.extend(reversed(statement_children(node)))


def _collect_seeds(loop: cst.For, seeds: list[tuple[str, cst.BaseExpression]]) -> None:
    """(iter_arg, init value) of `for i, (a, b) in pl.<iterator>(..., init_values=(...))` and of
    `for (a, b) in pl.while_(init_values=(...))`."""
    target = loop.target
    call = loop.iter
    if not isinstance(target, cst.Tuple) or not isinstance(call, cst.Call):
        return
    names: cst.BaseExpression = target
    if len(target.elements) == 2 and isinstance(target.elements[1].value, (cst.Tuple, cst.List)):
        names = target.elements[1].value
    init = next(
        (arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "init_values"),
        None,
    )
    if isinstance(names, (cst.Tuple, cst.List)) and isinstance(init, (cst.Tuple, cst.List)):
        for name, value in zip(names.elements, init.elements, strict=False):
            if isinstance(name.value, cst.Name):
                seeds.append((name.value.value, value.value))


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
