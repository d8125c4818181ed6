"""The project's own modules, read (never imported) to follow what a kernel file imports.

`from .tilelang_utils import T`, `from pkg import T` (re-exported by `pkg/__init__.py`),
`import pkg.tl as tlu; tlu.T`, `tilelang, T = load_tilelang()` and `from .common import
load_tile` (a `@T.macro`) all come from files of the checked project. `ProjectModules` finds
them as `tilecheck.dependencies.find_module` does (relative imports from the importing file's
folder, absolute ones from it and the folders above it), parses each once per check, and
resolves its module-level imports in turn, up to `MAX_DEPTH` imports away from the checked
file, `MAX_FILES` files and `MAX_BYTES` bytes per file. Project modules are read with CPython's
parser (an order of magnitude faster than libcst); libcst parses one only when a macro, loader
or macro factory of it is used. A file that cannot be found, read or parsed leaves the import
unresolved, with the reason (TL006 reports it). The cache lists
every file this can read as a dependency (`tilecheck.dependencies.imported_files`), so editing
a helper module re-checks the kernels that import it.
"""

from __future__ import annotations

import ast
import io
import os
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from tilecheck.analysis.imports import ImportTable, bindings, dotted_name
from tilecheck.analysis.syntax import suite_body
from tilecheck.dependencies import KERNEL_HINTS, find_module
from tilecheck.dependencies import MAX_FILES as DEPENDENCY_FILES

MAX_DEPTH = 4  # imports followed away from the checked file (a re-export chain)
MAX_FILES = min(32, DEPENDENCY_FILES)  # project files read per checked file
MAX_BYTES = 1 << 20  # larger helper modules are not read
# Packages never looked for in the project: a checkout of TileLang is the library, not a helper.
EXTERNAL = frozenset({"tilelang", "tvm", "pypto", "torch", "numpy", "triton"})


def may_define_kernels(source: str) -> bool:
    return any(word in source for word in KERNEL_HINTS)


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

    callee: str
    targets: tuple[tuple[tuple[str, ...], bool], ...]  # each target's names, and whether a tuple


@dataclass(frozen=True)
class LoaderShape:
    """A function's local imports and the names its last `return` returns."""

    imports: tuple[tuple[str, str], ...]
    returned: tuple[str, ...]

    def modules(self, table: ImportTable) -> list[str | None] | None:
        local = dict(self.imports)
        values = [local.get(name) or table.aliases.get(name) for name in self.returned]
        return values if any(values) else None


@dataclass(eq=False)
class ProjectModule:
    """A project file read while resolving imports: its source, its resolved imports and the
    module-level functions tilecheck follows (macros, lazy loaders, macro factories); the
    libcst tree is parsed on first use."""

    path: str
    source: str
    imports: ImportTable = field(default_factory=lambda: ImportTable({}))
    followed: frozenset[str] = frozenset()  # macros, loaders and macro factories by name
    loaders: dict[str, LoaderShape] = field(default_factory=dict)
    _tree: cst.Module | None = None
    _parse_failed: bool = False

    @property
    def module(self) -> cst.Module | None:
        if self._tree is None and not self._parse_failed:
            try:
                self._tree = cst.parse_module(self.source)
            except (cst.ParserSyntaxError, RecursionError, MemoryError, ValueError):
                self._parse_failed = True
        return self._tree

    def function(self, name: str) -> tuple[cst.FunctionDef, cst.CSTNode] | None:
        module = self.module
        if module is None:
            return None
        for statement in module.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
                return statement, statement
        return None


@dataclass(frozen=True, eq=False)
class ProjectFunction:
    """A macro, loader or macro factory defined in a project module, by name."""

    module: ProjectModule
    name: str


class ProjectModules:
    """The project files one check reads, each read once; owned by that check (no global
    state). `modules` holds the ones read, by path."""

    def __init__(self) -> None:
        self.modules: dict[str, ProjectModule] = {}
        self._failed: dict[str, str] = {}
        self._loading: set[str] = set()

    def imports_of(self, module: cst.Module, path: str | None) -> ImportTable:
        """The import table of the checked file's `module`, its project imports followed."""
        table = ImportTable.from_module(module)
        if path is None:
            return table
        specs, calls, loaders = _cst_shapes(module)
        self._resolve(table, os.path.abspath(path), 0, specs, calls, loaders)
        return table

    def _resolve(
        self,
        table: ImportTable,
        origin: str,
        depth: int,
        specs: Sequence[ImportSpec],
        calls: Sequence[LoaderCall],
        loaders: dict[str, LoaderShape],
    ) -> None:
        if depth >= MAX_DEPTH:
            return
        for spec in specs:
            if spec.is_from:
                self._bind_from(spec, origin, depth, table)
            else:
                self._bind_import(spec, origin, depth, table)
        for call in calls:
            self._bind_loader(call, table, loaders)

    # -- imports ---------------------------------------------------------------------------

    def _bind_import(self, spec: ImportSpec, origin: str, depth: int, table: ImportTable) -> None:
        for name, asname in spec.names:
            if name.split(".", 1)[0] in EXTERNAL:
                continue
            target = name if asname else name.split(".", 1)[0]
            module = self._load(find_module(origin, 0, target), depth)
            if module is not None:
                table.aliases.pop(asname or target, None)
                table.modules[asname or target] = module

    def _bind_from(self, spec: ImportSpec, origin: str, depth: int, table: ImportTable) -> None:
        level, base = spec.level, spec.module
        if level == 0 and base.split(".", 1)[0] in EXTERNAL:
            return
        shown = "." * level + base
        package = self._load(_package(origin, level, base), depth)
        if spec.star:
            if package is not None:
                _merge_public(package, table)
            return
        for name, asname in spec.names:
            bound = asname or name
            table.aliases.pop(bound, None)  # `pkg.utils.T` is not an external name once resolved
            submodule = self._load(find_module(origin, level, f"{base}.{name}" if base else name), depth)
            if submodule is not None:
                table.modules[bound] = submodule
            elif package is not None and _export(package, name, bound, table):
                continue
            elif package is None:
                reason = self._failed.get(_package(origin, level, base) or "", "no such file in the project")
                table.unresolved[bound] = f"`{shown}`, which tilecheck could not follow ({reason})"
                if level == 0:
                    table.aliases[bound] = f"{base}.{name}"  # perhaps an installed package
            else:
                table.unresolved[bound] = f"`{shown}`, where tilecheck does not find what binds `{name}`"

    def _bind_loader(self, call: LoaderCall, table: ImportTable, loaders: dict[str, LoaderShape]) -> None:
        """`tilelang, T = load_tilelang()`: the names the loader returns, when they are modules."""
        if call.callee in loaders:
            returned = loaders[call.callee].modules(table)
        elif call.callee in table.functions:
            function = table.functions[call.callee]
            shape = function.module.loaders.get(function.name)
            returned = shape.modules(function.module.imports) if shape is not None else None
        else:
            return
        if returned is None:
            return
        for names, is_tuple in call.targets:
            if len(names) == 1 and len(returned) == 1 and not is_tuple:
                pairs = [(names[0], returned[0])]
            elif len(names) == len(returned) and is_tuple:
                pairs = list(zip(names, returned, strict=True))
            else:
                continue
            for bound, qualified in pairs:
                if qualified is not None:
                    table.aliases[bound] = qualified

    # -- files -----------------------------------------------------------------------------

    def _load(self, path: str | None, depth: int) -> ProjectModule | None:
        if path is None:
            return None
        path = os.path.abspath(path)
        found = self.modules.get(path)
        if found is not None or path in self._failed:
            return found
        if path in self._loading:
            return None  # an import cycle: the module is being resolved further up
        if len(self.modules) + len(self._failed) >= MAX_FILES:
            self._failed[path] = f"more than {MAX_FILES} project files"
            return None
        parsed = _read(path)
        if isinstance(parsed, str):
            self._failed[path] = parsed
            return None
        source, tree = parsed
        specs, calls, loaders, followed = _ast_shapes(tree)
        project = ProjectModule(path, source, ImportTable(_ast_aliases(specs)), followed, loaders)
        self._loading.add(path)
        try:
            self._resolve(project.imports, path, depth + 1, specs, calls, loaders)
        finally:
            self._loading.discard(path)
        self.modules[path] = project
        return project


def loader_returns(function: cst.FunctionDef, table: ImportTable) -> list[str | None] | None:
    """What a lazy loader returns (`return tilelang, T` after `import tilelang.language as T`):
    the qualified name of each returned module (None for anything else), or None when the
    function does not end in such a return."""
    shape = _cst_loader(function)
    return shape.modules(table) if shape is not None else None


# -- shapes from libcst (the checked file) ----------------------------------------------------


def _cst_shapes(module: cst.Module) -> tuple[list[ImportSpec], list[LoaderCall], dict[str, LoaderShape]]:
    specs: list[ImportSpec] = []
    calls: list[LoaderCall] = []
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
                func = small.value.func
                if isinstance(func, cst.Name):
                    targets = tuple(
                        (tuple(found), isinstance(t.target, (cst.Tuple, cst.List)))
                        for t in small.targets
                        if (found := _cst_target_names(t.target)) is not None
                    )
                    calls.append(LoaderCall(func.value, targets))
    loaders: dict[str, LoaderShape] = {}
    for definition in module.body:
        if isinstance(definition, cst.FunctionDef):
            shape = _cst_loader(definition)
            if shape is not None:
                loaders[definition.name.value] = shape
    return specs, calls, loaders


def _cst_loader(function: cst.FunctionDef) -> LoaderShape | None:
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


def _ast_shapes(
    tree: ast.Module,
) -> tuple[list[ImportSpec], list[LoaderCall], dict[str, LoaderShape], frozenset[str]]:
    specs: list[ImportSpec] = []
    calls: list[LoaderCall] = []
    for node in _ast_flat(tree.body):
        if isinstance(node, ast.Import):
            specs.append(ImportSpec(False, 0, "", tuple((a.name, a.asname) for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            star = any(a.name == "*" for a in node.names)
            names = () if star else tuple((a.name, a.asname) for a in node.names)
            specs.append(ImportSpec(True, node.level, node.module or "", names, star=star))
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
        ):
            targets = tuple(
                (tuple(found), isinstance(t, (ast.Tuple, ast.List)))
                for t in node.targets
                if (found := _ast_target_names(t)) is not None
            )
            calls.append(LoaderCall(node.value.func.id, targets))
    loaders: dict[str, LoaderShape] = {}
    followed: set[str] = set()
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        shape = _ast_loader(node)
        if shape is not None:
            loaders[node.name] = shape
        if shape is not None or _ast_is_macro(node) or _ast_returns_macro(node):
            followed.add(node.name)
    return specs, calls, loaders, frozenset(followed)


def _ast_aliases(specs: Sequence[ImportSpec]) -> dict[str, str]:
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


# -- names between modules --------------------------------------------------------------------


def _export(package: ProjectModule, name: str, bound: str, table: ImportTable) -> bool:
    """Bind `bound` to what `name` is in `package`; False when it is nothing tilecheck follows."""
    own = package.imports
    if name in own.aliases:
        table.aliases[bound] = own.aliases[name]
    elif name in own.modules:
        table.modules[bound] = own.modules[name]
    elif name in own.functions:
        table.functions[bound] = own.functions[name]
    elif name in package.followed:
        table.functions[bound] = ProjectFunction(package, name)
    else:
        return False
    return True


def _merge_public(package: ProjectModule, table: ImportTable) -> None:
    """`from .utils import *`: every public name the module binds that tilecheck follows."""
    own = package.imports
    for name in [*own.aliases, *own.modules, *own.functions, *package.followed]:
        if not name.startswith("_"):
            _export(package, name, name, table)


def _package(origin: str, level: int, base: str) -> str | None:
    """The file `from <level dots><base> import ...` reads first: the module or package."""
    if base:
        return find_module(origin, level, base)
    if level == 0:
        return None
    folder = os.path.dirname(origin)
    for _ in range(level - 1):
        folder = os.path.dirname(folder)
    init = os.path.join(folder, "__init__.py")
    return init if os.path.isfile(init) else None


def _read(path: str) -> tuple[str, ast.Module] | str:
    """The file's source and CPython tree, or why it could not be read."""
    try:
        if not os.path.isfile(path):
            return "not a regular file"
        if os.path.getsize(path) > MAX_BYTES:
            return f"larger than {MAX_BYTES // 1024} KiB"
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as error:
        return f"unreadable: {error.strerror or error}"
    try:
        source = _decode(data)
        tree = ast.parse(source)
    except (SyntaxError, UnicodeDecodeError, LookupError, RecursionError, MemoryError, ValueError):
        return "it does not parse"
    return source, tree


def _decode(data: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text
