"""Expression evaluation: what value a Python expression has while TileLang builds IR.

`ExpressionEvaluator` stands alone: given the module's imports it evaluates an expression in
a `Frame`, recording buffer accesses and TileLang operations in a `Sink`. Calls to functions
defined in the file go to the `inline` callback the kernel interpreter provides (macros are
inlined there); without one they are unknown. Constant folding is `folding`'s. Each
sub-expression is evaluated once, so the cost is linear in the size of the expression.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from tilecheck.source import python_ast
from tilecheck.tilelang import allocation, choices, folding, schedulers, tileops
from tilecheck.tilelang.imports import ImportTable
from tilecheck.tilelang.language import ALLOCATIONS, DTYPES, INT32, NO_STATEMENT, SYMBOLS, VIEWS
from tilecheck.tilelang.model import Access, OpCall, Site
from tilecheck.tilelang.names import NameResolver
from tilecheck.tilelang.scope import Frame, Sink, constexpr_name
from tilecheck.tilelang.syntax import is_reference, string_literal, string_value
from tilecheck.tilelang.values import (
    PY_INT,
    UNKNOWN,
    ApiChoice,
    Buffer,
    BufferValue,
    Constness,
    InstanceValue,
    LoopVarList,
    PyCallable,
    PyConst,
    PyValue,
    RegionValue,
    ShapeValue,
    TirExpr,
    Value,
    Var,
    VarKind,
)

# Inlines a call to a function defined in the file: (call, callee, frame, sink) -> its value.
Inliner = Callable[[cst.Call, PyCallable, Frame, Sink], Value]

_CONSTANTS: dict[str, object] = {"True": True, "False": False, "None": None}
# What `truth` evaluates again: nothing that could call anything.
_PLAIN = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString, cst.Tuple, cst.List)


class ExpressionEvaluator(NameResolver):
    """Evaluates expressions in a `Frame`, recording buffer accesses and op calls."""

    def __init__(self, imports: ImportTable, inline: Inliner | None = None) -> None:
        super().__init__(imports)
        self.inline = inline

    def value(self, node: cst.BaseExpression, frame: Frame, sink: Sink) -> Value:
        method: Callable[[cst.BaseExpression, Frame, Sink], Value] | None = getattr(
            self, f"_value_{type(node).__name__}", None
        )
        if method is None:
            return UNKNOWN
        return method(node, frame, sink)

    def _value_Integer(self, node: cst.Integer, frame: Frame, sink: Sink) -> Value:
        return folding.integer_literal(node)

    def _value_Float(self, node: cst.Float, frame: Frame, sink: Sink) -> Value:
        return PyConst(python_ast.literal_eval(node.value))

    def _value_SimpleString(self, node: cst.SimpleString, frame: Frame, sink: Sink) -> Value:
        return PyConst(string_value(node))

    def _value_ConcatenatedString(self, node: cst.BaseExpression, frame: Frame, sink: Sink) -> Value:
        return PyValue()

    def _value_FormattedString(self, node: cst.BaseExpression, frame: Frame, sink: Sink) -> Value:
        return PyValue()

    def _value_Name(self, node: cst.Name, frame: Frame, sink: Sink) -> Value:
        if node.value in _CONSTANTS:
            return PyConst(_CONSTANTS[node.value])
        found = frame.env.lookup(node.value)
        if found is None:
            return self.imported(node, frame)
        if isinstance(found, BufferValue) and found.buffer.is_var:
            # An alloc_var name stands for its value (a load of element 0).
            return TirExpr(frozenset(), Constness.SYMBOLIC)
        return found

    def _value_Attribute(self, node: cst.Attribute, frame: Frame, sink: Sink) -> Value:
        if self.resolve(node, frame) is not None:
            return self.imported(node, frame)
        base = self.value(node.value, frame, sink)
        if isinstance(base, InstanceValue):
            return base.attributes.get(node.attr.value, UNKNOWN)
        if isinstance(base, schedulers.SchedulerValue):
            return schedulers.state(base, node.attr.value) or UNKNOWN
        if isinstance(base, (BufferValue, RegionValue)) and node.attr.value == "shape":
            return ShapeValue(base.buffer)
        if isinstance(base, BufferValue) and node.attr.value == "dtype":
            return PyValue()
        return UNKNOWN

    def _value_Tuple(self, node: cst.Tuple, frame: Frame, sink: Sink) -> Value:
        return self._sequence(node.elements, frame, sink, tuple)

    def _value_List(self, node: cst.List, frame: Frame, sink: Sink) -> Value:
        return self._sequence(node.elements, frame, sink, list)

    def _sequence(
        self,
        elements: Sequence[cst.BaseElement],
        frame: Frame,
        sink: Sink,
        kind: type[tuple[Value, ...]] | type[list[Value]],
    ) -> Value:
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
            if not isinstance(key, PyConst) or not _hashable(key.value):
                return PyValue()  # `{[1]: 2}` raises in Python: nothing is known
            result[key.value] = self.value(element.value, frame, sink)
        return PyConst(result)

    def _value_UnaryOperation(self, node: cst.UnaryOperation, frame: Frame, sink: Sink) -> Value:
        return folding.unary(node.operator, self.value(node.expression, frame, sink))

    def _value_BinaryOperation(self, node: cst.BinaryOperation, frame: Frame, sink: Sink) -> Value:
        left = self.value(node.left, frame, sink)
        right = self.value(node.right, frame, sink)
        return folding.binary(type(node.operator), left, right)

    def _value_Comparison(self, node: cst.Comparison, frame: Frame, sink: Sink) -> Value:
        values = [self.value(node.left, frame, sink)]
        values += [self.value(target.comparator, frame, sink) for target in node.comparisons]
        return folding.compare([target.operator for target in node.comparisons], values)

    def _value_BooleanOperation(self, node: cst.BooleanOperation, frame: Frame, sink: Sink) -> Value:
        left = self.value(node.left, frame, sink)
        if isinstance(left, PyConst):  # Python short-circuits: the right side may never run
            if isinstance(node.operator, cst.And):
                return self.value(node.right, frame, sink) if left.value else left
            return left if left.value else self.value(node.right, frame, sink)
        return folding.combine([left, self.value(node.right, frame, sink)])

    def truth(self, node: cst.BaseExpression, frame: Frame) -> bool | None:
        """Whether a Python-level test holds, where its value is unknown but its truth is not:
        `other and flag` with `flag` false, `other or flag` with `flag` true. Only names,
        attributes, literals and comparisons are evaluated again (no call can run twice)."""
        if isinstance(node, cst.BooleanOperation):
            left, right = self.truth(node.left, frame), self.truth(node.right, frame)
            deciding = isinstance(node.operator, cst.Or)  # the truth that decides alone
            if deciding in (left, right):
                return deciding
            return None if None in (left, right) else not deciding
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self.truth(node.expression, frame)
            return None if inner is None else not inner
        if isinstance(node, cst.Comparison) and not all(
            isinstance(part, _PLAIN) for part in (node.left, *(c.comparator for c in node.comparisons))
        ):
            return None
        if not isinstance(node, (*_PLAIN, cst.Comparison)):
            return None
        value = self.value(node, frame, Sink([]))
        if not isinstance(value, PyConst):
            return None
        try:
            return bool(value.value)
        except folding.FOLD_ERRORS:
            return None

    def _value_IfExp(self, node: cst.IfExp, frame: Frame, sink: Sink) -> Value:
        test = self.value(node.test, frame, sink)
        if isinstance(test, PyConst):
            return self.value(node.body if test.value else node.orelse, frame, sink)
        return choices.choice_of(self, node, frame, sink)

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
                container: Any = base.value
                try:
                    item = container[index.value]
                except folding.FOLD_ERRORS:
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
            elif isinstance(part, cst.Slice):
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
        func = node.func
        if isinstance(func, cst.Name) and isinstance(choice := frame.env.lookup(func.value), ApiChoice):
            return choices.call(self, choice, node, frame, sink)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            receiver = frame.env.lookup(func.value.value)
            if isinstance(receiver, schedulers.SchedulerValue):
                return schedulers.call(self, receiver, func.attr.value, node, frame, sink)
        if isinstance(func, cst.Attribute) and func.attr.value == "astype" and len(node.args) == 1:
            # `A[k, j].astype("float16")`: TVM's cast of a PrimExpr, which reads what it casts
            cast = self.value(func.value, frame, sink)
            self.arguments(node, frame, sink)
            if isinstance(cast, TirExpr):
                return cast
            sink.unknown = True
            return UNKNOWN
        callee = self.callee(node.func, frame)
        if callee is not None and self.inline is not None:
            return self.inline(node, callee, frame, sink)
        if isinstance(node.func, cst.Name) and frame.env.lookup(node.func.value) is None:
            return self.builtin_call(node.func.value, node, frame, sink)
        self.arguments(node, frame, sink)
        sink.unknown = True
        return UNKNOWN

    def arguments(self, node: cst.Call, frame: Frame, sink: Sink) -> list[Value]:
        """The values of a call's arguments (in order), evaluated as nested in the call."""
        sink.call_depth += 1
        try:
            return [self.value(arg.value, frame, sink) for arg in node.args]
        finally:
            sink.call_depth -= 1

    def builtin_call(self, name: str, node: cst.Call, frame: Frame, sink: Sink) -> Value:
        args = self.arguments(node, frame, sink)
        consts = [a.value for a in args if isinstance(a, PyConst)]
        if len(consts) == len(args) and not any(arg.keyword for arg in node.args):
            function = folding.BUILTINS.get(name)
            if function is not None:
                return folding.call_folded(function, consts)
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
            args = self.arguments(node, frame, sink)
            return BufferValue(allocation.allocated(api, node, args, frame))
        if api in schedulers.SCHEDULERS:
            return schedulers.scheduler(node, self.arguments(node, frame, sink))
        if api in VIEWS:
            args = self.arguments(node, frame, sink)
            return BufferValue(allocation.viewed(api, node, args, frame))
        if api == "const":
            # Eager JIT: `M = T.const("M")` is a constexpr that is concrete when compiled;
            # `M, K = T.const("M, K")` (or "M K") a tuple of them, split as TileLang splits.
            self.arguments(node, frame, sink)
            text = string_literal(node.args[0].value) if node.args else None
            if text is None:
                return PY_INT
            values = [self._constexpr(name, frame) for name in _const_names(text)]
            return values[0] if len(values) == 1 else PyConst(tuple(values))
        if api in SYMBOLS:
            self.arguments(node, frame, sink)
            name = string_literal(node.args[0].value) if node.args else None
            return TirExpr.of_var(Var(name or api, VarKind.SYMBOL))
        if api in DTYPES:
            args = self.arguments(node, frame, sink)
            if len(args) == 1 and isinstance(args[0], PyConst) and isinstance(args[0].value, (int, float)):
                if api in INT32 and isinstance(args[0].value, int):
                    return args[0]
                return TirExpr(frozenset(), Constness.CONST)
            if len(args) == 1 and isinstance(args[0], TirExpr):
                return TirExpr(args[0].uses, args[0].constness)
            return folding.combine(args) if args else PyValue()
        if api in folding.MATH:
            args = self.arguments(node, frame, sink)
            numbers = [a.value for a in args if isinstance(a, PyConst) and isinstance(a.value, (int, float))]
            if args and len(numbers) == len(args):
                return folding.call_folded(folding.MATH[api], numbers)
            return folding.combine(args)
        return self.op_call(api, node, frame, sink)

    def _constexpr(self, name: str, frame: Frame) -> Value:
        """A `T.const` name's value: what the building call gives it, else an unknown int."""
        given = frame.env.lookup(constexpr_name(name))
        return given if isinstance(given, PyConst) else PY_INT

    def op_call(self, api: str, node: cst.Call, frame: Frame, sink: Sink) -> Value:
        """Any other TileLang call: record it as an operation and evaluate its arguments."""
        if api in NO_STATEMENT:  # block attributes and hints: no statement, no operation
            self.arguments(node, frame, sink)
            return UNKNOWN
        nested = sink.call_depth > 0
        args = self.arguments(node, frame, sink)
        operands = [
            self.operand(arg.value, value, frame)
            for arg, value in zip(node.args[:2], args, strict=False)
            if arg.keyword is None
        ]
        annotated = allocation.copy_annotated(node, args) if api == "copy" else False
        tile_op = tileops.classify(api, operands, bool(annotated))
        if annotated is None and tile_op is None:
            tile_op = False  # the scalar fast path depends on a value tilecheck cannot evaluate
        source = args[0] if args else None
        if api == "cumsum" and isinstance(source, (BufferValue, RegionValue)) and source.buffer.is_fragment:
            tile_op = "copy"  # T.cumsum(fragment) expands into copies through shared memory
        if tile_op is not False:
            named = [
                (arg.value, value) for arg, value in zip(node.args, args, strict=False) if arg.keyword is None
            ]
            buffers = tuple(self.operand_buffer(arg, value, frame) for arg, value in named)
            sink.calls.append(OpCall(api, tile_op, nested, frame.site(node), buffers))
        sink.emits = True
        # The result is a PrimExpr (or a handle): it uses whatever its arguments use.
        uses = frozenset().union(*(_uses(a) for a in args)) if args else frozenset()
        return TirExpr(uses, Constness.SYMBOLIC)

    def operand_buffer(self, node: cst.BaseExpression, value: Value, frame: Frame) -> Buffer | None:
        """The buffer a tile-op operand names: a buffer, a region, or an element `A[i, j]`
        (which tile operations read as the corner of a region)."""
        if isinstance(value, (BufferValue, RegionValue)):
            return value.buffer
        if isinstance(node, cst.Subscript) and is_reference(node.value):
            base = self.value(node.value, frame, Sink([]))
            if isinstance(base, BufferValue):
                return base.buffer
        return None

    def operand(self, node: cst.BaseExpression, value: Value, frame: Frame) -> tileops.Operand:
        """Whether a tile-op operand (`node`, evaluated to `value`) is a single element or a
        region. A subscript is classified by its base, which is evaluated again only when that
        costs nothing (a name, an attribute)."""
        if isinstance(node, cst.Subscript):
            if not is_reference(node.value):
                return tileops.Operand.UNKNOWN
            base = self.value(node.value, frame, Sink([]))
            if isinstance(base, BufferValue):
                if any(not isinstance(e.slice, cst.Index) for e in node.slice):
                    return tileops.Operand.REGION
                return tileops.Operand.ELEMENT
            return tileops.Operand.UNKNOWN
        if isinstance(value, (BufferValue, RegionValue)):
            return tileops.Operand.ELEMENT if value.buffer.is_var else tileops.Operand.REGION
        if isinstance(value, (PyConst, TirExpr)):
            return tileops.Operand.ELEMENT
        return tileops.Operand.UNKNOWN


def _note_scalar_use(value: LoopVarList, site: Site) -> None:
    """A multi-extent `T.Parallel` target used as one index among others (reference §2.2)."""
    malformed = value.malformed
    if malformed is not None and malformed.scalar_use is None:
        malformed.scalar_use = site


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _uses(value: Value) -> frozenset[Var]:
    return value.uses if isinstance(value, TirExpr) else frozenset()


def _const_names(names: str) -> list[str]:
    """The constexprs `T.const(names)` declares, split as `tilelang/language/eager/builder.py` does."""
    if "," in names:
        return re.split(r"\s*,\s*", names)
    if " " in names:
        return re.split(r"\s+", names)
    return [names]
