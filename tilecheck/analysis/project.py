"""The project's own modules, read (never imported) to follow what a kernel file imports.

`from .tilelang_utils import T`, `from pkg import T` (re-exported by `pkg/__init__.py`),
`import pkg.tl as tlu; tlu.T`, `tilelang, T = load_tilelang()` and `from .common import
load_tile` (a `@T.macro`) all come from files of the checked project. `ProjectModules` finds
them as `tilecheck.dependencies.find_module` does (relative imports from the importing file's
folder, absolute ones from it and the folders above it), parses each once per check, and
resolves its module-level imports in turn, up to `MAX_DEPTH` imports away from the checked
file, `MAX_FILES` files and `MAX_BYTES` bytes per file. A file that cannot be found, read or
parsed leaves the import unresolved, with the reason (TL006 reports it). The cache lists
every file this can read as a dependency (`tilecheck.dependencies.imported_files`), so editing
a helper module re-checks the kernels that import it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
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


@dataclass(eq=False)
class ProjectModule:
    """A project file read while resolving imports: its tree, source and resolved imports."""

    path: str
    module: cst.Module
    source: str
    imports: ImportTable = field(default_factory=lambda: ImportTable({}))
    # Module-level functions by name, with the module-level statement holding each.
    functions: dict[str, tuple[cst.FunctionDef, cst.CSTNode]] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class ProjectFunction:
    """A function defined in a project module (a macro, a loader, a macro factory)."""

    module: ProjectModule
    node: cst.FunctionDef
    top: cst.CSTNode


class ProjectModules:
    """The project files one check reads, each parsed once; owned by that check (no global
    state). `read` lists the files read, `modules` the ones parsed, by path."""

    def __init__(self) -> None:
        self.modules: dict[str, ProjectModule] = {}
        self._failed: dict[str, str] = {}
        self._loading: set[str] = set()

    def imports_of(self, module: cst.Module, path: str | None, depth: int = 0) -> ImportTable:
        """The import table of `module` (the file at `path`), its project imports followed."""
        table = ImportTable.from_module(module)
        if path is None or depth >= MAX_DEPTH:
            return table
        origin = os.path.abspath(path)
        functions = _functions(module)
        for small in _module_imports(module):
            self._bind(small, origin, depth, table)
        for small in _module_assignments(module):
            self._bind_loader(small, table, functions)
        return table

    # -- imports ---------------------------------------------------------------------------

    def _bind(self, small: cst.Import | cst.ImportFrom, origin: str, depth: int, table: ImportTable) -> None:
        if isinstance(small, cst.Import):
            for alias in small.names:
                name = dotted_name(alias.name) or ""
                if name.split(".", 1)[0] in EXTERNAL:
                    continue
                bound = (
                    alias.asname.name.value
                    if alias.asname and isinstance(alias.asname.name, cst.Name)
                    else None
                )
                target = name if bound else name.split(".", 1)[0]
                module = self._load(find_module(origin, 0, target), depth)
                if module is not None:
                    table.aliases.pop(bound or target, None)
                    table.modules[bound or target] = module
            return
        level = len(small.relative)
        base = dotted_name(small.module) if small.module is not None else ""
        if base is None or (level == 0 and base.split(".", 1)[0] in EXTERNAL):
            return
        shown = "." * level + base
        package = self._load(_package(origin, level, base), depth)
        if isinstance(small.names, cst.ImportStar):
            if package is not None:
                _merge_public(package, table)
            return
        for alias in small.names:
            name = dotted_name(alias.name) or ""
            bound = (
                alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
            )
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

    def _bind_loader(self, assign: cst.Assign, table: ImportTable, functions: dict) -> None:
        """`tilelang, T = load_tilelang()`: the names the loader returns, when they are modules."""
        call = assign.value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return
        name = call.func.value
        if name in functions:
            returned = loader_returns(functions[name][0], table)
        elif name in table.functions:
            function = table.functions[name]
            returned = loader_returns(function.node, function.module.imports)
        else:
            return
        if returned is None:
            return
        for target in assign.targets:
            names = _target_names(target.target)
            if names is None:
                continue
            if len(names) == 1 and len(returned) == 1:
                pairs = [(names[0], returned[0])]
            elif len(names) == len(returned) and isinstance(target.target, (cst.Tuple, cst.List)):
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
        parsed = _parse(path)
        if isinstance(parsed, str):
            self._failed[path] = parsed
            return None
        module, source = parsed
        self._loading.add(path)
        try:
            project = ProjectModule(path, module, source, functions=_functions(module))
            project.imports = self.imports_of(module, path, depth + 1)
        finally:
            self._loading.discard(path)
        self.modules[path] = project
        return project


def loader_returns(function: cst.FunctionDef, table: ImportTable) -> list[str | None] | None:
    """What a lazy loader returns (`return tilelang, T` after `import tilelang.language as T`):
    the qualified name of each returned module (None for anything else), or None when the
    function does not end in such a return."""
    local: dict[str, str] = {}
    returned: cst.BaseExpression | None = None
    for statement in _flat_statements(suite_body(function.body)):
        for small in statement.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)):
                local.update(bindings(small))
            elif isinstance(small, cst.Return) and small.value is not None:
                returned = small.value
    if returned is None:
        return None
    names = _target_names(returned)
    if names is None:
        return None
    values = [local.get(name) or table.aliases.get(name) for name in names]
    return values if any(values) else None


def _flat_statements(body: list[cst.BaseStatement] | tuple) -> Iterator[cst.SimpleStatementLine]:
    """Simple statements of a body and of its `try:`/`else:`/`if` blocks (not nested functions)."""
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield statement
        elif isinstance(statement, (cst.Try, cst.If)):
            yield from _flat_statements(suite_body(statement.body))
            orelse = statement.orelse
            if isinstance(orelse, cst.Else):
                yield from _flat_statements(suite_body(orelse.body))


def _target_names(node: cst.BaseExpression) -> list[str] | None:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        names = [e.value.value for e in node.elements if isinstance(e.value, cst.Name)]
        return names if len(names) == len(node.elements) else None
    return None


def _export(package: ProjectModule, name: str, bound: str, table: ImportTable) -> bool:
    """Bind `bound` to what `name` is in `package`; False when it is nothing tilecheck follows."""
    own = package.imports
    if name in own.aliases:
        table.aliases[bound] = own.aliases[name]
    elif name in own.modules:
        table.modules[bound] = own.modules[name]
    elif name in own.functions:
        table.functions[bound] = own.functions[name]
    elif name in package.functions:
        node, top = package.functions[name]
        table.functions[bound] = ProjectFunction(package, node, top)
    else:
        return False
    return True


def _merge_public(package: ProjectModule, table: ImportTable) -> None:
    """`from .utils import *`: every public name the module binds that tilecheck follows."""
    for name in [
        *package.imports.aliases,
        *package.imports.modules,
        *package.imports.functions,
        *package.functions,
    ]:
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


def _module_imports(module: cst.Module) -> Iterator[cst.Import | cst.ImportFrom]:
    for statement in _flat_statements(module.body):
        for small in statement.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)):
                yield small


def _module_assignments(module: cst.Module) -> Iterator[cst.Assign]:
    for statement in _flat_statements(module.body):
        for small in statement.body:
            if isinstance(small, cst.Assign):
                yield small


def _functions(module: cst.Module) -> dict[str, tuple[cst.FunctionDef, cst.CSTNode]]:
    found: dict[str, tuple[cst.FunctionDef, cst.CSTNode]] = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            found[statement.name.value] = (statement, statement)
    return found


def _parse(path: str) -> tuple[cst.Module, str] | str:
    """The parsed file, or why it could not be read."""
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
        module = cst.parse_module(data)
        source = module.code
    except (cst.ParserSyntaxError, UnicodeDecodeError, RecursionError, MemoryError, ValueError):
        return "it does not parse"
    return module, source
