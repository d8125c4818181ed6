"""The project's own modules, read (never imported) to follow what a kernel file imports.

`from .tilelang_utils import T`, `from pkg import T` (re-exported by `pkg/__init__.py`),
`import pkg.tl as tlu; tlu.T`, `tilelang, T = load_tilelang()` and `from .common import
load_tile` (a `@T.macro`) all come from files of the checked project. `ProjectModules` finds
them as `tilecheck.source.project_files.find_module` does (relative imports from the importing file's
folder, absolute ones from it and the folders above it), reads each once per check, and
resolves its module-level imports in turn, up to `MAX_DEPTH` imports away from the checked
file, `MAX_FILES` files and `MAX_BYTES` bytes per file. Project modules are read with CPython's
parser (an order of magnitude faster than libcst); libcst parses one only when a macro, loader
or macro factory of it is used. A file that cannot be found, read or parsed leaves the import
unresolved, with the reason (TL006 reports it). The cache lists
every file this can read as a dependency (`tilecheck.source.project_files.imported_files`), so editing
a helper module re-checks the kernels that import it.
"""

from __future__ import annotations

import ast
import os
import re
from collections import Counter
from collections.abc import Sequence

import libcst as cst

from tilecheck.source import python_ast
from tilecheck.source.project_files import MAX_FILES as DEPENDENCY_FILES
from tilecheck.source.project_files import find_module
from tilecheck.source.reading import ReadFailure, decode, read_bytes
from tilecheck.tilelang.imports import Gap, ImportTable, ProjectFunction, ProjectModule, Unresolved
from tilecheck.tilelang.project_shapes import (
    ImportSpec,
    LoaderCall,
    LoaderShape,
    NameAssign,
    ast_aliases,
    ast_shapes,
    cst_loader,
    cst_shapes,
)

MAX_DEPTH = 4  # imports followed away from the checked file (a re-export chain)
MAX_FILES = min(32, DEPENDENCY_FILES)  # project files read per checked file
MAX_BYTES = 1 << 20  # larger helper modules are not read
# Packages never looked for in the project: a checkout of TileLang is the library, not a helper.
EXTERNAL = frozenset({"tilelang", "tvm", "pypto", "torch", "numpy", "triton"})


class ProjectModules:
    """The project files one check reads, each read once; owned by that check (no global
    state). `modules` holds the ones read, by path."""

    def __init__(self) -> None:
        self.modules: dict[str, ProjectModule] = {}
        self._failed: dict[str, str] = {}
        self._loading: set[str] = set()

    def imports_of(self, module: cst.Module, path: str | None, source: str | None = None) -> ImportTable:
        """The import table of the checked file's `module`, its project imports followed; with
        the file's `source`, only the imported names the file uses (so that 40 unused helper
        imports do not spend the file budget before the one the kernel needs)."""
        table = ImportTable.from_module(module)
        if path is None:
            return table
        specs, calls, loaders, assigns = cst_shapes(module)
        if source is not None:
            specs = _used_imports(specs, source)
        self._resolve(table, os.path.abspath(path), 0, specs, calls, loaders, assigns)
        return table

    def _resolve(
        self,
        table: ImportTable,
        origin: str,
        depth: int,
        specs: Sequence[ImportSpec],
        calls: Sequence[LoaderCall],
        loaders: dict[str, LoaderShape],
        assigns: Sequence[NameAssign],
    ) -> None:
        for spec in specs:
            if depth >= MAX_DEPTH:
                _too_far(spec, table)
            elif spec.is_from:
                self._bind_from(spec, origin, depth, table)
            else:
                self._bind_import(spec, origin, depth, table)
        for call in calls:
            self._bind_loader(call, table, loaders)
        for assign in assigns:  # `T = tilelang.language`, `T = lu.T`: after the imports
            table.bind_assignment(assign.target, assign.source)

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
            if asname is None and "." in name:  # `import utils.tl` binds `utils`, which may be a folder
                found = self._load(find_module(origin, 0, name), depth)
                if found is not None:
                    table.dotted_modules[name] = found

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
            located = find_module(origin, level, f"{base}.{name}" if base else name)
            submodule = self._load(located, depth)
            if submodule is not None:
                table.modules[bound] = submodule
            elif package is not None and _export(package, name, bound, table):
                continue
            elif located is not None or (package is not None and not base):
                # `from . import bad` (bad.py does not parse), `from . import nothere`
                shown_module = f"{shown}{name}" if shown.endswith(".") else f"{shown}.{name}"
                reason = self._why(located)
                table.unresolved[bound] = Unresolved(
                    Gap.UNREADABLE,
                    f"`{shown_module}`, which tilecheck could not follow ({reason})",
                    level > 0,
                )
            elif package is None:
                reason = self._why(_package(origin, level, base))
                table.unresolved[bound] = Unresolved(
                    Gap.UNREADABLE, f"`{shown}`, which tilecheck could not follow ({reason})", level > 0
                )
                if level == 0:
                    table.aliases[bound] = f"{base}.{name}"  # perhaps an installed package
            else:
                table.unresolved[bound] = Unresolved(
                    Gap.NOT_BOUND, f"`{shown}`, where tilecheck does not find what binds `{name}`", level > 0
                )

    def _bind_loader(self, call: LoaderCall, table: ImportTable, loaders: dict[str, LoaderShape]) -> None:
        """`tilelang, T = load_tilelang()`: the names the loader returns, when they are modules."""
        function = table.lookup(call.callee)
        if call.callee in loaders:
            returned = loaders[call.callee].modules(table)
        elif isinstance(function, ProjectFunction):  # `load_tilelang()`, `lazy.load_tilelang()`
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

    def _why(self, path: str | None) -> str:
        """Why the module at `path` was not read."""
        if path is None:
            return "no such file in the project"
        if os.path.abspath(path) in self._loading:
            return "an import cycle: it imports, directly or not, the module that imports it"
        return self._failed.get(os.path.abspath(path), "no such file in the project")

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
        specs, calls, loaders, followed, assigns = ast_shapes(tree)
        project = ProjectModule(path, source, ImportTable(ast_aliases(specs)), followed, loaders)
        self._loading.add(path)
        try:
            self._resolve(project.imports, path, depth + 1, specs, calls, loaders, assigns)
        finally:
            self._loading.discard(path)
        self.modules[path] = project
        return project


def loader_returns(function: cst.FunctionDef, table: ImportTable) -> list[str | None] | None:
    """What a lazy loader returns (`return tilelang, T` after `import tilelang.language as T`):
    the qualified name of each returned module (None for anything else), or None when the
    function does not end in such a return."""
    shape = cst_loader(function)
    return shape.modules(table) if shape is not None else None


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
    elif name in own.unresolved:  # the reason where the chain stopped
        table.unresolved[bound] = own.unresolved[name]
    else:
        return False
    return True


_IDENTIFIER = re.compile(r"(?<![\w.])[A-Za-z_]\w*")
_WORD_OR_DOT = re.compile(r"[\w.]")


def _used_imports(specs: Sequence[ImportSpec], source: str) -> list[ImportSpec]:
    """The imports whose bound names the source mentions besides the import itself (a name in
    a comment or a string counts: following one import too many is harmless)."""
    mentions = _mentions(
        {_bound(spec, name, asname) for spec in specs for name, asname in spec.names}, source
    )
    in_imports: Counter[str] = Counter()
    for spec in specs:
        if spec.is_from and spec.level == 0:
            in_imports[spec.module.split(".", 1)[0]] += 1
        for name, asname in spec.names:
            in_imports[name.split(".", 1)[0]] += 1
            if asname:
                in_imports[asname] += 1
    kept: list[ImportSpec] = []
    for spec in specs:
        names = tuple(
            (name, asname)
            for name, asname in spec.names
            if mentions[_bound(spec, name, asname)] > in_imports[_bound(spec, name, asname)]
        )
        if spec.star or names:
            kept.append(ImportSpec(spec.is_from, spec.level, spec.module, names, spec.star))
    return kept


def _bound(spec: ImportSpec, name: str, asname: str | None) -> str:
    """The name an imported `name` binds."""
    return asname or (name if spec.is_from else name.split(".", 1)[0])


def _mentions(names: set[str], source: str) -> Counter[str]:
    """How often each of `names` stands in `source` as an identifier of its own (as
    `_IDENTIFIER` finds them: searching for these names, a literal each, is several times
    faster than listing every identifier of a large file)."""
    found: Counter[str] = Counter()
    for name in names:
        if _IDENTIFIER.fullmatch(name):
            for match in re.finditer(re.escape(name) + r"(?!\w)", source):
                at = match.start()
                if not at or not _WORD_OR_DOT.match(source, at - 1):
                    found[name] += 1
    return found


def _too_far(spec: ImportSpec, table: ImportTable) -> None:
    """The names an import binds beyond `MAX_DEPTH`: unresolved, saying so."""
    for name, asname in spec.names:
        module = "." * spec.level + spec.module if spec.is_from else name
        if spec.level == 0 and module.split(".", 1)[0] in EXTERNAL:
            continue  # `import tilelang.language as T` needs no project file
        bound = asname or (name if spec.is_from else name.split(".", 1)[0])
        table.unresolved[bound] = Unresolved(
            Gap.TOO_FAR, f"`{module}`, more imports away than tilecheck follows ({MAX_DEPTH})", spec.level > 0
        )


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
    if not os.path.isfile(path):
        return "not a regular file"
    data = read_bytes(path, MAX_BYTES)
    if isinstance(data, ReadFailure):
        return f"larger than {MAX_BYTES // 1024} KiB" if data.too_large else f"unreadable: {data.reason}"
    try:
        source = decode(data)
        tree = python_ast.parse(source)
    except (SyntaxError, UnicodeDecodeError, LookupError, RecursionError, MemoryError, ValueError):
        return "it does not parse"
    return source, tree
