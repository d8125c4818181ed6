"""What tilecheck needs of a module's imports and functions to follow them into the project,
read from libcst's tree (the checked file, already parsed) or CPython's (project modules):
module-level imports (with those under `try:` and `if`), module-level loader calls
(`tilelang, T = load_tilelang()`), and which module-level functions are macros, lazy loaders
or macro factories."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from tilecheck.source import python_ast
from tilecheck.tilelang.imports import ImportTable, bindings, dotted_name
from tilecheck.tilelang.syntax import suite_body


@dataclass(frozen=True)
class ImportSpec:
    """One module-level import, from either parser: `from <level><module> import names` (or
    `import module as bound` with `is_from` False; `names` then holds (module, bound))."""

    is_from: bool
    level: int
    module: str
    names: tuple[tuple[str, str | None], ...]  # (name, `as` name)
    star: bool = False


@dataclass(frozen=True)
class LoaderCall:
    """`tilelang, T = load_tilelang()` at module level: the targets and the function called."""

    callee: str  # a name or a dotted name (`lazy.load_tilelang`)
    targets: tuple[tuple[tuple[str, ...], bool], ...]  # each target's names, and whether a tuple


@dataclass(frozen=True)
class NameAssign:
    """`T = tilelang.language`, `T = lu.T`, `P = T.Parallel` at module level: a name bound to
    what a dotted name stands for (resolved after the module's imports)."""

    target: str
    source: str


@dataclass(frozen=True)
class LoaderShape:
    """A function's local imports and the names its last `return` returns."""

    imports: tuple[tuple[str, str], ...]
    returned: tuple[str, ...]

    def modules(self, table: ImportTable) -> list[str | None] | None:
        local = dict(self.imports)
        values = [local.get(name) or table.aliases.get(name) for name in self.returned]
        return values if any(values) else None


# -- shapes from libcst (the checked file) ----------------------------------------------------


def cst_shapes(
    module: cst.Module,
) -> tuple[list[ImportSpec], list[LoaderCall], dict[str, LoaderShape], list[NameAssign]]:
    specs: list[ImportSpec] = []
    calls: list[LoaderCall] = []
    assigns: list[NameAssign] = []
    for statement in _cst_flat(module.body):
        for small in statement.body:
            if isinstance(small, cst.Import):
                names = tuple((dotted_name(a.name) or "", _cst_asname(a)) for a in small.names)
                specs.append(ImportSpec(False, 0, "", names))
            elif isinstance(small, cst.ImportFrom):
                base = dotted_name(small.module) if small.module is not None else ""
                if base is None:
                    continue
                if isinstance(small.names, cst.ImportStar):
                    specs.append(ImportSpec(True, len(small.relative), base, (), star=True))
                else:
                    names = tuple((dotted_name(a.name) or "", _cst_asname(a)) for a in small.names)
                    specs.append(ImportSpec(True, len(small.relative), base, names))
            elif isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                callee = dotted_name(small.value.func)
                if callee is not None:
                    targets = tuple(
                        (tuple(found), isinstance(t.target, (cst.Tuple, cst.List)))
                        for t in small.targets
                        if (found := _cst_target_names(t.target)) is not None
                    )
                    calls.append(LoaderCall(callee, targets))
            elif isinstance(small, cst.Assign) and (source := dotted_name(small.value)) is not None:
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        assigns.append(NameAssign(target.target.value, source))
    loaders: dict[str, LoaderShape] = {}
    for definition in module.body:
        if isinstance(definition, cst.FunctionDef):
            shape = cst_loader(definition)
            if shape is not None:
                loaders[definition.name.value] = shape
    return specs, calls, loaders, assigns


def cst_loader(function: cst.FunctionDef) -> LoaderShape | None:
    local: dict[str, str] = {}
    returned: cst.BaseExpression | None = None
    for statement in _cst_flat(suite_body(function.body)):
        for small in statement.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)):
                local.update(bindings(small))
            elif isinstance(small, cst.Return) and small.value is not None:
                returned = small.value
    names = _cst_target_names(returned) if returned is not None else None
    return LoaderShape(tuple(local.items()), tuple(names)) if names else None


def _cst_flat(body: Sequence[cst.BaseStatement]) -> Iterator[cst.SimpleStatementLine]:
    """Simple statements of a body and of its `try:`/`else:`/`if` blocks (not nested functions)."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield statement
        elif isinstance(statement, (cst.Try, cst.If)):
            yield from _cst_flat(suite_body(statement.body))
            orelse = statement.orelse
            if isinstance(orelse, cst.Else):
                yield from _cst_flat(suite_body(orelse.body))


def _cst_asname(alias: cst.ImportAlias) -> str | None:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return None


def _cst_target_names(node: cst.BaseExpression) -> list[str] | None:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        names = [e.value.value for e in node.elements if isinstance(e.value, cst.Name)]
        return names if len(names) == len(node.elements) else None
    return None


# -- shapes from CPython's parser (project modules) -------------------------------------------


def ast_shapes(
    tree: ast.Module,
) -> tuple[list[ImportSpec], list[LoaderCall], dict[str, LoaderShape], frozenset[str], list[NameAssign]]:
    specs: list[ImportSpec] = []
    calls: list[LoaderCall] = []
    assigns: list[NameAssign] = []
    for node in _ast_flat(tree.body):
        if isinstance(node, ast.Import):
            specs.append(ImportSpec(False, 0, "", tuple((a.name, a.asname) for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            star = any(a.name == "*" for a in node.names)
            names = () if star else tuple((a.name, a.asname) for a in node.names)
            specs.append(ImportSpec(True, node.level, node.module or "", names, star=star))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            callee = python_ast.dotted_name(node.value.func)
            if callee is not None:
                targets = tuple(
                    (tuple(found), isinstance(t, (ast.Tuple, ast.List)))
                    for t in node.targets
                    if (found := _ast_target_names(t)) is not None
                )
                calls.append(LoaderCall(callee, targets))
        elif isinstance(node, ast.Assign) and (source := python_ast.dotted_name(node.value)) is not None:
            assigns.extend(NameAssign(t.id, source) for t in node.targets if isinstance(t, ast.Name))
    loaders: dict[str, LoaderShape] = {}
    followed: set[str] = set()
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        shape = _ast_loader(node)
        if shape is not None:
            loaders[node.name] = shape
        if shape is not None or _ast_is_macro(node) or _ast_returns_macro(node) or _ast_is_helper(node):
            followed.add(node.name)
    return specs, calls, loaders, frozenset(followed), assigns


def ast_aliases(specs: Sequence[ImportSpec]) -> dict[str, str]:
    """The external names the imports bind, as `ImportTable.from_module` reads them."""
    aliases: dict[str, str] = {}
    for spec in specs:
        if not spec.is_from:
            for name, asname in spec.names:
                if asname:
                    aliases[asname] = name
                else:
                    aliases[name.split(".", 1)[0]] = name.split(".", 1)[0]
        elif spec.level == 0 and spec.module and not spec.star:
            for name, asname in spec.names:
                aliases[asname or name] = f"{spec.module}.{name}"
    return aliases


def _ast_loader(function: ast.FunctionDef) -> LoaderShape | None:
    local: dict[str, str] = {}
    returned: ast.expr | None = None
    for node in _ast_flat(function.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    local[alias.asname] = alias.name
                else:
                    local[alias.name.split(".", 1)[0]] = alias.name.split(".", 1)[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                local[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Return) and node.value is not None:
            returned = node.value
    names = _ast_target_names(returned) if returned is not None else None
    return LoaderShape(tuple(local.items()), tuple(names)) if names and local else None


def _ast_is_macro(function: ast.FunctionDef) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "macro":
            return True
    return False


def _ast_is_helper(function: ast.FunctionDef) -> bool:
    """A plain function of simple statements that returns an expression: a kernel's call of it
    stands for that expression (`macros.MacroInliner.helper_result` decides what it models)."""
    body = function.body
    simple = (ast.Assign, ast.Expr, ast.Return)
    return (
        not function.decorator_list
        and bool(body)
        and all(isinstance(statement, simple) for statement in body)
        and isinstance(body[-1], ast.Return)
        and body[-1].value is not None
    )


def _ast_returns_macro(function: ast.FunctionDef) -> bool:
    last = function.body[-1] if function.body else None
    if not isinstance(last, ast.Return) or not isinstance(last.value, ast.Name):
        return False
    name = last.value.id
    return any(isinstance(n, ast.FunctionDef) and n.name == name and _ast_is_macro(n) for n in function.body)


def _ast_flat(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    for node in body:
        if isinstance(node, (ast.Try, ast.If)):
            yield from _ast_flat(node.body)
            yield from _ast_flat(node.orelse)
        else:
            yield node


def _ast_target_names(node: ast.expr) -> list[str] | None:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        names = [e.id for e in node.elts if isinstance(e, ast.Name)]
        return names if len(names) == len(node.elts) else None
    return None
