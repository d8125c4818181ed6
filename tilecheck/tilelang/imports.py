"""Module-level import resolution: which local names really are TileLang's (or PyPTO's).

Only module-level imports are read (with those of a module-level `try:` block): a kernel file
binds `T` once at the top. A name is
resolved to a dotted qualified name (`T.Parallel` -> `tilelang.language.Parallel`), so
`from tilelang.language import dtypes as T` makes `T.Parallel` mean
`tilelang.language.dtypes.Parallel`, which is not a loop.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.source.cst_parse import parse_module
from tilecheck.tilelang.language import TILELANG_PACKAGES

if TYPE_CHECKING:
    from tilecheck.tilelang.project_shapes import LoaderShape

TILELANG = "tilelang.language"
# TileLang's language facade and the dialects it re-exports: the same loop constructs.
PYPTO = "pypto.language"


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` as a string, or None when the expression is not a plain dotted name."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_name(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


def _module_name(node: cst.BaseExpression) -> str:
    name = dotted_name(node)
    return name or ""


class Gap(enum.Enum):
    """Why a name an import binds does not resolve."""

    UNREADABLE = "unreadable"  # the project module is not there, does not parse, or is too large
    TOO_FAR = "too far"  # more imports away than tilecheck follows
    NOT_BOUND = "not bound"  # the module is read, but nothing tilecheck follows binds the name
    ASSIGNMENT = "assignment"  # `T = lu.T` at module level, where `lu.T` does not resolve


@dataclass(frozen=True)
class Unresolved:
    """A name an import of the project binds that tilecheck could not follow, and why;
    `str()` is how messages name where it comes from."""

    gap: Gap
    text: str
    relative: bool = False  # bound by a relative import (`from .common import load_tile`)

    def __str__(self) -> str:
        return self.text

    @property
    def unfollowed_module(self) -> bool:
        """A project module tilecheck could not read (not a name a readable one lacks)."""
        return self.relative and self.gap in (Gap.UNREADABLE, Gap.TOO_FAR)


class ImportTable:
    """Maps names bound by module-level imports to the qualified names they stand for.

    With the project's own modules read (`tilecheck.tilelang.project`), a name may also stand
    for a project module (`import pkg.tl as tlu`, then `tlu.T.Parallel`) or for a function
    defined in one (`from .common import load_tile`); `unresolved` names the imports of
    project modules that could not be followed, with the reason.
    """

    __slots__ = ("_aliases", "dotted_modules", "functions", "modules", "unresolved")

    def __init__(
        self,
        aliases: dict[str, str],
        modules: dict[str, ProjectModule] | None = None,
        functions: dict[str, ProjectFunction] | None = None,
        unresolved: dict[str, Unresolved] | None = None,
    ) -> None:
        self._aliases = aliases
        self.modules = modules or {}
        self.functions = functions or {}
        self.unresolved = unresolved or {}
        self.dotted_modules: dict[str, ProjectModule] = {}  # `import a.b`: `a.b` by its dotted name

    @property
    def aliases(self) -> dict[str, str]:
        return self._aliases

    @classmethod
    def from_module(cls, module: cst.Module) -> ImportTable:
        table = cls({})
        for statement in module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    table._aliases.update(bindings(small))
                    source = _assigned_name(small)
                    if source is not None and isinstance(small, cst.Assign):
                        for target in small.targets:
                            if isinstance(target.target, cst.Name):
                                table.bind_assignment(target.target.value, source)
            elif isinstance(statement, cst.Try):
                table._aliases.update(try_imports(statement))
        return table

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """The qualified name an expression like `T.Parallel` refers to, if imported."""
        name = dotted_name(node)
        if name is None:
            return None
        found = self.lookup(name)
        return found if isinstance(found, str) else None

    def lookup(self, name: str) -> str | ProjectModule | ProjectFunction | None:
        """What a dotted name stands for: a qualified external name (`tilelang.language.Parallel`
        for `T.Parallel`, `lu.T.Parallel` through a project module), a project module, or a
        function followed in one; None when the imports do not say."""

        parts = name.split(".")
        table: ImportTable = self
        module: ProjectModule | None = None
        start = 0
        for dotted, found in self.dotted_modules.items():  # `import utils.tl`: `utils.tl.T`
            if name.startswith(dotted + ".") and dotted.count(".") + 1 > start:
                table, module, start = found.imports, found, dotted.count(".") + 1
        for index in range(start, len(parts)):
            part = parts[index]
            target = table._aliases.get(part)
            if target is not None:
                return ".".join([target, *parts[index + 1 :]])
            inner = table.modules.get(part)
            if inner is None:
                if index < len(parts) - 1:
                    return None
                function = table.functions.get(part)
                if function is None and module is not None and part in module.followed:
                    function = ProjectFunction(module, part)  # `common.load`: a macro of it
                return function
            module, table = inner, inner.imports  # `tlu.T`: `T` as `tlu`'s module binds it
        return module

    def bind_assignment(self, target: str, source: str) -> None:
        """`T = tilelang.language`, `T = lu.T`, `P = T.Parallel` at module level: `target` stands
        for what `source` does; when that is unknown and `source` starts from an import, `target` is no longer one and `unresolved` says why."""
        found = self.lookup(source)
        why = self.unresolved_reason(source) if found is None else None
        if found is None and why is None:
            return  # `T = None`, `N = M`: nothing an import binds (a fallback, a constant)
        self._aliases.pop(target, None)
        self.modules.pop(target, None)
        self.functions.pop(target, None)
        self.unresolved.pop(target, None)
        if isinstance(found, str):
            self._aliases[target] = found
        elif isinstance(found, ProjectModule):
            self.modules[target] = found
        elif found is not None:
            self.functions[target] = found
        else:
            self.unresolved[target] = Unresolved(
                Gap.ASSIGNMENT, f"the assignment `{target} = {source}`, where {why}"
            )

    def unresolved_reason(self, source: str) -> str | None:
        """Why a dotted name that starts from an import does not resolve; None when it does not
        start from one."""
        parts = source.split(".")
        table: ImportTable = self
        previous: ProjectModule | None = None
        for index, part in enumerate(parts):
            if part in table.unresolved:
                return f"`{part}` comes from {table.unresolved[part]}"
            module = table.modules.get(part)
            if module is None:
                if previous is None:
                    return None
                shown = ".".join(parts[:index])
                where = os.path.basename(previous.path)
                return f"`{shown}` ({where}) binds no `{part}` that tilecheck resolves"
            table, previous = module.imports, module
        return None

    def api(self, node: cst.BaseExpression, package: str = TILELANG) -> str | None:
        """The member name under `package` (`Parallel` for `T.Parallel`), else None."""
        return member_of(self.qualify(node), package)

    def imports(self, package: str) -> bool:
        """Whether any module-level import reaches into `package`."""
        root = package.split(".", 1)[0]
        return any(q == root or q.startswith(root + ".") for q in self._aliases.values())


def _assigned_name(small: cst.BaseSmallStatement) -> str | None:
    """The dotted name `small` assigns (`tilelang.language` in `T = tilelang.language`)."""
    return dotted_name(small.value) if isinstance(small, cst.Assign) else None


def member_of(qualified: str | None, package: str = TILELANG) -> str | None:
    """`Parallel` for `tilelang.language.Parallel` (or a TileLang dialect's), else None."""
    if qualified is None:
        return None
    packages = TILELANG_PACKAGES if package == TILELANG else (package,)
    for prefix in packages:
        if qualified.startswith(prefix + "."):
            member = qualified[len(prefix) + 1 :]
            return member if "." not in member else None
    return None


def try_imports(statement: cst.Try) -> dict[str, str]:
    """The imports of a `try:` block (and its `else:`), the ones a module runs with when they
    succeed; the handlers' fallbacks (`except ImportError: T = None`) are not imports of it."""
    aliases: dict[str, str] = {}
    suites = [statement.body] + ([statement.orelse.body] if statement.orelse is not None else [])
    for suite in suites:
        if isinstance(suite, cst.IndentedBlock):
            for line in suite.body:
                if isinstance(line, cst.SimpleStatementLine):
                    for small in line.body:
                        aliases.update(bindings(small))
    return aliases


def bindings(small: cst.BaseSmallStatement) -> dict[str, str]:
    """The names an import statement binds, with the qualified names they stand for."""
    aliases: dict[str, str] = {}
    if isinstance(small, cst.Import):
        for alias in small.names:
            full = _module_name(alias.name)
            if alias.asname is not None:
                bound = alias.asname.name
                if isinstance(bound, cst.Name):
                    aliases[bound.value] = full
            else:
                head = full.split(".", 1)[0]
                aliases[head] = head
    elif isinstance(small, cst.ImportFrom) and small.relative == ():
        if small.module is None or isinstance(small.names, cst.ImportStar):
            return aliases
        base = _module_name(small.module)
        for alias in small.names:
            name = _module_name(alias.name)
            bound_name = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                bound_name = alias.asname.name.value
            aliases[bound_name] = f"{base}.{name}"
    return aliases


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
                self._tree = parse_module(self.source)
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
