"""Static values of loop bounds, as PyPTO's parser sees them.

PyPTO evaluates names that are not DSL variables in the Python scope of the kernel, so a bound
such as `HIDDEN // K_CHUNK` built from module constants is a compile-time integer and takes the
pass's static path. tilecheck reproduces that by *reading* the module, and the sibling modules
it imports constants from, never by importing them. A name bound inside the DSL function is a
DSL variable (a runtime value) even when it is assigned a literal.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from tilecheck.pypto.cstutil import MAX_INT_BITS, bounded, int_value
from tilecheck.source import guards as nesting
from tilecheck.source.cst_parse import parse_module
from tilecheck.source.project_files import find_module
from tilecheck.source.reading import read_text
from tilecheck.tilelang.imports import dotted_name

_MAX_IMPORT_DEPTH = 8


@dataclass(frozen=True)
class Value:
    """`kind` is "int" (value set), "runtime", "unresolved" (names a global we cannot read
    statically; `name` says which) or "nonint" (a constant that is not an integer)."""

    kind: str
    value: int | None = None
    name: str | None = None

    @property
    def is_int(self) -> bool:
        return self.kind == "int"


RUNTIME = Value("runtime")
NONINT = Value("nonint")


def _unresolved(name: str) -> Value:
    return Value("unresolved", name=name)


_BINARY: dict[type[cst.BaseBinaryOp], Callable[[int, int], int]] = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.FloorDivide: lambda a, b: a // b,
    cst.Modulo: lambda a, b: a % b,
    cst.LeftShift: lambda a, b: a << b,
    cst.RightShift: lambda a, b: a >> b,
    cst.BitAnd: lambda a, b: a & b,
    cst.BitOr: lambda a, b: a | b,
    cst.BitXor: lambda a, b: a ^ b,
    cst.Power: lambda a, b: a**b,
}


class ModuleConstants:
    """Module-level integer constants of one file, with imports followed to sibling files."""

    def __init__(
        self, module: cst.Module, path: str | None, _cache: dict[str, ModuleConstants | None] | None = None
    ):
        self._module = module
        self._path = os.path.abspath(path) if path else None
        self._cache = _cache if _cache is not None else {}
        if self._path:
            self._cache[self._path] = self
        self._assigned: dict[str, cst.BaseExpression | None] = {}  # None: ambiguous
        self._imported: dict[str, tuple[str | None, str]] = {}  # local -> (file, name)
        self._modules: dict[str, str | None] = {}  # local alias -> file of an imported module
        self._values: dict[str, Value] = {}
        self._busy: set[str] = set()
        self._collect()

    def close(self) -> None:
        """Forget the files read. The shared cache refers back to this object (and every sibling
        to the cache), a reference cycle that would otherwise keep the trees alive until the
        cyclic garbage collector runs."""
        self._cache.clear()

    def _collect(self) -> None:
        for statement in self._module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self._collect_small(small)
            else:
                for name in _bound_names_compound(statement):
                    self._assigned[name] = None

    def _bind(self, name: str, value: cst.BaseExpression | None) -> None:
        self._assigned[name] = None if name in self._assigned or name in self._imported else value
        self._imported.pop(name, None)

    def _collect_small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Assign):
            for target in small.targets:
                if isinstance(target.target, cst.Name):
                    self._bind(target.target.value, small.value)
                    continue
                pairs = _unpacked(target.target, small.value)
                if pairs is not None:  # `T, K = 32, 4096` binds as `T = 32; K = 4096`
                    for name, value in pairs:
                        self._bind(name, value)
                else:
                    for name in _names_in(target.target):
                        self._bind(name, None)
        elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
            if small.value is not None:
                self._bind(small.target.value, small.value)
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            self._bind(small.target.value, None)
        elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
            source = (dotted_name(small.module) or "") if small.module is not None else ""
            level = len(small.relative)
            for alias in small.names:
                imported = dotted_name(alias.name) or ""
                asname = alias.asname.name if alias.asname else None
                local = asname.value if isinstance(asname, cst.Name) else imported
                self._assigned.pop(local, None)
                module_file = self._find_module(level, source)
                submodule = self._find_module(level, f"{source}.{imported}" if source else imported)
                if submodule is not None and (
                    module_file is None or not self._defines(module_file, imported)
                ):
                    self._modules[local] = submodule
                else:
                    self._imported[local] = (module_file, imported)
        elif isinstance(small, cst.Import):
            for alias in small.names:
                name = dotted_name(alias.name) or ""
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self._modules[alias.asname.name.value] = self._find_module(0, name)
                elif "." not in name:
                    self._modules[name] = self._find_module(0, name)

    def _defines(self, file: str, name: str) -> bool:
        other = self._load(file)
        return other is not None and (name in other._assigned or name in other._imported)

    def _find_module(self, level: int, dotted_name: str) -> str | None:
        if self._path is None:
            return None
        return find_module(self._path, level, dotted_name)  # shared with the cache's dependencies

    def _load(self, file: str) -> ModuleConstants | None:
        file = os.path.abspath(file)
        if file in self._cache:
            return self._cache[file]
        if len(self._cache) > 64:
            return None
        text = read_text(file)  # a regular file of bounded size, read without blocking
        try:
            if text is None:
                raise OSError(file)
            if nesting.refuse(text, file) is not None:  # would crash libcst
                raise RecursionError(file)
            module = parse_module(text)  # the engine's parser: the same tree, and no crash on LibCST #1061
        except (OSError, UnicodeDecodeError, cst.ParserSyntaxError, RecursionError, MemoryError, ValueError):
            self._cache[file] = None
            return None
        return ModuleConstants(module, file, self._cache)

    def lookup(self, name: str, depth: int = 0) -> Value:
        """The value of module-level `name`."""
        if name in self._values:
            return self._values[name]
        if depth > _MAX_IMPORT_DEPTH or name in self._busy:
            return _unresolved(name)
        self._busy.add(name)
        try:
            result = self._lookup(name, depth)
        finally:
            self._busy.discard(name)
        self._values[name] = result
        return result

    def _lookup(self, name: str, depth: int) -> Value:
        if name in self._assigned:
            expr = self._assigned[name]
            if expr is None:
                return _unresolved(name)
            value = self.evaluate(expr, frozenset(), depth + 1)
            return _unresolved(name) if value.kind in ("runtime", "unresolved") else value
        if name in self._imported:
            file, imported = self._imported[name]
            other = self._load(file) if file else None
            if other is None:
                return _unresolved(name)
            value = other.lookup(imported, depth + 1)
            return _unresolved(name) if value.kind == "unresolved" else value
        return _unresolved(name)

    def evaluate(self, expr: cst.BaseExpression, local: frozenset[str] | set[str], depth: int = 0) -> Value:
        """Fold `expr`; names in `local` are DSL variables, i.e. runtime values."""
        if isinstance(expr, cst.Integer):
            value = int_value(expr)
            return Value("int", value) if value is not None else _too_large(expr)
        if isinstance(expr, (cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
            return NONINT
        if isinstance(expr, cst.Name):
            if expr.value in local:
                return RUNTIME
            if expr.value in ("True", "False", "None"):
                return NONINT
            return self.lookup(expr.value, depth)
        if isinstance(expr, cst.UnaryOperation):
            inner = self.evaluate(expr.expression, local, depth)
            if not inner.is_int:
                return inner
            assert inner.value is not None
            if isinstance(expr.operator, cst.Minus):
                return Value("int", -inner.value)
            if isinstance(expr.operator, cst.Plus):
                return inner
            if isinstance(expr.operator, cst.BitInvert):
                return Value("int", ~inner.value)
            return NONINT
        if isinstance(expr, cst.BinaryOperation):
            operation = _BINARY.get(type(expr.operator))
            left = self.evaluate(expr.left, local, depth)
            right = self.evaluate(expr.right, local, depth)
            for side in (left, right):
                if side.kind == "runtime":
                    return side
            for side in (left, right):
                if not side.is_int:
                    return side
            if operation is None:
                return NONINT
            assert left.value is not None and right.value is not None
            if isinstance(expr.operator, (cst.FloorDivide, cst.Modulo)) and right.value == 0:
                return NONINT
            if isinstance(expr.operator, cst.Power) and right.value < 0:
                return NONINT
            if isinstance(expr.operator, (cst.LeftShift, cst.RightShift)) and right.value < 0:
                return NONINT
            if _explodes(expr.operator, left.value, right.value):
                return _too_large(expr)
            result = bounded(operation(left.value, right.value))
            return Value("int", result) if result is not None else _too_large(expr)
        if isinstance(expr, cst.Attribute):
            name = dotted_name(expr)
            if name is not None:
                head, _, rest = name.partition(".")
                if head in local:
                    return RUNTIME
                file = self._modules.get(head)
                if file is not None and "." not in rest:
                    other = self._load(file)
                    if other is not None:
                        found = other.lookup(rest, depth + 1)
                        return _unresolved(name) if found.kind == "unresolved" else found
                return _unresolved(name)
        names = _names_in(expr)
        if names & set(local):
            return RUNTIME
        return _unresolved(dotted_name(expr) or type(expr).__name__)


def _unpacked(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> list[tuple[str, cst.BaseExpression]] | None:
    """(name, value) for each element of `a, b = x, y` (names or nested tuples of names, as
    many as values, no starred element), else None."""
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(value, (cst.Tuple, cst.List)):
        return None
    if len(target.elements) != len(value.elements):
        return None
    pairs = []
    for left, right in zip(target.elements, value.elements, strict=True):
        if isinstance(left, cst.StarredElement) or isinstance(right, cst.StarredElement):
            return None
        if isinstance(left.value, cst.Name):
            pairs.append((left.value.value, right.value))
            continue
        inner = _unpacked(left.value, right.value)  # `(a, b), c = (1, 2), 3`
        if inner is None:
            return None
        pairs.extend(inner)
    return pairs


def _explodes(operator: cst.BaseBinaryOp, left: int, right: int) -> bool:
    """Whether `left ** right` or `left << right` would leave `MAX_INT_BITS` (decided before
    computing it: both can take unbounded time and memory)."""
    if isinstance(operator, cst.Power):
        return abs(left) > 1 and (abs(left).bit_length() - 1) * right > MAX_INT_BITS
    if isinstance(operator, cst.LeftShift):
        return left != 0 and left.bit_length() + right > MAX_INT_BITS
    return False


def _too_large(expr: cst.BaseExpression) -> Value:
    """An integer beyond `MAX_INT_BITS`: unknown, named by (the start of) its text."""
    text = " ".join(cst.Module([]).code_for_node(expr)[:40].split())
    return _unresolved(text + "..." if len(text) >= 40 else text)


def _names_in(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            found.add(current.value)
        elif isinstance(current, cst.Attribute):
            stack.append(current.value)
        else:
            stack.extend(current.children)
    return found


def _bound_names_compound(statement: cst.BaseStatement) -> set[str]:
    """Names a compound module-level statement may bind (if/try/for/with/def/class)."""
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return {statement.name.value}
    found: set[str] = set()
    stack: list[cst.CSTNode] = [statement]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            found.add(current.name.value)
            continue
        if isinstance(current, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For)):
            target = current.target
            found |= _names_in(target) if not isinstance(target, cst.Attribute) else set()
        if isinstance(current, cst.ImportAlias):
            name = current.asname.name if current.asname else current.name
            local = dotted_name(name)
            if local:
                found.add(local.split(".")[0])
        stack.extend(current.children)
    return found
