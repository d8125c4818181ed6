"""Entering a factory: its parameters bound to a call's arguments, and whether a `@tilelang.jit`
function is itself the kernel (eager JIT).

Apart from `python_level` because these need only the evaluator, not the reader's lists of
factories and functions.
"""

from __future__ import annotations

import libcst as cst

from tilecheck.tilelang.evaluate import ExpressionEvaluator
from tilecheck.tilelang.imports import ImportTable, bindings
from tilecheck.tilelang.language import TENSOR_ANNOTATIONS
from tilecheck.tilelang.scope import Env, Frame, Sink
from tilecheck.tilelang.syntax import defines_kernel, nested_statements, parameters, suite_body
from tilecheck.tilelang.values import ModuleRef, PyConst, PyValue, Value


def factory_env(
    evaluator: ExpressionEvaluator,
    function: cst.FunctionDef,
    env: Env,
    arguments: list[tuple[str | None, Value]] | None,
    receiver: Value | None = None,
) -> Env:
    """Parameters bound to a call's arguments (and defaults), or unknown without a call;
    a method's first parameter is bound to `receiver` (`self`)."""
    inner = Env(env)
    params = parameters(function)
    if receiver is not None and params:
        inner.bind(params[0].name.value, receiver)
        params = params[1:]
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
            default = evaluator.value(param.default, Frame(env, function), Sink([]))
        if name in given:
            inner.bind(name, given[name])
        elif arguments is not None and default is not None:
            inner.bind(name, default)
        else:
            is_int = isinstance(default, PyConst) and type(default.value) is int
            annotation = param.annotation
            if annotation is not None and isinstance(annotation.annotation, cst.Name):
                is_int = is_int or annotation.annotation.value == "int"
            literal = default.value if isinstance(default, PyConst) else None
            inner.bind(name, PyValue(is_int=is_int, default=literal))
    return inner


def is_eager_kernel(
    function: cst.FunctionDef, env: Env, imports: ImportTable, evaluator: ExpressionEvaluator
) -> bool:
    """`@tilelang.jit` on the kernel itself (eager JIT): tensor parameters, no inner prim_func."""
    jitted = any(
        imports.qualify(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
        in ("tilelang.jit", "tilelang.lazy_jit")
        for d in function.decorators
    )
    if not jitted or defines_kernel(function):
        return False
    local = Env(env)  # the function may import `T` itself
    for statement in suite_body(function.body):
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                for name, qualified in bindings(small).items():
                    local.bind(name, ModuleRef(qualified))
    frame = Frame(local, function)
    if launches_kernel(function, frame, evaluator):
        return True
    for param in parameters(function):
        annotation = param.annotation.annotation if param.annotation else None
        if isinstance(annotation, (cst.Call, cst.Subscript)):
            annotation = annotation.func if isinstance(annotation, cst.Call) else annotation.value
        if annotation is not None and evaluator.api(annotation, frame) in TENSOR_ANNOTATIONS:
            return True
    return False


def launches_kernel(function: cst.FunctionDef, frame: Frame, evaluator: ExpressionEvaluator) -> bool:
    """Whether the function body opens `with T.Kernel(...)` (at any statement depth)."""
    for statement in nested_statements(suite_body(function.body)):
        if isinstance(statement, cst.With):
            for item in statement.items:
                call = item.item
                if isinstance(call, cst.Call) and evaluator.api(call.func, frame) == "Kernel":
                    return True
    return False
