"""Expression evaluation: what value a Python expression has while TileLang builds IR.

Constant folding follows TVM's construction-time folding (`i * 0` and `i % 1` are `0`,
`i + 0` and `i * 1` are `i`), because the real checkers only ever see folded expressions.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import libcst as cst

from tilecheck.analysis import tileops
from tilecheck.analysis.imports import ImportTable, dotted_name, member_of
from tilecheck.analysis.model import Access, OpCall
from tilecheck.analysis.scope import Frame, Sink
from tilecheck.analysis.values import (
    PY_INT,
    UNKNOWN,
    Buffer,
    BufferValue,
    Constness,
    LoopVarList,
    ModuleRef,
    PyCallable,
    PyConst,
    PyValue,
    RegionValue,
    ShapeValue,
    TirExpr,
    Unknown,
    Value,
    Var,
    VarKind,
    constness_of,
)

_FOLD: dict[type, Callable[[object, object], object]] = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.FloorDivide: operator.floordiv,
    cst.Divide: operator.truediv,
    cst.Modulo: operator.mod,
    cst.Power: operator.pow,
    cst.LeftShift: operator.lshift,
    cst.RightShift: operator.rshift,
    cst.BitAnd: operator.and_,
    cst.BitOr: operator.or_,
    cst.BitXor: operator.xor,
}

_COMPARE: dict[type, Callable[[object, object], object]] = {
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
}

# TileLang calls that fold like Python on constants and build a PrimExpr otherwise.
_MATH: dict[str, Callable[..., object]] = {
    "min": min,
    "max": max,
    "ceildiv": lambda a, b: -(-a // b),
    "floordiv": operator.floordiv,
    "floormod": operator.mod,
    "truncdiv": lambda a, b: int(a / b),
    "truncmod": lambda a, b: a - int(a / b) * b,
}

# Scalar dtype constructors: T.int32(3) is an int32 IntImm, which the frontend inlines as a
# Python constant; other dtypes give a PrimExpr constant that an assignment binds.
_INT32 = frozenset({"int32"})
_DTYPES = frozenset(
    {
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "bfloat16", "bool", "float8_e4m3", "float8_e5m2",
    }
)  # fmt: skip

# TileLang calls that allocate a buffer, with their default scope.
ALLOCATIONS: dict[str, str] = {
    "alloc_local": "local",
    "alloc_fragment": "local.fragment",
    "alloc_shared": "shared.dyn",
    "alloc_var": "local.var",
    "alloc_reducer": "local.reducer",
    "alloc_global": "global",
    "alloc_barrier": "shared.barrier",
    "alloc_cluster_barrier": "shared.cluster_barrier",
    "alloc_tmem": "shared.tmem",
    "alloc_descriptor": "local.descriptor",
    "alloc_wgmma_desc": "local.descriptor.wgmma",
    "alloc_buffer": "global",
    "allocate": "global",
    "empty": "global",
}

# TileLang calls that create a symbolic variable.
_SYMBOLS = frozenset({"dynamic", "symbolic", "get_thread_binding", "get_block_binding"})

# TileLang calls known to emit no statement where they stand (block attributes, hints).
_NO_STATEMENT = frozenset(
    {"annotate_layout", "use_swizzle", "annotate_safe_value", "annotate_l2_hit_ratio",
     "disable_warp_group_reg_alloc", "no_set_max_nreg", "annotate_padding"}
)  # fmt: skip


def string_value(node: cst.SimpleString) -> str | bytes:
    """The value of a string literal; plain ones without escapes skip `ast.literal_eval`."""
    raw = node.value
    if raw[:1] in ("'", '"') and "\\" not in raw and raw[:3] not in ('"""', "'''"):
        return raw[1:-1]
    return node.evaluated_value


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = string_value(node)
        return value if isinstance(value, str) else None
    return None


def combine(values: list[Value]) -> Value:
    """The value of a PrimExpr built from `values` (no folding)."""
    uses: set[Var] = set()
    constness = Constness.CONST
    tir = False
    for value in values:
        if isinstance(value, TirExpr):
            tir = True
            uses |= value.uses
            constness = constness.join(value.constness)
        elif isinstance(value, PyConst):
            if not isinstance(value.value, (int, float, bool)):
                return UNKNOWN
        elif isinstance(value, PyValue):
            constness = constness.join(Constness.CONST if value.is_int else Constness.UNKNOWN)
        else:
            return UNKNOWN
    if not tir:
        return PyValue(is_int=constness is Constness.CONST)
    return TirExpr(frozenset(uses), constness)


class ExpressionEvaluator:
    """Evaluates expressions in a `Frame`, recording buffer accesses and op calls."""

    imports: ImportTable

    def inline_call(self, call: cst.Call, callee: PyCallable, frame: Frame, sink: Sink) -> Value:
        raise NotImplementedError  # provided by the statement interpreter

    # -- names and TileLang APIs -------------------------------------------------------

    def api(self, node: cst.BaseExpression, frame: Frame) -> str | None:
        """`Parallel` for `T.Parallel` when `T` is TileLang's (imported in the module or the
        enclosing function) and not shadowed by a local value."""
        name = dotted_name(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        local = frame.env.lookup(head)
        if isinstance(local, ModuleRef):
            return member_of(f"{local.qualified}.{rest}" if rest else local.qualified)
        if local is not None:
            return None
        return self.imports.api(node)

    def value(self, node: cst.BaseExpression, frame: Frame, sink: Sink) -> Value:
        method = getattr(self, f"_value_{type(node).__name__}", None)
        if method is None:
            return UNKNOWN
        return method(node, frame, sink)

    def _value_Integer(self, node: cst.Integer, frame: Frame, sink: Sink) -> Value:
        return PyConst(node.evaluated_value)

    def _value_Float(self, node: cst.Float, frame: Frame, sink: Sink) -> Value:
        return PyConst(node.evaluated_value)

    def _value_SimpleString(self, node: cst.SimpleString, frame: Frame, sink: Sink) -> Value:
        return PyConst(string_value(node))

    def _value_ConcatenatedString(self, node: cst.BaseExpression, frame: Frame, sink: Sink) -> Value:
        return PyValue()

    def _value_FormattedString(self, node: cst.BaseExpression, frame: Frame, sink: Sink) -> Value:
        return PyValue()

    def _value_Name(self, node: cst.Name, frame: Frame, sink: Sink) -> Value:
        if node.value in ("True", "False", "None"):
            return PyConst({"True": True, "False": False, "None": None}[node.value])
        found = frame.env.lookup(node.value)
        if found is None:
            return UNKNOWN
        if isinstance(found, BufferValue) and found.buffer.is_var:
            # An alloc_var name stands for its value (a load of element 0).
            return TirExpr(frozenset(), Constness.SYMBOLIC)
        return found

    def _value_Attribute(self, node: cst.Attribute, frame: Frame, sink: Sink) -> Value:
        api = self.api(node, frame)
        if api is not None:
            return PyValue() if api in _DTYPES else UNKNOWN
        base = self.value(node.value, frame, sink)
        if isinstance(base, (BufferValue, RegionValue)) and node.attr.value == "shape":
            return ShapeValue(base.buffer)
        if isinstance(base, BufferValue) and node.attr.value == "dtype":
            return PyValue()
        return UNKNOWN

    def _value_Tuple(self, node: cst.Tuple, frame: Frame, sink: Sink) -> Value:
        return self._sequence(node.elements, frame, sink, tuple)

    def _value_List(self, node: cst.List, frame: Frame, sink: Sink) -> Value:
        return self._sequence(node.elements, frame, sink, list)

    def _sequence(self, elements, frame: Frame, sink: Sink, kind: type) -> Value:
        items: list[Value] = []
        for element in elements:
            if isinstance(element, cst.StarredElement):
                return PyValue()
            items.append(self.value(element.value, frame, sink))
        return PyConst(kind(items))

    def _value_Dict(self, node: cst.Dict, frame: Frame, sink: Sink) -> Value:
        result: dict[object, Value] = {}
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return PyValue()
            key = self.value(element.key, frame, sink)
            if not isinstance(key, PyConst):
                return PyValue()
            result[key.value] = self.value(element.value, frame, sink)
        return PyConst(result)

    def _value_UnaryOperation(self, node: cst.UnaryOperation, frame: Frame, sink: Sink) -> Value:
        operand = self.value(node.expression, frame, sink)
        if isinstance(node.operator, cst.Not):
            if isinstance(operand, PyConst):
                return PyConst(not operand.value)
            return operand if isinstance(operand, TirExpr) else PyValue()
        if isinstance(operand, PyConst) and isinstance(operand.value, (int, float)):
            if isinstance(node.operator, cst.Minus):
                return PyConst(-operand.value)
            if isinstance(node.operator, cst.Plus):
                return operand
            if isinstance(node.operator, cst.BitInvert) and isinstance(operand.value, int):
                return PyConst(~operand.value)
        if isinstance(operand, TirExpr):
            return TirExpr(operand.uses, operand.constness)
        return operand if isinstance(operand, PyValue) else UNKNOWN

    def _value_BinaryOperation(self, node: cst.BinaryOperation, frame: Frame, sink: Sink) -> Value:
        left = self.value(node.left, frame, sink)
        right = self.value(node.right, frame, sink)
        return binary(type(node.operator), left, right)

    def _value_Comparison(self, node: cst.Comparison, frame: Frame, sink: Sink) -> Value:
        left = self.value(node.left, frame, sink)
        values = [left]
        result: object = True
        for target in node.comparisons:
            right = self.value(target.comparator, frame, sink)
            values.append(right)
            compare = _COMPARE.get(type(target.operator))
            if (
                result is not None
                and compare is not None
                and isinstance(left, PyConst)
                and isinstance(right, PyConst)
            ):
                try:
                    result = result and compare(left.value, right.value)
                except TypeError:
                    result = None
            else:
                result = None
            left = right
        if result is not None:
            return PyConst(bool(result))
        return combine(values)

    def _value_BooleanOperation(self, node: cst.BooleanOperation, frame: Frame, sink: Sink) -> Value:
        left = self.value(node.left, frame, sink)
        if isinstance(left, PyConst):  # Python short-circuits: the right side may never run
            if isinstance(node.operator, cst.And):
                return self.value(node.right, frame, sink) if left.value else left
            return left if left.value else self.value(node.right, frame, sink)
        return combine([left, self.value(node.right, frame, sink)])

    def _value_IfExp(self, node: cst.IfExp, frame: Frame, sink: Sink) -> Value:
        test = self.value(node.test, frame, sink)
        if isinstance(test, PyConst):
            return self.value(node.body if test.value else node.orelse, frame, sink)
        return UNKNOWN

    def _value_Subscript(self, node: cst.Subscript, frame: Frame, sink: Sink) -> Value:
        base = self.value(node.value, frame, sink)
        if isinstance(base, ShapeValue):
            index = self._single_index(node, frame, sink)
            shape = base.buffer.shape
            if (
                shape is not None
                and isinstance(index, PyConst)
                and isinstance(index.value, int)
                and -len(shape) <= index.value < len(shape)
            ):
                return shape[index.value]
            return UNKNOWN
        if isinstance(base, PyConst) and isinstance(base.value, (tuple, list, dict)):
            index = self._single_index(node, frame, sink)
            if isinstance(index, PyConst):
                try:
                    item = base.value[index.value]  # type: ignore[index]
                except (IndexError, KeyError, TypeError):
                    return UNKNOWN
                return item if isinstance(item, Value) else PyConst(item)
            return UNKNOWN
        if isinstance(base, BufferValue):
            return self.buffer_access(base.buffer, node, frame, sink, write=False)
        return UNKNOWN

    def _single_index(self, node: cst.Subscript, frame: Frame, sink: Sink) -> Value:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return UNKNOWN
        return self.value(node.slice[0].slice.value, frame, sink)

    def buffer_access(
        self, buffer: Buffer, node: cst.Subscript, frame: Frame, sink: Sink, *, write: bool
    ) -> Value:
        """Record a load or store of `buffer[...]`; a slice makes it a region."""
        uses: set[Var] = set()
        region = False
        for element in node.slice:
            part = element.slice
            if isinstance(part, cst.Index):
                index = self.value(part.value, frame, sink)
                uses |= _uses(index)
                if isinstance(index, LoopVarList) and len(node.slice) > 1:
                    _note_scalar_use(index, frame.site(node))
            else:
                region = True
                for bound in (part.lower, part.upper, part.step):
                    if bound is not None:
                        uses |= _uses(self.value(bound, frame, sink))
        sink.accesses.append(Access(buffer, frozenset(uses), write, frame.site(node)))
        if region:
            return RegionValue(buffer)
        return TirExpr(frozenset(uses), Constness.SYMBOLIC)

    # -- calls -----------------------------------------------------------------------

    def _value_Call(self, node: cst.Call, frame: Frame, sink: Sink) -> Value:
        api = self.api(node.func, frame)
        if api is not None:
            return self.api_call(api, node, frame, sink)
        if isinstance(node.func, cst.Name):
            callee = frame.env.lookup(node.func.value)
            if isinstance(callee, PyCallable):
                return self.inline_call(node, callee, frame, sink)
            if callee is None:
                return self.builtin_call(node.func.value, node, frame, sink)
        self.arguments(node, frame, sink)
        sink.unknown = True
        return UNKNOWN

    def arguments(self, node: cst.Call, frame: Frame, sink: Sink) -> list[Value]:
        sink.call_depth += 1
        try:
            return [self.value(arg.value, frame, sink) for arg in node.args]
        finally:
            sink.call_depth -= 1

    def builtin_call(self, name: str, node: cst.Call, frame: Frame, sink: Sink) -> Value:
        args = self.arguments(node, frame, sink)
        consts = [a.value for a in args if isinstance(a, PyConst)]
        if len(consts) == len(args) and not any(arg.keyword for arg in node.args):
            function = {"min": min, "max": max, "len": len, "int": int, "abs": abs, "float": float}.get(name)
            if function is not None:
                try:
                    return PyConst(function(*consts))
                except (TypeError, ValueError):
                    return UNKNOWN
        if name in ("min", "max", "int", "abs", "len"):
            return PyValue(is_int=name == "len")
        sink.unknown = True
        return UNKNOWN

    def api_call(self, api: str, node: cst.Call, frame: Frame, sink: Sink) -> Value:
        if api == "evaluate" and len(node.args) == 1:
            # T.evaluate(call) makes the call itself the statement: not nested in another call.
            sink.emits = True
            return self.value(node.args[0].value, frame, sink)
        if api in ALLOCATIONS:
            self.arguments(node, frame, sink)
            return BufferValue(self.allocation(api, node, frame, sink))
        if api == "const":
            # Eager JIT: `M = T.const("M")` is a constexpr that is concrete when compiled.
            self.arguments(node, frame, sink)
            return PY_INT
        if api in _SYMBOLS:
            self.arguments(node, frame, sink)
            name = _string(node.args[0].value) if node.args else None
            return TirExpr.of_var(Var(name or api, VarKind.SYMBOL))
        if api in _DTYPES:
            args = self.arguments(node, frame, sink)
            if len(args) == 1 and isinstance(args[0], PyConst) and isinstance(args[0].value, (int, float)):
                if api in _INT32 and isinstance(args[0].value, int):
                    return args[0]
                return TirExpr(frozenset(), Constness.CONST)
            if len(args) == 1 and isinstance(args[0], TirExpr):
                return TirExpr(args[0].uses, args[0].constness)
            return combine(args) if args else PyValue()
        if api in _MATH:
            args = self.arguments(node, frame, sink)
            if all(isinstance(a, PyConst) and isinstance(a.value, (int, float)) for a in args) and args:
                try:
                    return PyConst(_MATH[api](*(a.value for a in args)))  # type: ignore[union-attr]
                except (TypeError, ValueError, ZeroDivisionError):
                    return UNKNOWN
            return combine(args)
        return self.op_call(api, node, frame, sink)

    def allocation(self, api: str, node: cst.Call, frame: Frame, sink: Sink) -> Buffer:
        scope = ALLOCATIONS[api]
        shape: tuple[Value, ...] | None = None
        positional = [arg for arg in node.args if arg.keyword is None]
        scope_arg = positional[2] if len(positional) > 2 and api != "alloc_var" else None
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "scope":
                scope_arg = arg
        if scope_arg is not None:
            text = _string(scope_arg.value)
            scope = text if text is not None else "?"
        if api not in ("alloc_var",) and node.args and node.args[0].keyword is None:
            shape_value = self.value(node.args[0].value, frame, Sink([]))
            if isinstance(shape_value, PyConst) and isinstance(shape_value.value, (tuple, list)):
                shape = tuple(v if isinstance(v, Value) else PyConst(v) for v in shape_value.value)
            elif isinstance(shape_value, (PyConst, PyValue, TirExpr)):
                shape = (shape_value,)
        return Buffer(name="", scope=scope, node=node, shape=shape, api=api, top=frame.top)

    def op_call(self, api: str, node: cst.Call, frame: Frame, sink: Sink) -> Value:
        """Any other TileLang call: record it as an operation and evaluate its arguments."""
        if api in _NO_STATEMENT:  # block attributes and hints: no statement, no operation
            self.arguments(node, frame, sink)
            return UNKNOWN
        nested = sink.call_depth > 0
        operands = [self.operand(arg.value, frame) for arg in node.args[:2] if arg.keyword is None]
        annotated = self.annotated(node, frame) if api == "copy" else False
        tile_op = tileops.classify(api, operands, bool(annotated))
        if annotated is None and tile_op is None:
            tile_op = False  # the scalar fast path depends on a value tilecheck cannot evaluate
        args = self.arguments(node, frame, sink)
        source = args[0] if args else None
        if api == "cumsum" and isinstance(source, (BufferValue, RegionValue)) and source.buffer.is_fragment:
            tile_op = "copy"  # T.cumsum(fragment) expands into copies through shared memory
        if tile_op is not False:
            sink.calls.append(OpCall(api, tile_op, nested, frame.site(node)))
        sink.emits = True
        # The result is a PrimExpr (or a handle): it uses whatever its arguments use.
        uses = frozenset().union(*(_uses(a) for a in args)) if args else frozenset()
        return TirExpr(uses, Constness.SYMBOLIC)

    def annotated(self, node: cst.Call, frame: Frame) -> bool | None:
        """Whether keyword arguments add annotations (which take `T.copy` off its scalar fast
        path): None, False and empty containers add none; None when undecidable."""
        found: bool | None = False
        for arg in node.args:
            if arg.keyword is None or arg.keyword.value in ("src", "dst"):
                continue
            value = self.value(arg.value, frame, Sink([]))
            if not isinstance(value, PyConst):
                found = None if found is False else found
            elif value.value not in (None, False) and value.value != {} and value.value != []:
                return True
        return found

    def operand(self, node: cst.BaseExpression, frame: Frame) -> tileops.Operand:
        """Whether a tile-op operand is a single element or a region (without side effects)."""
        if isinstance(node, cst.Subscript):
            base = self.value(node.value, frame, Sink([]))
            if isinstance(base, BufferValue):
                if any(not isinstance(e.slice, cst.Index) for e in node.slice):
                    return tileops.Operand.REGION
                return tileops.Operand.ELEMENT
            return tileops.Operand.UNKNOWN
        value = self.value(node, frame, Sink([]))
        if isinstance(value, (BufferValue, RegionValue)):
            return tileops.Operand.ELEMENT if value.buffer.is_var else tileops.Operand.REGION
        if isinstance(value, (PyConst, TirExpr)):
            return tileops.Operand.ELEMENT
        return tileops.Operand.UNKNOWN


def _note_scalar_use(value: LoopVarList, site) -> None:
    """A multi-extent `T.Parallel` target used as one index among others (reference §2.2)."""
    malformed = value.malformed
    if malformed is not None and getattr(malformed, "scalar_use", None) is None:
        malformed.scalar_use = site  # type: ignore[attr-defined]


def _uses(value: Value) -> frozenset[Var]:
    return value.uses if isinstance(value, TirExpr) else frozenset()


def _defaults_to(value: Value, number: int) -> bool:
    return isinstance(value, PyValue) and type(value.default) is int and value.default == number


def _is_const(value: Value, number: int) -> bool:
    return isinstance(value, PyConst) and type(value.value) is int and value.value == number


_MAX_FOLD = 1 << 16  # the largest sequence or exponent folded statically


def _too_big(op: type, left: object, right: object) -> bool:
    if op in (cst.Power, cst.LeftShift) and isinstance(right, int) and abs(right) > 64:
        return True
    if op is cst.Power and isinstance(left, int) and abs(left) > _MAX_FOLD:
        return True
    if op is cst.Multiply:
        for sequence, count in ((left, right), (right, left)):
            sized = isinstance(sequence, (str, bytes, list, tuple)) and isinstance(count, int)
            if sized and len(sequence) * count > _MAX_FOLD:
                return True
    return False


def binary(op: type, left: Value, right: Value) -> Value:
    """Fold or build `left <op> right` the way TVM's operators do at construction time."""
    if isinstance(left, PyConst) and isinstance(right, PyConst):
        fold = _FOLD.get(op)
        if fold is None:
            return UNKNOWN
        if _too_big(op, left.value, right.value):
            return PyValue()  # folding it would cost more than analyzing the file
        try:
            return PyConst(fold(left.value, right.value))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return UNKNOWN
    if isinstance(left, TirExpr) or isinstance(right, TirExpr):
        # A parameter whose default would fold the variable away (`i * K` with `K=0`) may do
        # so when the factory is built with its defaults: the use is not proven.
        if op is cst.Multiply and (_defaults_to(left, 0) or _defaults_to(right, 0)):
            return UNKNOWN
        if op is cst.Modulo and _defaults_to(right, 1):
            return UNKNOWN
        # TVM's construction-time folding (arith::TryConstFold) removes these uses.
        if op is cst.Multiply and (_is_const(left, 0) or _is_const(right, 0)):
            return PyConst(0)
        if op is cst.Modulo and _is_const(right, 1):
            return PyConst(0)
        if op in (cst.Multiply, cst.FloorDivide) and _is_const(right, 1):
            return left
        if op is cst.Multiply and _is_const(left, 1):
            return right
        if op in (cst.Add, cst.Subtract) and _is_const(right, 0):
            return left
        if op is cst.Add and _is_const(left, 0):
            return right
        if op not in _FOLD:
            return UNKNOWN
        return combine([left, right])
    if isinstance(left, Unknown) or isinstance(right, Unknown):
        return UNKNOWN
    if isinstance(left, (PyConst, PyValue)) and isinstance(right, (PyConst, PyValue)):
        ints = constness_of(left) is Constness.CONST and constness_of(right) is Constness.CONST
        return PY_INT if ints and op is not cst.Divide else PyValue()
    return UNKNOWN
