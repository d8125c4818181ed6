"""What names stand for while TileLang builds IR: TileLang's APIs through imports and local
aliases, and the Python functions a call reaches.

The base of `ExpressionEvaluator`, apart from it because these read names (through imports and
the frame), not expressions, and record nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from tilecheck.tilelang.imports import ImportTable, ProjectFunction, dotted_name, member_of
from tilecheck.tilelang.language import DTYPES
from tilecheck.tilelang.scope import DefinedFunction, Env, Frame
from tilecheck.tilelang.values import UNKNOWN, InstanceValue, ModuleRef, PyCallable, PyValue, Value


class NameResolver:
    """Resolves names in a `Frame` through the module's imports."""

    def __init__(self, imports: ImportTable) -> None:
        self.imports = imports
        # Makes a project module's function callable (set by the Python-level reader).
        self.project_function: Callable[[ProjectFunction], DefinedFunction | None] | None = None

    def api(self, node: cst.BaseExpression, frame: Frame) -> str | None:
        """`Parallel` for `T.Parallel` when `T` is TileLang's (imported in the module or the
        enclosing function) and not shadowed by a local value."""
        found = self.resolve(node, frame)
        return member_of(found) if isinstance(found, str) else None

    def resolve(self, node: cst.BaseExpression, frame: Frame) -> str | ProjectFunction | None:
        """What a dotted name stands for through imports: a qualified name (`T.Parallel` ->
        `tilelang.language.Parallel`, also through a local `ModuleRef`), a function followed
        in a project module (`common.load`), or None (a local value, or not imported)."""
        name = dotted_name(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        local = frame.env.lookup(head)
        if isinstance(local, ModuleRef):
            return f"{local.qualified}.{rest}" if rest else local.qualified
        if local is not None:
            return None
        found = self.imports.lookup(name)
        return found if isinstance(found, (str, ProjectFunction)) else None

    def callee(self, func: cst.BaseExpression, frame: Frame) -> PyCallable | None:
        """The Python function a call calls, when tilecheck knows it: a name bound in the file,
        a function of a project module (`macros.load_tile`), or a known `self.X` attribute."""
        if isinstance(func, cst.Name):
            found = frame.env.lookup(func.value)
            if isinstance(found, PyCallable):
                return found
        resolved = self.resolve(func, frame)
        if isinstance(resolved, ProjectFunction) and self.project_function is not None:
            made = self.project_function(resolved)
            return PyCallable(made) if made is not None else None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            base = frame.env.lookup(func.value.value)
            if isinstance(base, InstanceValue):
                found = base.attributes.get(func.attr.value)
                return found if isinstance(found, PyCallable) else None
        return None

    def decorator_apis(self, node: cst.FunctionDef, env: Env) -> set[str]:
        """The TileLang APIs among a function's decorators (`prim_func`, `macro`)."""
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

    def imported(self, node: cst.BaseExpression, frame: Frame) -> Value:
        """The value of a name imports bind: TileLang's modules and members stay known when
        assigned (`T = tilelang.language`, `P = T.Parallel`), a project module's function is
        callable (`load = common.load`); anything else is unknown."""
        resolved = self.resolve(node, frame)
        if isinstance(resolved, str) and resolved.split(".", 1)[0] == "tilelang":
            member = member_of(resolved)
            return PyValue(dtype=member) if member in DTYPES else ModuleRef(resolved)
        if isinstance(resolved, ProjectFunction):
            made = self.callee(node, frame)
            if made is not None:
                return made
        return UNKNOWN
