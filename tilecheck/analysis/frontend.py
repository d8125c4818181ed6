"""The kernel interpreter: runs a kernel body abstractly, the way TileLang's eager builder
runs it, and records the loops and statements the frontend would emit (reference §2.3).

- `range(...)` is a TIR serial loop; any other Python iterable is unrolled at build time.
- An `if` on a Python value disappears with its dead branch; an `if` on a PrimExpr is a
  statement.
- `x = <Python value>` emits nothing; `x = <Var>` renames the variable; any other PrimExpr
  becomes a Bind statement (which breaks strict parallel chains and hides loop variables).
- Allocations emit nothing unless they initialise (`T.alloc_var(..., init=x)`).
- `@T.macro` calls are inlined at the call site: variable arguments rename, expression
  arguments become Binds.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from tilecheck.analysis import loops
from tilecheck.analysis.evaluate import ExpressionEvaluator
from tilecheck.analysis.imports import ImportTable, bindings
from tilecheck.analysis.model import (
    FileModel,
    Item,
    Kernel,
    Loop,
    LoopKind,
    MacroCall,
    Malformed,
    Stmt,
    StmtKind,
)
from tilecheck.analysis.scope import Env, Frame, Sink
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

MAX_MACRO_DEPTH = 16
MAX_INSTANTIATIONS = 8  # distinct factory call sites analyzed separately
MAX_UNROLL = 64  # Python-level loops longer than this are modelled once, uncertainly

_SCALAR_ANNOTATIONS = frozenset(
    {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float16", "float32", "float64", "bfloat16", "bool"}
)  # fmt: skip
_TENSOR_ANNOTATIONS = frozenset({"Tensor", "Buffer", "StridedTensor", "FlattenedTensor"})


class Callable_:
    """A function defined in the file: a macro (inlined by TileLang) or a plain helper."""

    def __init__(self, node: cst.FunctionDef, top: cst.CSTNode, env: Env, is_macro: bool) -> None:
        self.node = node
        self.top = top
        self.env = env
        self.is_macro = is_macro
        # Argument lists of the calls seen in the file (for factories: one build each).
        self.call_sites: list[list[tuple[str | None, Value]]] = []


class Frontend(ExpressionEvaluator):
    """Builds the `FileModel` of one parsed module."""

    def __init__(self, module: cst.Module, imports: ImportTable) -> None:
        self.module = module
        self.imports = imports
        self.current: Kernel | None = None  # the kernel being built
        self.model = FileModel()

    # -- discovery -------------------------------------------------------------------

    def run(self) -> FileModel:
        """Read the module as Python, then build each kernel factory once per distinct call.

        A factory (a function that defines a `@T.prim_func`) is built with the argument
        values of the calls the file makes (`kernel = matmul(1024, 1024, 64)`), because
        TileLang sees those values; without such a call its parameters are unknown.
        """
        module_env = Env()
        self.factories: list[Callable_] = []
        self.python_block(self.module.body, module_env, top=None)
        for factory in self.factories:
            for env in self.instantiations(factory):
                self.python_block(factory.node.body.body, env, factory.top)
        return self.model

    def instantiations(self, factory: Callable_) -> list[Env]:
        seen: dict[tuple, Env] = {}
        for arguments in factory.call_sites:
            env = self.factory_env(factory.node, factory.env, arguments)
            key = tuple(_value_key(env.names.get(p.name.value)) for p in _parameters(factory.node))
            seen.setdefault(key, env)
        if not seen or len(seen) > MAX_INSTANTIATIONS:
            return [self.factory_env(factory.node, factory.env, None)]
        return list(seen.values())

    def decorator_api(self, node: cst.FunctionDef, env: Env) -> set[str]:
        found: set[str] = set()
        frame = Frame(env, node)
        for decorator in node.decorators:
            expr = decorator.decorator
            if isinstance(expr, cst.Call):
                expr = expr.func
            api = self.api(expr, frame)
            if api is not None:
                found.add(api)
        return found

    def python_block(self, body, env: Env, top: cst.CSTNode | None) -> None:
        """Walk module or factory code as plain Python: constants, macros, kernels."""
        for statement in body:
            anchor = statement if top is None else top
            if isinstance(statement, cst.FunctionDef):
                apis = self.decorator_api(statement, env)
                if "prim_func" in apis:
                    self.kernel(statement, anchor, env)
                    env.bind(statement.name.value, PyValue())
                    continue
                if self.is_eager_kernel(statement, env):
                    self.kernel(statement, anchor, env)
                    env.bind(statement.name.value, PyValue())
                    continue
                callee = Callable_(statement, anchor, env, is_macro="macro" in apis)
                env.bind(statement.name.value, PyCallable(callee))
                if callee.is_macro:
                    continue
                if top is None and _defines_kernel(statement):
                    self.factories.append(callee)  # built once per call site, after the module
                else:  # a nested factory, or plain code that may call factories
                    self.python_block(statement.body.body, self.factory_env(statement, env, None), anchor)
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self.python_assign(small, env, anchor)
            elif isinstance(statement, cst.If):
                self.python_if(statement, env, anchor)
            elif isinstance(statement, (cst.For, cst.While, cst.With, cst.Try)):
                self.forget_assigned(statement, env)
                inner = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
                self.python_block(inner, env, anchor)

    def is_eager_kernel(self, function: cst.FunctionDef, env: Env) -> bool:
        """`@tilelang.jit` on the kernel itself (eager JIT): tensor parameters, no inner prim_func."""
        jitted = any(
            self.imports.qualify(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
            in ("tilelang.jit", "tilelang.lazy_jit")
            for d in function.decorators
        )
        if not jitted or _defines_kernel(function):
            return False
        local = Env(env)  # the function may import `T` itself
        for statement in function.body.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    for name, qualified in bindings(small).items():
                        local.bind(name, ModuleRef(qualified))
        frame = Frame(local, function)
        if self.launches_kernel(function, frame):
            return True
        for param in _parameters(function):
            annotation = param.annotation.annotation if param.annotation else None
            if isinstance(annotation, (cst.Call, cst.Subscript)):
                annotation = annotation.func if isinstance(annotation, cst.Call) else annotation.value
            if annotation is not None and self.api(annotation, frame) in _TENSOR_ANNOTATIONS:
                return True
        return False

    def launches_kernel(self, function: cst.FunctionDef, frame: Frame) -> bool:
        """Whether the function body opens `with T.Kernel(...)` (at any statement depth)."""
        for statement in _statements(function.body.body):
            if isinstance(statement, cst.With):
                for item in statement.items:
                    call = item.item
                    if isinstance(call, cst.Call) and self.api(call.func, frame) == "Kernel":
                        return True
        return False

    def python_if(self, statement: cst.If, env: Env, top: cst.CSTNode) -> None:
        test = self.value(statement.test, Frame(env, top), Sink([]))
        if isinstance(test, PyConst):
            branch = statement.body if test.value else statement.orelse
            if isinstance(branch, cst.Else):
                branch = branch.body
            if isinstance(branch, cst.If):
                self.python_if(branch, env, top)
            elif branch is not None:
                self.python_block(branch.body, env, top)
            return
        self.forget_assigned(statement, env)
        for branch_body in _if_bodies(statement):
            self.python_block(branch_body, Env(env), top)

    def forget_assigned(self, statement: cst.CSTNode, env: Env) -> None:
        """Names assigned under an undecidable Python condition hold unknown values."""
        for node in _assigned_names(statement):
            env.bind(node, PyValue())

    def python_assign(self, small: cst.BaseSmallStatement, env: Env, top: cst.CSTNode) -> None:
        frame = Frame(env, top)
        if isinstance(small, (cst.Import, cst.ImportFrom)) and env.parent is not None:
            for name, qualified in bindings(small).items():
                env.bind(name, ModuleRef(qualified))  # `import tilelang.language as T` in a factory
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self.value(small.value, frame, Sink([]))  # may be a factory call
        elif isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
            value = self.value(small.value, frame, Sink([]))
            if isinstance(value, BufferValue) and not value.buffer.name:
                value.buffer.name = _first_name(small) or "buffer"
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            for target in targets:
                self.bind_python(target, value, env)
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            env.bind(small.target.value, PyValue())

    def bind_python(self, target: cst.BaseExpression, value: Value, env: Env) -> None:
        if isinstance(target, cst.Name):
            env.bind(target.value, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            items = (
                value.value if isinstance(value, PyConst) and isinstance(value.value, (tuple, list)) else None
            )
            for index, element in enumerate(target.elements):
                part: Value = PyValue()
                if items is not None and len(items) == len(target.elements):
                    item = items[index]
                    part = item if isinstance(item, Value) else PyConst(item)
                self.bind_python(element.value, part, env)

    def factory_env(
        self, function: cst.FunctionDef, env: Env, arguments: list[tuple[str | None, Value]] | None
    ) -> Env:
        """Parameters bound to a call's arguments (and defaults), or unknown without a call."""
        inner = Env(env)
        params = _parameters(function)
        given: dict[str, Value] = {}
        if arguments is not None:
            positional = [value for keyword, value in arguments if keyword is None]
            for param, value in zip(params, positional, strict=False):
                given[param.name.value] = value
            given.update({keyword: value for keyword, value in arguments if keyword is not None})
        for param in params:
            name = param.name.value
            default = None
            if param.default is not None:
                default = self.value(param.default, Frame(env, function), Sink([]))
            if name in given:
                inner.bind(name, given[name])
            elif arguments is not None and default is not None:
                inner.bind(name, default)
            else:
                is_int = isinstance(default, PyConst) and type(default.value) is int
                annotation = param.annotation
                if annotation is not None and isinstance(annotation.annotation, cst.Name):
                    is_int = is_int or annotation.annotation.value == "int"
                inner.bind(name, PY_INT if is_int else PyValue())
        return inner

    # -- kernels ---------------------------------------------------------------------

    def kernel(self, node: cst.FunctionDef, top: cst.CSTNode, env: Env) -> None:
        kernel_env = Env(env)
        frame = Frame(kernel_env, top)
        kernel = Kernel(node.name.value, node, top)
        self.current = kernel
        for param in _parameters(node):
            value = self.parameter(param, frame)
            kernel_env.bind(param.name.value, value)
            if isinstance(value, BufferValue):
                kernel.buffers.append(value.buffer)
        self.block(node.body.body, frame, kernel.body)
        self.current = None
        self.model.kernels.append(kernel)

    def parameter(self, param: cst.Param, frame: Frame) -> Value:
        if param.annotation is None:
            if param.default is not None:  # a Python parameter of an eager-JIT kernel
                default = self.value(param.default, frame, Sink([]))
                return PY_INT if isinstance(default, PyConst) and type(default.value) is int else PyValue()
            return UNKNOWN
        return self.annotation_value(param.name.value, param.annotation, param, frame)

    def annotation_value(
        self, name: str, annotation_node: cst.Annotation, node: cst.CSTNode, frame: Frame
    ) -> Value:
        """What a kernel parameter (or an eager-JIT declaration) annotated this way holds."""
        annotation = annotation_node.annotation
        if isinstance(annotation, cst.Name) and annotation.value in ("int", "float", "bool"):
            return PY_INT if annotation.value == "int" else PyValue()
        head = annotation.func if isinstance(annotation, cst.Call) else annotation
        if isinstance(annotation, cst.Subscript):
            head = annotation.value
        api = self.api(head, frame)
        if api in _SCALAR_ANNOTATIONS:
            return TirExpr.of_var(Var(name, VarKind.SYMBOL))
        if api in _TENSOR_ANNOTATIONS:
            shape = None
            if isinstance(annotation, cst.Call) and annotation.args:
                value = self.value(annotation.args[0].value, frame, Sink([]))
                if isinstance(value, PyConst) and isinstance(value.value, (tuple, list)):
                    shape = tuple(v if isinstance(v, Value) else PyConst(v) for v in value.value)
            return BufferValue(Buffer(name, "global", node, shape, "param"))
        return UNKNOWN

    # -- statements ------------------------------------------------------------------

    def block(self, body, frame: Frame, out: list[Item]) -> None:
        for statement in body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if self.small(small, frame, out):
                        return
            else:
                self.compound(statement, frame, out)

    def add(self, out: list[Item], frame: Frame, item: Item) -> None:
        if not frame.certain:
            item.certain = False
        out.append(item)

    def small(self, small: cst.BaseSmallStatement, frame: Frame, out: list[Item]) -> bool:
        """Interpret one simple statement; True when it ends the block (return)."""
        if isinstance(small, cst.Expr):
            self.expression_statement(small, frame, out)
        elif isinstance(small, cst.Assign):
            sink = Sink(out)
            value = self.value(small.value, frame, sink)
            for target in small.targets:
                self.assign(target.target, value, small, frame, out, sink)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                sink = Sink(out)
                value = self.value(small.value, frame, sink)
                self.assign(small.target, value, small, frame, out, sink)
            elif isinstance(small.target, cst.Name):  # eager JIT: `X: T.Tensor((64,), "float32")`
                declared = self.annotation_value(small.target.value, small.annotation, small, frame)
                frame.env.bind(small.target.value, declared)
                if isinstance(declared, BufferValue) and self.current is not None:
                    self.current.buffers.append(declared.buffer)
        elif isinstance(small, cst.AugAssign):
            self.augmented(small, frame, out)
        elif isinstance(small, cst.Return):
            if small.value is not None:
                frame.env.bind("<return>", self.value(small.value, frame, Sink(out)))
            return True
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            for name, qualified in bindings(small).items():
                frame.env.bind(name, ModuleRef(qualified))
        elif isinstance(small, (cst.Pass, cst.Global, cst.Nonlocal)):
            pass
        else:  # break, continue, assert, del, raise: effects tilecheck does not model
            self.add(out, frame, Stmt(frame.site(small), certain=False, kind=StmtKind.UNKNOWN))
        return False

    def expression_statement(self, small: cst.Expr, frame: Frame, out: list[Item]) -> None:
        expr = small.value
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis, cst.Name)):
            return  # docstrings and bare names emit nothing
        sink = Sink(out)
        if isinstance(expr, cst.Call) and self.is_scalar_copy(expr, frame):
            self.value(expr, frame, sink)
            sink.calls.clear()
            self.statement(StmtKind.STORE, small, frame, out, sink)
            return
        value = self.value(expr, frame, sink)
        if isinstance(expr, cst.Call) and self.macro_for(expr, frame) is not None:
            return  # inlined: its statements are already in `out`
        if sink.emits or sink.calls:
            self.statement(StmtKind.EVAL, small, frame, out, sink)
        elif sink.unknown or isinstance(value, Unknown):
            self.statement(StmtKind.UNKNOWN, small, frame, out, sink, certain=False)
        elif isinstance(value, TirExpr):
            self.statement(StmtKind.EVAL, small, frame, out, sink)

    def is_scalar_copy(self, call: cst.Call, frame: Frame) -> bool:
        if self.api(call.func, frame) != "copy":
            return False
        positional = [a for a in call.args if a.keyword is None]
        if len(positional) != 2 or len(call.args) != 2:
            return False
        from tilecheck.analysis.tileops import Operand

        return all(self.operand(a.value, frame) is Operand.ELEMENT for a in positional) and all(
            isinstance(a.value, cst.Subscript) for a in positional
        )

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
        self.add(out, frame, stmt)
        return stmt

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
            base = self.value(target.value, frame, sink)
            if isinstance(base, BufferValue):
                self.buffer_access(base.buffer, target, frame, sink, write=True)
                self.statement(StmtKind.STORE, node, frame, out, sink)
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
                if self.current is not None:
                    self.current.buffers.append(buffer)
            frame.env.bind(name, value)
            if buffer.api == "alloc_var" and _has_init(buffer.node):
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
        if isinstance(value, (PyConst, ShapeValue, PyCallable)) or value is PY_INT:
            if sink.emits or sink.calls:
                self.statement(StmtKind.EVAL, node, frame, out, sink)
            return
        # An unknown Python value may be a PrimExpr (then a Bind) or not: not evidence.
        if isinstance(value, PyValue) or sink.unknown or isinstance(value, Unknown):
            self.statement(StmtKind.BIND, node, frame, out, sink, certain=False)

    def augmented(self, small: cst.AugAssign, frame: Frame, out: list[Item]) -> None:
        sink = Sink(out)
        value = self.value(small.value, frame, sink)
        target = small.target
        if isinstance(target, cst.Subscript):
            base = self.value(target.value, frame, sink)
            if isinstance(base, BufferValue):
                self.buffer_access(base.buffer, target, frame, sink, write=False)
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
            self.for_statement(statement, frame, out)
        elif isinstance(statement, cst.If):
            self.if_statement(statement, frame, out)
        elif isinstance(statement, cst.While):
            self.while_statement(statement, frame, out)
        elif isinstance(statement, cst.With):
            self.with_statement(statement, frame, out)
        elif isinstance(statement, cst.FunctionDef):
            apis = self.decorator_api(statement, frame.env)
            callee = Callable_(statement, frame.top, frame.env, is_macro="macro" in apis)
            frame.env.bind(statement.name.value, PyCallable(callee))
        else:  # try, class, match: not modelled
            self.add(out, frame, Stmt(frame.site(statement), certain=False, kind=StmtKind.UNKNOWN))

    def body_of(self, suite: cst.BaseSuite) -> list:
        if isinstance(suite, cst.IndentedBlock):
            return list(suite.body)
        return (
            [cst.SimpleStatementLine(body=suite.body)] if isinstance(suite, cst.SimpleStatementSuite) else []
        )

    def if_statement(self, statement: cst.If, frame: Frame, out: list[Item]) -> None:
        sink = Sink(out)
        test = self.value(statement.test, frame, sink)
        orelse = statement.orelse
        if isinstance(test, PyConst):  # a Python-level `if`: only the taken branch exists
            if test.value:
                self.block(self.body_of(statement.body), frame, out)
            elif isinstance(orelse, cst.If):
                self.if_statement(orelse, frame, out)
            elif isinstance(orelse, cst.Else):
                self.block(self.body_of(orelse.body), frame, out)
            return
        runtime = isinstance(test, TirExpr)
        stmt = self.statement(StmtKind.IF, statement, frame, out, sink, certain=runtime)
        inner = frame if runtime else frame.uncertain()
        self.block(self.body_of(statement.body), inner, stmt.body)
        if isinstance(orelse, cst.If):
            self.if_statement(orelse, inner, stmt.orelse)
        elif isinstance(orelse, cst.Else):
            self.block(self.body_of(orelse.body), inner, stmt.orelse)
        if not runtime:
            # A Python-level condition tilecheck cannot evaluate: the branches are spliced
            # in place (no statement), each only possibly present.
            out.remove(stmt)
            for item in (*stmt.body, *stmt.orelse):
                item.certain = False
                out.append(item)

    def while_statement(self, statement: cst.While, frame: Frame, out: list[Item]) -> None:
        sink = Sink(out)
        test = self.value(statement.test, frame, sink)
        # `while False` still emits `while T.bool(False): body` (verified): a statement.
        runtime = isinstance(test, TirExpr) or (isinstance(test, PyConst) and not test.value)
        stmt = self.statement(StmtKind.WHILE, statement, frame, out, sink, certain=runtime)
        self.block(self.body_of(statement.body), frame if runtime else frame.uncertain(), stmt.body)

    def with_statement(self, statement: cst.With, frame: Frame, out: list[Item]) -> None:
        if len(statement.items) == 1:
            item = statement.items[0]
            call = item.item
            api = self.api(call.func, frame) if isinstance(call, cst.Call) else None
            if api == "Kernel":
                sink = Sink(out)
                self.arguments(call, frame, sink)
                if item.asname is not None:
                    self.bind_block_indices(item.asname.name, frame)
                self.block(self.body_of(statement.body), frame, out)
                return
            if api is not None:
                sink = Sink(out)
                self.arguments(call, frame, sink)
                stmt = self.statement(StmtKind.BLOCK, statement, frame, out, sink)
                if item.asname is not None:
                    self.bind_python(item.asname.name, UNKNOWN, frame.env)
                self.block(self.body_of(statement.body), frame, stmt.body)
                return
        stmt = self.statement(StmtKind.BLOCK, statement, frame, out, Sink(out), certain=False)
        self.block(self.body_of(statement.body), frame.uncertain(), stmt.body)

    def bind_block_indices(self, target: cst.BaseExpression, frame: Frame) -> None:
        names = [target] if isinstance(target, cst.Name) else []
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements]
        for name in names:
            if isinstance(name, cst.Name):
                frame.env.bind(name.value, TirExpr.of_var(Var(name.value, VarKind.SYMBOL)))

    # -- loops -----------------------------------------------------------------------

    def for_statement(self, statement: cst.For, frame: Frame, out: list[Item]) -> None:
        iterable = statement.iter
        if isinstance(iterable, cst.Call):
            api = self.api(iterable.func, frame)
            if api in loops.CONSTRUCTORS:
                self.tir_loop(statement, loops.match(api, iterable), frame, out)
                return
            if (
                isinstance(iterable.func, cst.Name)
                and iterable.func.value == "range"
                and frame.env.lookup("range") is None
            ):
                constructor = loops.match("serial", iterable)
                constructor.api = "range"
                constructor.kind = LoopKind.RANGE
                self.tir_loop(statement, constructor, frame, out)
                return
        sink = Sink(out)
        sequence = self.value(iterable, frame, sink)
        elements = _elements(sequence)
        if elements is not None and len(elements) <= MAX_UNROLL:
            for element in elements:  # Python-level unrolling: one copy of the body each
                self.bind_target(statement.target, element, frame)
                self.block(self.body_of(statement.body), frame, out)
            return
        self.bind_target(statement.target, UNKNOWN, frame)
        self.block(self.body_of(statement.body), frame.uncertain(), out)

    def bind_target(self, target: cst.BaseExpression, value: Value, frame: Frame) -> None:
        if isinstance(target, cst.Name):
            frame.env.bind(target.value, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            items = _elements(value)
            for index, element in enumerate(target.elements):
                part = items[index] if items is not None and len(items) == len(target.elements) else UNKNOWN
                self.bind_target(element.value, part, frame)

    def tir_loop(
        self, statement: cst.For, ctor: loops.ConstructorCall, frame: Frame, out: list[Item]
    ) -> None:
        sink = Sink(out)
        named = {k: self.value(v, frame, sink) for k, v in ctor.named.items()}
        extents = [self.value(e, frame, sink) for e in ctor.extents]
        targets = _target_names(statement.target)
        body = self.body_of(statement.body)
        if ctor.kind is LoopKind.VECTORIZED and (ctor.extra or "step" in ctor.named):
            # `T.vectorized` has no step: TileLang raises TypeError (reference §2.2).
            detail = "positional" if ctor.extra else "keyword"
            self.model.malformed.append(
                Malformed(
                    "vectorized-step", frame.site(ctor.call), "T." + ctor.api, frame.certain, detail=detail
                )
            )
        if ctor.starred or targets is None:
            self.bind_target(statement.target, UNKNOWN, frame)
            self.block(body, frame.uncertain(), out)
            return
        annotations = named.get("annotations")
        if ctor.kind is LoopKind.PERSISTENT:
            self.persistent(statement, ctor, named, targets, frame, out, sink)
            return
        if ctor.kind in (LoopKind.PARALLEL, LoopKind.GRID) and ctor.api in ("Parallel", "grid"):
            dims: list[tuple[Value, Value]] = [(PyConst(0), e) for e in extents]
        else:
            start = named.get("start")
            stop = named.get("stop")
            if start is None:
                self.bind_target(statement.target, UNKNOWN, frame)
                self.block(body, frame.uncertain(), out)
                return
            if stop is None:
                start, stop = PyConst(0), start
            dims = [(start, _extent(start, stop))]
        if len(targets) != len(dims):
            # TileLang fails to build this loop (e.g. one target for T.Parallel(a, b)).
            target_value: Value = UNKNOWN
            if ctor.api == "Parallel":
                malformed = Malformed(
                    "parallel-targets",
                    frame.site(ctor.call),
                    "T.Parallel",
                    frame.certain,
                    targets=len(targets),
                    extents=len(dims),
                    unpacking=not isinstance(statement.target, cst.Name),
                )
                self.model.malformed.append(malformed)
                if isinstance(statement.target, cst.Name):
                    target_value = LoopVarList(malformed)
            self.bind_target(statement.target, target_value, frame)
            self.block(body, frame.uncertain(), out)
            return
        request = None
        if ctor.kind is LoopKind.PIPELINED or (
            annotations is not None and ctor.kind is not LoopKind.PARALLEL
        ):
            request = loops.pipeline_request(
                ctor.kind,
                named.get("num_stages"),
                named.get("order"),
                named.get("stage"),
                annotations,
                positional_stages=_positional(ctor.call, 2) and ctor.kind is LoopKind.PIPELINED,
            )
        step = named.get("step")
        stepped = step is not None and not (isinstance(step, PyConst) and step.value == 1)
        parent = out
        first: Loop | None = None
        for dim, ((lo, extent), name) in enumerate(zip(dims, targets, strict=True)):
            loop = Loop(
                frame.site(ctor.call),
                kind=ctor.kind,
                api=("" if ctor.api == "range" else "T.") + ctor.api,
                dim=dim,
                ndim=len(dims),
                min=lo,
                extent=extent,
                step=step,
                constness=constness_of(lo).join(constness_of(extent)),
                pipeline=request if dim == 0 else None,
                call=ctor.call,
                statement=statement,
                arguments=named,
            )
            var = Var(name if not stepped else "_tmp", VarKind.LOOP, loop=loop)
            loop.var = var
            if stepped:
                # A stepped serial loop iterates `_tmp` and binds `i = start + _tmp * step`.
                bound = Var(name, VarKind.BIND, hidden=frozenset((var,)))
                frame.env.bind(name, TirExpr.of_var(bound))
                self.add(loop.body, frame, Stmt(frame.site(statement.target), kind=StmtKind.BIND))
            else:
                frame.env.bind(name, TirExpr.of_var(var))
            self.add(parent, frame, loop)
            parent = loop.body
            first = first or loop
        if first is not None:
            first.header_accesses = sink.accesses
        self.block(body, frame, parent)

    def persistent(self, statement, ctor, named, targets, frame: Frame, out: list[Item], sink: Sink) -> None:
        """`T.Persistent` emits coordinate Binds, then a serial wave loop guarded by an `if`."""
        for name in targets:
            var = Var(name, VarKind.BIND)
            frame.env.bind(name, TirExpr.of_var(var))
            self.add(out, frame, Stmt(frame.site(statement.target), kind=StmtKind.BIND))
        request = loops.pipeline_request(
            ctor.kind, named.get("num_stages"), None, None, named.get("annotations")
        )
        loop = Loop(
            frame.site(ctor.call),
            kind=LoopKind.PERSISTENT,
            api="T.Persistent",
            min=PyConst(0),
            extent=UNKNOWN,
            pipeline=request,
            call=ctor.call,
            statement=statement,
        )
        loop.var = Var("w", VarKind.LOOP, loop=loop)
        self.add(out, frame, loop)
        guard = Stmt(frame.site(statement), kind=StmtKind.IF, label="the persistent-loop guard")
        self.add(loop.body, frame, guard)
        self.block(self.body_of(statement.body), frame, guard.body)

    # -- macros ----------------------------------------------------------------------

    def macro_for(self, call: cst.Call, frame: Frame) -> Callable_ | None:
        if isinstance(call.func, cst.Name):
            callee = frame.env.lookup(call.func.value)
            function = callee.function if isinstance(callee, PyCallable) else None
            if isinstance(function, Callable_) and function.is_macro:
                return function
        return None

    def inline_call(self, call: cst.Call, callee: PyCallable, frame: Frame, sink: Sink) -> Value:
        function = callee.function
        if not isinstance(function, Callable_) or not function.is_macro or frame.depth >= MAX_MACRO_DEPTH:
            values = self.arguments(call, frame, sink)
            if isinstance(function, Callable_) and not function.is_macro:
                keywords = [arg.keyword.value if arg.keyword else None for arg in call.args]
                if not any(arg.star for arg in call.args):
                    function.call_sites.append(list(zip(keywords, values, strict=True)))
            sink.unknown = True
            return UNKNOWN
        definition = function.node
        origin = MacroCall(definition.name.value, call, frame.top, definition, function.top)
        if self.current is not None:
            self.current.macro_calls.append(origin)
        inner = Frame(
            Env(function.env), function.top, (*frame.origin, origin), frame.certain, frame.depth + 1
        )
        params = _parameters(definition)
        arguments: dict[str, tuple[Value, Sink]] = {}
        nodes: dict[str, cst.CSTNode] = {}
        position = 0
        for arg in call.args:
            arg_sink = Sink(sink.out, call_depth=sink.call_depth + 1)
            value = self.value(arg.value, frame, arg_sink)
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
                value = self.value(param.default, Frame(function.env, function.top), arg_sink)
            else:
                value, arg_sink = UNKNOWN, Sink([])
            self.macro_argument(name, value, nodes.get(name, call), frame, inner, sink, arg_sink)
        self.block(definition.body.body, inner, sink.out)
        return inner.env.names.get("<return>", UNKNOWN)

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
            self.add(sink.out, frame, stmt)
            return
        elif isinstance(value, PyValue) and not value.is_int:
            inner.env.bind(name, value)
            stmt = Stmt(frame.site(node), certain=False, kind=StmtKind.MACRO_BIND, label=name,
                        accesses=arg_sink.accesses, calls=arg_sink.calls)  # fmt: skip
            self.add(sink.out, frame, stmt)
            return
        else:
            inner.env.bind(name, value)
        if arg_sink.accesses or arg_sink.calls or arg_sink.unknown:
            stmt = Stmt(frame.site(node), certain=False, kind=StmtKind.EVAL,
                        accesses=arg_sink.accesses, calls=arg_sink.calls)  # fmt: skip
            self.add(sink.out, frame, stmt)


def _value_key(value: Value | None) -> object:
    if isinstance(value, PyConst):
        try:
            hash(value.value)
        except TypeError:
            return ("py", repr(value.value))
        return ("py", type(value.value).__name__, value.value)
    return ("unknown", type(value).__name__)


def _statements(body) -> Iterator[cst.CSTNode]:
    """Every statement nested in a statement list, without visiting expressions (cheap)."""
    stack = list(body)
    while stack:
        statement = stack.pop()
        yield statement
        for suite in _suites(statement):
            if isinstance(suite, cst.IndentedBlock):
                stack.extend(suite.body)


def _suites(statement: cst.CSTNode) -> Iterator[cst.BaseSuite]:
    for name in ("body", "orelse", "finalbody"):
        part = getattr(statement, name, None)
        if isinstance(part, cst.BaseSuite):
            yield part
        elif isinstance(part, (cst.Else, cst.Finally)):
            yield part.body
        elif isinstance(part, cst.If):  # elif
            yield from _suites(part)
    for handler in getattr(statement, "handlers", ()):
        yield handler.body


def _defines_kernel(function: cst.FunctionDef) -> bool:
    """Whether a `@...prim_func` definition appears anywhere inside `function`."""
    for statement in _statements(function.body.body):
        if isinstance(statement, cst.FunctionDef):
            for decorator in statement.decorators:
                expr = (
                    decorator.decorator.func
                    if isinstance(decorator.decorator, cst.Call)
                    else decorator.decorator
                )
                name = expr.attr.value if isinstance(expr, cst.Attribute) else getattr(expr, "value", None)
                if name == "prim_func":
                    return True
    return False


def _has_init(node: cst.CSTNode | None) -> bool:
    if not isinstance(node, cst.Call):
        return False
    positional = [a for a in node.args if a.keyword is None]
    return any(a.keyword is not None and a.keyword.value == "init" for a in node.args) or len(positional) > 1


def _parameters(function: cst.FunctionDef) -> list[cst.Param]:
    params = function.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def _first_name(small: cst.CSTNode) -> str | None:
    if isinstance(small, cst.Assign) and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        return small.target.value
    return None


def _target_names(target: cst.BaseExpression) -> list[str] | None:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
        return names if len(names) == len(target.elements) else None
    return None


def _positional(call: cst.Call, index: int) -> bool:
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return len(positional) > index


def _extent(start: Value, stop: Value) -> Value:
    from tilecheck.analysis.evaluate import binary

    return binary(cst.Subtract, stop, start)


def _elements(value: Value) -> list[Value] | None:
    if isinstance(value, PyConst) and isinstance(value.value, (tuple, list)):
        return [v if isinstance(v, Value) else PyConst(v) for v in value.value]
    if isinstance(value, ShapeValue) and value.buffer.shape is not None:
        return list(value.buffer.shape)
    return None


def _if_bodies(statement: cst.If):
    yield statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
    orelse = statement.orelse
    if isinstance(orelse, cst.If):
        yield from _if_bodies(orelse)
    elif isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
        yield orelse.body.body


def _assigned_names(statement: cst.CSTNode) -> set[str]:
    """Names a compound statement may bind (assignments, loop targets, definitions)."""
    names: set[str] = set()
    for inner in _statements([statement]):
        targets: list[cst.BaseExpression] = []
        if isinstance(inner, cst.SimpleStatementLine):
            for small in inner.body:
                if isinstance(small, cst.Assign):
                    targets += [t.target for t in small.targets]
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    targets.append(small.target)
        elif isinstance(inner, cst.For):
            targets.append(inner.target)
        elif isinstance(inner, (cst.FunctionDef, cst.ClassDef)):
            names.add(inner.name.value)
        while targets:
            target = targets.pop()
            if isinstance(target, cst.Name):
                names.add(target.value)
            elif isinstance(target, (cst.Tuple, cst.List)):
                targets += [element.value for element in target.elements]
    return names


def analyze(module: cst.Module, imports: ImportTable | None = None) -> FileModel:
    """The kernel model of a parsed module."""
    return Frontend(module, imports or ImportTable.from_module(module)).run()
