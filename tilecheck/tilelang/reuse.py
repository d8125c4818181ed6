"""Reusing a kernel built for an earlier version of the same document (the editor's re-checks).

An edit inside one kernel changes one top-level statement; the document's chunk cache
(`source.chunks`) hands back the very same CST nodes for every other statement, so a kernel
whose definition is the same node, anchored at the same statement, and whose every name means
the same as last time, builds the same kernel. `KernelMemo` keeps what each build added to the
model (kernels, malformed loops, unfollowed calls, project modules, work done) under such a key,
and the next build of the document takes it instead of interpreting the body again.

The key is conservative: each name the definition mentions (attributes included) by what it is
bound to, values by content (constants, unknowns, modules) or by identity (functions, by their
node, with the names a macro's body mentions in turn; buffers and TIR values by the object),
plus the file's import table. Objects keyed by identity are kept alive by the entry, so an
identity is never recycled for another object. A build that records call sites on a function
(its result feeds the instantiation of factories) is not kept. Owned by its caller, one per
document; not thread-safe.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field

import libcst as cst

from tilecheck.tilelang.imports import ImportTable, ProjectModule
from tilecheck.tilelang.model import FileModel, Kernel, Malformed, Site
from tilecheck.tilelang.scope import DefinedFunction, Env
from tilecheck.tilelang.syntax import descendants
from tilecheck.tilelang.values import InstanceValue, ModuleRef, PyCallable, PyConst, PyValue, Value

MAX_ENTRIES = 256


@dataclass
class BuiltKernel:
    """What one kernel's build added to the model."""

    kernels: list[Kernel]
    malformed: list[Malformed]
    unfollowed: list[tuple[Site, str]]
    modules: dict[str, ProjectModule]
    work: int
    keep_alive: list[object] = field(default_factory=list)


class KernelMemo:
    """Built kernels of one document's earlier checks, by key; counts what it built and reused."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self.built = 0
        self.reused = 0
        self._entries: OrderedDict[Hashable, BuiltKernel] = OrderedDict()
        self._names: dict[int, tuple[cst.CSTNode, frozenset[str]]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> BuiltKernel | None:
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def put(self, key: Hashable, built: BuiltKernel) -> None:
        self._entries[key] = built
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        if len(self._names) > 8 * self.max_entries:
            self._names.clear()

    def names(self, node: cst.CSTNode) -> frozenset[str]:
        """Every name `node` mentions (attribute names too: a superset is only stricter)."""
        known = self._names.get(id(node))
        if known is not None and known[0] is node:
            return known[1]
        names = frozenset(_names(node))
        self._names[id(node)] = (node, names)
        return names


def _names(root: cst.CSTNode) -> set[str]:
    """The `Name` values under `root`."""
    return {node.value for node in descendants(root) if isinstance(node, cst.Name)}


class KeyBuilder:
    """The key of one kernel build; `callables` are the functions it may reach, `keep_alive`
    the objects keyed by identity."""

    def __init__(self, memo: KernelMemo) -> None:
        self.memo = memo
        self.keep_alive: list[object] = []
        self.callables: list[DefinedFunction] = []
        self._functions: dict[int, int] = {}  # id -> index of functions keyed so far (cycles)

    def key(self, node: cst.FunctionDef, top: cst.CSTNode, env: Env, imports: ImportTable) -> Hashable:
        self.keep_alive += [node, top]
        return (id(node), id(top), self._imports(imports), self._scope(node, env))

    def _identity(self, value: object) -> tuple[str, int]:
        self.keep_alive.append(value)
        return ("id", id(value))

    def _imports(self, imports: ImportTable) -> Hashable:
        modules = tuple(sorted((name, self._identity(module)) for name, module in imports.modules.items()))
        functions = tuple(
            sorted(
                (name, self._identity(function.module), function.name)
                for name, function in imports.functions.items()
            )
        )
        dotted = tuple(
            sorted((name, self._identity(module)) for name, module in imports.dotted_modules.items())
        )
        return (tuple(sorted(imports.aliases.items())), modules, functions, dotted)

    def _scope(self, node: cst.CSTNode, env: Env) -> Hashable:
        return tuple(sorted((name, self.value(env.lookup(name))) for name in self.memo.names(node)))

    def value(self, value: object) -> Hashable:
        if value is None:
            return ("absent",)
        if isinstance(value, PyConst):
            return ("const", self.value(value.value))
        if isinstance(value, PyValue):
            return ("python", value.is_int, self.value(value.default))
        if isinstance(value, ModuleRef):
            return ("module", value.qualified)
        if isinstance(value, InstanceValue):
            return ("instance", tuple(sorted((k, self.value(v)) for k, v in value.attributes.items())))
        if isinstance(value, PyCallable):
            return ("callable", self._function(value.function))
        if isinstance(value, Value):
            return (type(value).__name__, self._identity(value))
        if value is True or value is False or isinstance(value, (int, float, complex, str, bytes)):
            return (type(value).__name__, value)
        if isinstance(value, (tuple, list)):
            return (type(value).__name__, tuple(self.value(item) for item in value))
        if isinstance(value, dict):
            return ("dict", tuple((self.value(k), self.value(v)) for k, v in value.items()))
        return (type(value).__name__, self._identity(value))

    def _function(self, function: DefinedFunction) -> Hashable:
        seen = self._functions.get(id(function))
        if seen is not None:
            return ("seen", seen)  # a function reaching itself (a module env binds its own names)
        self._functions[id(function)] = len(self._functions)
        self.callables.append(function)
        self.keep_alive += [function, function.node, function.top]
        receiver = self.value(function.receiver) if function.receiver is not None else None
        head = (id(function.node), id(function.top), function.is_macro, function.path, receiver)
        if not function.is_macro:
            return head  # a call of it is unknown whatever its body: only its identity matters
        return (*head, self._imports(function.imports), self._scope(function.node, function.env))


@dataclass
class Snapshot:
    """The model's and the functions' sizes before a build, to take what the build added."""

    kernels: int
    malformed: int
    unfollowed: int
    modules: frozenset[str]
    work: int
    call_sites: list[tuple[DefinedFunction, int]]

    @classmethod
    def of(cls, model: FileModel, work: int, functions: list[DefinedFunction]) -> Snapshot:
        return cls(
            len(model.kernels),
            len(model.malformed),
            len(model.unfollowed),
            frozenset(model.modules),
            work,
            [(function, len(function.call_sites)) for function in functions],
        )

    def added(self, model: FileModel, work: int, keep_alive: list[object]) -> BuiltKernel | None:
        """What the build added, None when it recorded a call site (not reusable)."""
        if any(len(function.call_sites) != count for function, count in self.call_sites):
            return None
        return BuiltKernel(
            [dataclasses.replace(kernel) for kernel in model.kernels[self.kernels :]],
            list(model.malformed[self.malformed :]),
            list(model.unfollowed[self.unfollowed :]),
            {path: module for path, module in model.modules.items() if path not in self.modules},
            work - self.work,
            keep_alive,
        )


def replay(built: BuiltKernel, model: FileModel) -> None:
    """Add a kept build to `model`, as building it again would (fresh kernel records, so the
    conditions a factory's `if` adds stay this build's)."""
    model.kernels.extend(dataclasses.replace(kernel) for kernel in built.kernels)
    model.malformed.extend(built.malformed)
    model.unfollowed.extend(built.unfollowed)
    for path, module in built.modules.items():
        model.modules.setdefault(path, module)
