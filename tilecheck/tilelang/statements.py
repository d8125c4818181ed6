"""Kernel statements as TileLang's eager builder turns them into IR."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from tilecheck.tilelang.blocks import with_statement
from tilecheck.tilelang.declarations import annotation_value, parameter_value
from tilecheck.tilelang.evaluate import ExpressionEvaluator
from tilecheck.tilelang.imports import ImportTable, bindings, dotted_name
from tilecheck.tilelang.language import NO_STATEMENT
from tilecheck.tilelang.loop_builder import LoopBuilder
from tilecheck.tilelang.macros import MacroInliner
from tilecheck.tilelang.model import Guard, Item, Kernel, Stmt, StmtKind
from tilecheck.tilelang.scope import BuildState, DefinedFunction, Env, Frame, Sink, constexpr_of, either
from tilecheck.tilelang.syntax import assigned_names, has_init, parameters, suite_body
from tilecheck.tilelang.tileops import Operand
from tilecheck.tilelang.values import (
    UNKNOWN,
    BufferValue,
    Constness,
    InstanceValue,
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


class KernelInterpreter:
    """Interprets kernel statements: what each one emits (a store, a Bind, a statement, or
    nothing), following TileLang's eager builder (reference §2.3).

    It owns its collaborators: the expression evaluator (which hands calls of functions
    defined in the file back to `inline_call`), the loop builder and the macro inliner, which
    interpret their statements' bodies through `block`. Everything shared with the
    Python-level reader is in `state`.
    """

    def __init__(self, state: BuildState, imports: ImportTable) -> None:
        self.state = state
        self.evaluator = ExpressionEvaluator(imports, inline=self.inline_call)
        self.loops = LoopBuilder(self)
        self.macros = MacroInliner(self)

    def close(self) -> None:
        """Drop the references back to this interpreter its parts hold (its evaluator's inliner,
        its loop builder's and macro inliner's): cycles that keep the file's model and trees
        alive until the cyclic collector runs."""
        self.evaluator.inline = None
        del self.loops, self.macros

    def inline_call(self, call: cst.Call, callee: PyCallable, frame: Frame, sink: Sink) -> Value:
        return self.macros.inline_call(call, callee, frame, sink)

    def kernel(
        self, node: cst.FunctionDef, top: cst.CSTNode, env: Env, arguments: dict[str, Value] | None = None
    ) -> None:
        """Interpret one kernel definition; `arguments` are the Python values of an eager
        kernel's parameters (a call's arguments or defaults), which replace what the
        parameters alone would say."""
        kernel_env = Env(env)
        frame = Frame(kernel_env, top)
        kernel = Kernel(
            node.name.value,
            node,
            top,
            factory_call=self.state.factory_call,
            calls_not_built=self.state.calls_not_built,
        )
        self.state.kernel = kernel
        for param in parameters(node):
            value = parameter_value(self.evaluator, param, frame)
            given = arguments.get(param.name.value) if arguments else None
            if given is not None and not isinstance(value, BufferValue):
                value = given
            kernel_env.bind(param.name.value, value)
        for name, value in (arguments or {}).items():
            if constexpr_of(name) is not None:  # `T.const` values the building call gives
                kernel_env.bind(name, value)
            if isinstance(value, BufferValue):
                kernel.buffers.append(value.buffer)
        self.block(suite_body(node.body), frame, kernel.body)
        self.state.kernel = None
        self.state.model.kernels.append(kernel)

    def block(self, body: Sequence[cst.BaseStatement], frame: Frame, out: list[Item]) -> None:
        flow = frame.flow
        for statement in body:
            self.state.count_statement()
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self.small(small, frame, out)
                    if flow is not None and flow.exit is not None:
                        return
            elif isinstance(statement, cst.BaseCompoundStatement):
                self.compound(statement, frame, out)
            if flow is not None and flow.exit is not None:
                return  # a Python `return`, `break` or `continue` ended this block

    def small(self, small: cst.BaseSmallStatement, frame: Frame, out: list[Item]) -> bool:
        """Interpret one simple statement; True when it ends the block (return)."""
        if isinstance(small, cst.Expr):
            self.expression_statement(small, frame, out)
        elif isinstance(small, cst.Assign):
            sink = Sink(out)
            value = self.evaluator.value(small.value, frame, sink)
            for target in small.targets:
                self.assign(target.target, value, small, frame, out, sink)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                sink = Sink(out)
                value = self.evaluator.value(small.value, frame, sink)
                self.assign(small.target, value, small, frame, out, sink)
            elif isinstance(small.target, cst.Name):  # eager JIT: `X: T.Tensor((64,), "float32")`
                declared = annotation_value(
                    self.evaluator, small.target.value, small.annotation, small, frame
                )
                frame.env.bind(small.target.value, declared)
                if isinstance(declared, BufferValue) and self.state.kernel is not None:
                    self.state.kernel.buffers.append(declared.buffer)
        elif isinstance(small, cst.AugAssign):
            self.augmented(small, frame, out)
        elif isinstance(small, cst.Return) and frame.flow is not None:
            if small.value is not None:
                frame.env.bind("<return>", self.evaluator.value(small.value, frame, Sink(out)))
            frame.flow.exit = "return"
        elif isinstance(small, (cst.Break, cst.Continue)) and frame.flow is not None and frame.flow.loops:
            frame.flow.exit = "break" if isinstance(small, cst.Break) else "continue"
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            for name, qualified in bindings(small).items():
                frame.env.bind(name, ModuleRef(qualified))
        elif isinstance(small, (cst.Pass, cst.Global, cst.Nonlocal)):
            pass
        else:  # break, continue, assert, del, raise: effects tilecheck does not model
            frame.add(out, Stmt(frame.site(small), certain=False, kind=StmtKind.UNKNOWN))
        return False

    def expression_statement(self, small: cst.Expr, frame: Frame, out: list[Item]) -> None:
        expr = small.value
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis, cst.Name)):
            return  # docstrings and bare names emit nothing
        sink = Sink(out)
        if isinstance(expr, cst.Call) and self.is_scalar_copy(expr, frame):
            self.evaluator.value(expr, frame, sink)
            sink.calls.clear()
            self.statement(StmtKind.STORE, small, frame, out, sink)
            return
        value = self.evaluator.value(expr, frame, sink)
        if isinstance(expr, cst.Call) and self.evaluator.api(expr.func, frame) in NO_STATEMENT:
            # `T.use_swizzle(10)`, `T.annotate_layout({...})`: a block attribute, certainly no
            # statement (its arguments' layout calls touch no buffer either)
            return
        if isinstance(expr, cst.Call) and self.macros.macro_for(expr, frame) is not None:
            return  # inlined: its statements are already in `out`
        if isinstance(expr, cst.Call) and self.is_unknown_attribute_call(expr, frame):
            self.state.model.unfollowed.append((frame.site(expr), dotted_name(expr.func) or ""))
        if sink.emits or sink.calls:
            self.statement(StmtKind.EVAL, small, frame, out, sink)
        elif sink.unknown or isinstance(value, Unknown):
            self.statement(StmtKind.UNKNOWN, small, frame, out, sink, certain=False)
        elif isinstance(value, TirExpr):
            self.statement(StmtKind.EVAL, small, frame, out, sink)

    def is_unknown_attribute_call(self, call: cst.Call, frame: Frame) -> bool:
        """`self.loader(f, i)` with `self.loader` unknown (`self.loader = make_loader(3)` in
        `__init__`): a macro stored on the instance, which tilecheck does not inline."""
        func = call.func
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
            return False
        receiver = frame.env.lookup(func.value.value)
        return isinstance(receiver, InstanceValue) and self.evaluator.callee(func, frame) is None

    def is_scalar_copy(self, call: cst.Call, frame: Frame) -> bool:
        """`T.copy(A[i], B[j])`: two single elements and nothing else is a plain store."""
        if self.evaluator.api(call.func, frame) != "copy":
            return False
        positional = [a for a in call.args if a.keyword is None]
        if len(positional) != 2 or len(call.args) != 2:
            return False
        if not all(isinstance(a.value, cst.Subscript) for a in positional):
            return False
        return all(self.evaluator.operand(a.value, UNKNOWN, frame) is Operand.ELEMENT for a in positional)

    def statement(
        self,
        kind: StmtKind,
        node: cst.CSTNode,
        frame: Frame,
        out: list[Item],
        sink: Sink,
        certain: bool = True,
    ) -> Stmt:
        stmt = Stmt(
            frame.site(node),
            certain=certain,
            kind=kind,
            accesses=sink.accesses,
            calls=sink.calls,
        )
        frame.add(out, stmt)
        return stmt

    def is_load(self, expr: cst.BaseExpression, frame: Frame) -> bool:
        """Whether `expr` is one buffer load, or a cast of one (`T.cast(B[k, j], "float16")`,
        `B[k, j].astype("float16")`): a pipelined store TileLang versions as a copy (measured
        with TileLang 0.1.15)."""
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "astype"
        ):
            return self.is_load(expr.func.value, frame)
        if isinstance(expr, cst.Call):
            return (
                bool(expr.args)
                and self.evaluator.api(expr.func, frame) == "cast"
                and self.is_load(expr.args[0].value, frame)
            )
        if not isinstance(expr, cst.Subscript) or not isinstance(expr.value, (cst.Name, cst.Attribute)):
            return False  # evaluated again below: nothing that could call (and inline) anything
        return isinstance(self.evaluator.value(expr.value, frame, Sink([])), BufferValue)

    def assign(
        self,
        target: cst.BaseExpression,
        value: Value,
        node: cst.CSTNode,
        frame: Frame,
        out: list[Item],
        sink: Sink,
    ) -> None:
        if isinstance(target, cst.Subscript):
            base = self.evaluator.value(target.value, frame, sink)
            if isinstance(base, BufferValue):
                self.evaluator.buffer_access(base.buffer, target, frame, sink, write=True)
                stmt = self.statement(StmtKind.STORE, node, frame, out, sink)
                stored = getattr(node, "value", None)
                stmt.stores_a_load = isinstance(stored, cst.BaseExpression) and self.is_load(stored, frame)
            else:
                self.statement(StmtKind.UNKNOWN, node, frame, out, sink, certain=False)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            items = (
                value.value if isinstance(value, PyConst) and isinstance(value.value, (tuple, list)) else None
            )
            if items is not None and len(items) == len(target.elements):
                for element, item in zip(target.elements, items, strict=True):
                    part = item if isinstance(item, Value) else PyConst(item)
                    self.assign(element.value, part, node, frame, out, Sink(out))
                return
            for element in target.elements:
                if isinstance(element.value, cst.Name):
                    frame.env.bind(element.value.value, UNKNOWN)
            self.statement(StmtKind.UNKNOWN, node, frame, out, sink, certain=False)
            return
        if not isinstance(target, cst.Name):
            self.statement(StmtKind.UNKNOWN, node, frame, out, sink, certain=False)
            return
        name = target.value
        current = frame.env.names.get(name) or frame.env.lookup(name)
        if isinstance(current, BufferValue) and current.buffer.is_var and not isinstance(value, BufferValue):
            self.statement(StmtKind.STORE, node, frame, out, sink)  # v = x on an alloc_var
            return
        if isinstance(value, BufferValue):
            buffer = value.buffer
            if not buffer.name:
                buffer.name = name
                if self.state.kernel is not None:
                    self.state.kernel.buffers.append(buffer)
            frame.env.bind(name, value)
            if buffer.api == "alloc_var" and has_init(buffer.node):
                self.statement(StmtKind.STORE, node, frame, out, sink)
            elif sink.emits or sink.calls:
                self.statement(StmtKind.EVAL, node, frame, out, sink)
            return
        if isinstance(value, TirExpr) and value.var is not None:
            value.var.name = name  # an alias renames the variable itself
            frame.env.bind(name, value)
            return
        if isinstance(value, (TirExpr, RegionValue)):
            hidden = value.uses if isinstance(value, TirExpr) else frozenset()
            var = Var(name, VarKind.BIND, hidden=hidden)
            frame.env.bind(name, TirExpr.of_var(var))
            self.statement(StmtKind.BIND, node, frame, out, sink)
            return
        frame.env.bind(name, value)
        if isinstance(value, (PyConst, ShapeValue, PyCallable)) or (
            isinstance(value, PyValue) and value.is_int
        ):
            if sink.emits or sink.calls:
                self.statement(StmtKind.EVAL, node, frame, out, sink)
            return
        # An unknown Python value may be a PrimExpr (then a Bind) or not: not evidence.
        if isinstance(value, PyValue) or sink.unknown or isinstance(value, Unknown):
            self.statement(StmtKind.BIND, node, frame, out, sink, certain=False)

    def augmented(self, small: cst.AugAssign, frame: Frame, out: list[Item]) -> None:
        sink = Sink(out)
        value = self.evaluator.value(small.value, frame, sink)
        target = small.target
        if isinstance(target, cst.Subscript):
            base = self.evaluator.value(target.value, frame, sink)
            if isinstance(base, BufferValue):
                self.evaluator.buffer_access(base.buffer, target, frame, sink, write=False)
                sink.accesses[-1].write = True
                self.statement(StmtKind.STORE, small, frame, out, sink)
                return
        if isinstance(target, cst.Name):
            current = frame.env.lookup(target.value)
            if isinstance(current, BufferValue) and current.buffer.is_var:
                self.statement(StmtKind.STORE, small, frame, out, sink)
                return
            if isinstance(current, (PyConst, PyValue)) and isinstance(value, (PyConst, PyValue)):
                frame.env.bind(target.value, PyValue(is_int=constness_of(current) is Constness.CONST))
                return
            if isinstance(current, TirExpr) or isinstance(value, TirExpr):
                uses = (current.uses if isinstance(current, TirExpr) else frozenset()) | (
                    value.uses if isinstance(value, TirExpr) else frozenset()
                )
                frame.env.bind(target.value, TirExpr.of_var(Var(target.value, VarKind.BIND, hidden=uses)))
                self.statement(StmtKind.BIND, small, frame, out, sink)
                return
        self.statement(StmtKind.UNKNOWN, small, frame, out, sink, certain=False)

    def compound(self, statement: cst.BaseCompoundStatement, frame: Frame, out: list[Item]) -> None:
        if isinstance(statement, cst.For):
            self.loops.for_statement(statement, frame, out)
        elif isinstance(statement, cst.If):
            self.if_statement(statement, frame, out)
        elif isinstance(statement, cst.While):
            self.while_statement(statement, frame, out)
        elif isinstance(statement, cst.With):
            self.with_statement(statement, frame, out)
        elif isinstance(statement, cst.FunctionDef):
            apis = self.evaluator.decorator_apis(statement, frame.env)
            callee = DefinedFunction(statement, frame.top, frame.env, is_macro="macro" in apis)
            frame.env.bind(statement.name.value, PyCallable(callee))
        else:  # try, class, match: not modelled
            frame.add(out, Stmt(frame.site(statement), certain=False, kind=StmtKind.UNKNOWN))

    def if_statement(self, statement: cst.If, frame: Frame, out: list[Item]) -> None:
        sink = Sink(out)
        test = self.evaluator.value(statement.test, frame, sink)
        if not isinstance(test, (PyConst, TirExpr)):
            decided = self.evaluator.truth(statement.test, frame)
            test = test if decided is None else PyConst(decided)
        orelse = statement.orelse
        if isinstance(test, PyConst):  # a Python-level `if`: only the taken branch exists
            if test.value:
                self.block(suite_body(statement.body), frame, out)
            elif isinstance(orelse, cst.If):
                self.if_statement(orelse, frame, out)
            elif isinstance(orelse, cst.Else):
                self.block(suite_body(orelse.body), frame, out)
            return
        runtime = isinstance(test, TirExpr)
        guard = self.python_operand(statement, frame) if runtime else None
        if guard is not None:  # `if flag and bx < 4:`: a runtime `if` that exists when `flag` holds
            frame = frame.branch(guard)
        stmt = self.statement(StmtKind.IF, statement, frame, out, sink, certain=runtime)
        if guard is not None:
            stmt.conditions = (guard.site, *stmt.conditions)
        condition = frame.site(statement)
        then_frame = frame.tir() if runtime else frame.branch(Guard(condition, statement.test, True))
        else_frame = frame.tir() if runtime else frame.branch(Guard(condition, statement.test, False))
        names = [] if runtime else sorted(assigned_names(statement))
        before = {name: frame.env.names.get(name) for name in names}
        self.block(suite_body(statement.body), then_frame, stmt.body)
        after_then = {name: frame.env.names.get(name) for name in names}
        for name, value in before.items():  # the other branch starts from the values before
            if value is None:
                frame.env.names.pop(name, None)
            else:
                frame.env.bind(name, value)
        if isinstance(orelse, cst.If):
            self.if_statement(orelse, else_frame, stmt.orelse)
        elif isinstance(orelse, cst.Else):
            self.block(suite_body(orelse.body), else_frame, stmt.orelse)
        if not runtime:
            # A Python-level condition tilecheck cannot evaluate: the branches are spliced
            # in place (no statement), each only possibly present, and what they assign is
            # unknown afterwards.
            out.remove(stmt)
            for item in (*stmt.body, *stmt.orelse):
                item.certain = False
                item.conditions = (condition, *item.conditions)
                out.append(item)
            for name in names:
                frame.env.bind(name, either(name, after_then[name], frame.env.names.get(name)))
            frame.absorb(then_frame)
            frame.absorb(else_frame)

    def python_operand(self, statement: cst.If, frame: Frame) -> Guard | None:
        """`if flag and bx < 4:` (no `else`) with `flag` a Python value tilecheck does not know:
        when `flag` is falsy the test is that Python value and the branch is dropped as the
        kernel is built, so the runtime `if` exists only when `flag` holds."""
        test = statement.test
        if (
            statement.orelse is not None
            or not isinstance(test, cst.BooleanOperation)
            or not isinstance(test.operator, cst.And)
            or not isinstance(test.left, (cst.Name, cst.Attribute))
        ):
            return None
        if not isinstance(self.evaluator.value(test.left, frame, Sink([])), PyValue):
            return None
        return Guard(frame.site(statement), test.left, True)

    def while_statement(self, statement: cst.While, frame: Frame, out: list[Item]) -> None:
        sink = Sink(out)
        test = self.evaluator.value(statement.test, frame, sink)
        # `while False` still emits `while T.bool(False): body` (verified): a statement.
        runtime = isinstance(test, TirExpr) or (isinstance(test, PyConst) and not test.value)
        stmt = self.statement(StmtKind.WHILE, statement, frame, out, sink, certain=runtime)
        inner = frame.tir() if runtime else frame.uncertain()
        self.block(suite_body(statement.body), inner, stmt.body)
        if not runtime:
            for name in assigned_names(statement):
                frame.env.bind(name, UNKNOWN)
            frame.absorb(inner)

    def with_statement(self, statement: cst.With, frame: Frame, out: list[Item]) -> None:
        with_statement(self, statement, frame, out)

    def bind_block_indices(self, target: cst.BaseExpression, frame: Frame) -> None:
        names: list[cst.BaseExpression] = [target] if isinstance(target, cst.Name) else []
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements]
        for name in names:
            if isinstance(name, cst.Name):
                frame.env.bind(name.value, TirExpr.of_var(Var(name.value, VarKind.SYMBOL)))
