"""Macro inlining: variable arguments rename, expression arguments become Binds."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.tilelang.model import (
    MacroCall,
    Stmt,
    StmtKind,
)
from tilecheck.tilelang.project import loader_returns
from tilecheck.tilelang.scope import DefinedFunction, Env, Frame, Sink, bind_python
from tilecheck.tilelang.syntax import parameters, suite_body
from tilecheck.tilelang.values import (
    UNKNOWN,
    ModuleRef,
    PyCallable,
    PyConst,
    PyValue,
    TirExpr,
    Value,
    Var,
    VarKind,
)

if TYPE_CHECKING:
    from tilecheck.tilelang.statements import KernelInterpreter

MAX_MACRO_DEPTH = 16


class MacroInliner:
    """`@T.macro` calls, inlined at the call site as TileLang does (reference §2.3): the
    macro's body is interpreted by the kernel interpreter that owns this inliner."""

    def __init__(self, interpreter: KernelInterpreter) -> None:
        self.interpreter = interpreter
        self.evaluator = interpreter.evaluator

    def macro_for(self, call: cst.Call, frame: Frame) -> DefinedFunction | None:
        callee = self.evaluator.callee(call.func, frame)
        function = callee.function if callee is not None else None
        if isinstance(function, DefinedFunction) and function.is_macro:
            return function
        return None

    def inline_call(self, call: cst.Call, callee: PyCallable, frame: Frame, sink: Sink) -> Value:
        function = callee.function
        if isinstance(function, DefinedFunction) and not function.is_macro and frame.depth < MAX_MACRO_DEPTH:
            made = self.python_result(function, call, frame, sink)
            if made is None:
                made = self.helper_result(function, call, frame, sink)
            if made is not None:
                return made
        if (
            not isinstance(function, DefinedFunction)
            or not function.is_macro
            or frame.depth >= MAX_MACRO_DEPTH
        ):
            values = self.evaluator.arguments(call, frame, sink)
            if isinstance(function, DefinedFunction) and not function.is_macro:
                keywords = [arg.keyword.value if arg.keyword else None for arg in call.args]
                if not any(arg.star for arg in call.args):
                    function.call_sites.append(list(zip(keywords, values, strict=True)))
            sink.unknown = True
            return UNKNOWN
        definition = function.node
        origin = MacroCall(definition.name.value, call, frame.top, definition, function.top, function.path)
        if self.interpreter.state.kernel is not None:
            self.interpreter.state.kernel.macro_calls.append(origin)
        inner = Frame(
            Env(function.env),
            function.top,
            (*frame.origin, origin),
            frame.certain,
            frame.depth + 1,
            guards=frame.guards,
        )
        params = parameters(definition)
        arguments: dict[str, tuple[Value, Sink]] = {}
        nodes: dict[str, cst.CSTNode] = {}
        position = 0
        for arg in call.args:
            # An argument becomes a Bind whose value TileLang checks as a top-level expression.
            arg_sink = Sink(sink.out, call_depth=sink.call_depth)
            value = self.evaluator.value(arg.value, frame, arg_sink)
            if arg.star:
                continue
            if arg.keyword is not None:
                arguments[arg.keyword.value] = (value, arg_sink)
                nodes[arg.keyword.value] = arg.value
            elif position < len(params):
                arguments[params[position].name.value] = (value, arg_sink)
                nodes[params[position].name.value] = arg.value
                position += 1
        for param in params:
            name = param.name.value
            if name in arguments:
                value, arg_sink = arguments[name]
            elif param.default is not None:
                arg_sink = Sink([])
                value = self.evaluator.value(param.default, Frame(function.env, function.top), arg_sink)
            else:
                value, arg_sink = UNKNOWN, Sink([])
            self.macro_argument(name, value, nodes.get(name, call), frame, inner, sink, arg_sink)
        self.interpreter.block(suite_body(definition.body), inner, sink.out)
        return inner.env.names.get("<return>", UNKNOWN)

    def python_result(
        self, function: DefinedFunction, call: cst.Call, frame: Frame, sink: Sink
    ) -> Value | None:
        """What a plain function returns when tilecheck can tell without running TileLang: the
        modules a lazy loader imports and returns (`tilelang, T = load_tilelang()`), or the
        `@T.macro` a factory defines and returns (`load = make_loader(4)`), closed over the
        call's arguments. None for any other function."""
        body = suite_body(function.node.body)
        last = body[-1] if body else None
        if not isinstance(last, cst.SimpleStatementLine) or not isinstance(last.body[-1], cst.Return):
            return None
        returned = last.body[-1].value
        loaded = loader_returns(
            function.node, self.evaluator.imports if function.path is None else function.imports
        )
        if loaded is not None and returned is not None:
            self.evaluator.arguments(call, frame, sink)
            modules = [UNKNOWN if name is None else ModuleRef(name) for name in loaded]
            return modules[0] if isinstance(returned, cst.Name) else PyConst(tuple(modules))
        if not isinstance(returned, cst.Name):
            return None
        nested = {s.name.value: s for s in body if isinstance(s, cst.FunctionDef)}
        made = nested.get(returned.value)
        if made is None or "macro" not in self.evaluator.decorator_apis(made, function.env):
            return None
        env = self.closure(function, call, frame, sink)
        for statement in body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        value = self.evaluator.value(small.value, Frame(env, function.top), Sink([]))
                        for target in small.targets:
                            bind_python(target.target, value, env)
            elif isinstance(statement, cst.FunctionDef):
                is_macro = "macro" in self.evaluator.decorator_apis(statement, env)
                env.bind(statement.name.value, PyCallable(DefinedFunction(
                    statement, function.top, env, is_macro, function.path, function.imports)))  # fmt: skip
        return env.lookup(returned.value)

    def helper_result(
        self, function: DefinedFunction, call: cst.Call, frame: Frame, sink: Sink
    ) -> Value | None:
        """A plain helper that computes an expression: TileLang runs it as Python while the
        kernel is built (it is not rewritten as a macro is), so the call stands for the value
        it returns, built from the arguments themselves (no Bind per argument). A tile operator
        it calls without returning is built and dropped; measured with TileLang 0.1.15. Only
        helpers made of Python-level assignments, such dropped calls and a final `return` are
        modelled (a loop or a store in a helper fails to build: None, left to TL006)."""
        body = suite_body(function.node.body)
        if not body or not all(isinstance(s, cst.SimpleStatementLine) for s in body):
            return None
        smalls = [small for s in body if isinstance(s, cst.SimpleStatementLine) for small in s.body]
        last = smalls[-1] if smalls else None
        if not isinstance(last, cst.Return) or last.value is None:
            return None
        for small in smalls[:-1]:
            if isinstance(small, cst.Assign) and all(isinstance(t.target, cst.Name) for t in small.targets):
                continue
            if isinstance(small, cst.Expr) and (
                isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
                or (
                    isinstance(small.value, cst.Call)
                    and self.evaluator.api(small.value.func, frame) is not None
                )
            ):
                continue
            return None
        definition = function.node
        origin = MacroCall(
            definition.name.value, call, frame.top, definition, function.top, function.path, helper=True
        )
        env = self.closure(function, call, frame, sink)
        inner = Frame(
            env, function.top, (*frame.origin, origin), frame.certain, frame.depth + 1, guards=frame.guards
        )
        for small in smalls[:-1]:
            if isinstance(small, cst.Assign):
                scratch = Sink([])
                value = self.evaluator.value(small.value, inner, scratch)
                if scratch.emits or scratch.calls or scratch.unknown:
                    return None  # an operation kept in a Python name: not modelled
                for target in small.targets:
                    bind_python(target.target, value, env)
            elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                if self.evaluator.api(small.value.func, inner) is None:
                    return None  # `T` means something else inside the helper
                self.evaluator.value(small.value, inner, Sink([]))  # built, then dropped
        return self.evaluator.value(last.value, inner, sink)

    def closure(self, function: DefinedFunction, call: cst.Call, frame: Frame, sink: Sink) -> Env:
        """A factory's parameters bound to the call's arguments (defaults, else unknown)."""
        env = Env(function.env)
        values = self.evaluator.arguments(call, frame, sink)
        params = parameters(function.node)
        given: dict[str, Value] = {}
        positional = [
            v for arg, v in zip(call.args, values, strict=True) if arg.keyword is None and not arg.star
        ]
        for param, value in zip(params, positional, strict=False):
            given[param.name.value] = value
        for arg, value in zip(call.args, values, strict=True):
            if arg.keyword is not None:
                given[arg.keyword.value] = value
        for param in params:
            name = param.name.value
            if name in given:
                env.bind(name, given[name])
            elif param.default is not None:
                env.bind(
                    name, self.evaluator.value(param.default, Frame(function.env, function.top), Sink([]))
                )
            else:
                env.bind(name, PyValue())
        return env

    def macro_argument(
        self,
        name: str,
        value: Value,
        node: cst.CSTNode,
        frame: Frame,
        inner: Frame,
        sink: Sink,
        arg_sink: Sink,
    ) -> None:
        """TileLang's `macro_arg`: Vars rename, other PrimExprs become Bind statements."""
        if isinstance(value, TirExpr) and value.var is not None:
            value.var.name = name
            inner.env.bind(name, value)
        elif isinstance(value, TirExpr):
            var = Var(name, VarKind.BIND, hidden=value.uses)
            inner.env.bind(name, TirExpr.of_var(var))
            stmt = Stmt(frame.site(node), kind=StmtKind.MACRO_BIND, label=name,
                        accesses=arg_sink.accesses, calls=arg_sink.calls)  # fmt: skip
            frame.add(sink.out, stmt)
            return
        elif isinstance(value, PyValue) and not value.is_int:
            inner.env.bind(name, value)
            stmt = Stmt(frame.site(node), certain=False, kind=StmtKind.MACRO_BIND, label=name,
                        accesses=arg_sink.accesses, calls=arg_sink.calls)  # fmt: skip
            frame.add(sink.out, stmt)
            return
        else:
            inner.env.bind(name, value)
        if arg_sink.accesses or arg_sink.calls or arg_sink.unknown:
            stmt = Stmt(frame.site(node), certain=False, kind=StmtKind.EVAL,
                        accesses=arg_sink.accesses, calls=arg_sink.calls)  # fmt: skip
            frame.add(sink.out, stmt)
