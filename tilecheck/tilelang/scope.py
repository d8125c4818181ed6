"""Name environments and interpretation frames of the kernel interpreter."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tilecheck.tilelang.imports import ImportTable
from tilecheck.tilelang.model import Access, FileModel, Guard, Item, Kernel, MacroCall, OpCall, Site
from tilecheck.tilelang.values import UNKNOWN, Buffer, BufferValue, PyConst, PyValue, Value


class Env:
    """A chained name -> value mapping (kernel locals -> factory closure -> module)."""

    __slots__ = ("names", "parent")

    def __init__(self, parent: Env | None = None) -> None:
        self.names: dict[str, Value] = {}
        self.parent = parent

    def lookup(self, name: str) -> Value | None:
        env: Env | None = self
        while env is not None:
            value = env.names.get(name)
            if value is not None:
                return value
            env = env.parent
        return None

    def bind(self, name: str, value: Value) -> None:
        self.names[name] = value


class ModelTooLarge(Exception):
    """The kernel expands into more statements than tilecheck analyzes (unrolling, macros)."""


# Statements interpreted per file at most (Python-level unrolling and macros multiply them).
MAX_WORK = 200_000


_CONSTEXPR_OPEN, _CONSTEXPR_CLOSE = "<const:", ">"


def constexpr_name(name: str) -> str:
    """Where an eager kernel's build holds the value a call gives a `T.const` name
    (`gemm.compile(M=1024, ...)`): a name no Python code can bind."""
    return f"{_CONSTEXPR_OPEN}{name}{_CONSTEXPR_CLOSE}"


def constexpr_of(stored: str) -> str | None:
    """The `T.const` name that `stored` holds a build's value for (`constexpr_name` read back);
    None for a name Python code binds."""
    if stored.startswith(_CONSTEXPR_OPEN) and stored.endswith(_CONSTEXPR_CLOSE):
        return stored[len(_CONSTEXPR_OPEN) : -len(_CONSTEXPR_CLOSE)]
    return None


@dataclass
class BuildState:
    """What the Python-level reader and the kernel interpreter share while one file's model
    is built: the model, the kernel being built, and the work done so far."""

    model: FileModel = field(default_factory=FileModel)
    kernel: Kernel | None = None  # the kernel being built, None at the Python level
    # The factory call whose body is being read: its name and each parameter's value.
    factory_call: tuple[str, tuple[tuple[str, Value | None], ...]] | None = None
    calls_not_built: int = 0  # the factory's distinct calls when too many to build one by one
    work: int = 0  # statements interpreted so far (bounded by MAX_WORK)

    def count_statement(self) -> None:
        self.work += 1
        if self.work > MAX_WORK:
            raise ModelTooLarge(f"more than {MAX_WORK} statements after unrolling and inlining")


@dataclass
class Flow:
    """Python control flow of one function body: `return`, and `break`/`continue` of the
    innermost Python-level (unrolled) loop."""

    exit: str | None = None  # "return", "break" or "continue" once executed
    loops: int = 0  # enclosing Python-level loops in this function


@dataclass
class Frame:
    """Where the interpreter is: names, source anchor, macro chain, certainty and control flow.

    `flow` is None inside a TIR construct (a TIR loop, a runtime `if`, a block), where Python's
    `return`/`break` are not modelled.
    """

    env: Env
    top: cst.CSTNode
    origin: tuple[MacroCall, ...] = ()
    certain: bool = True
    depth: int = 0
    flow: Flow | None = field(default_factory=Flow)
    guards: tuple[Guard, ...] = ()  # the undecided Python-level branches being interpreted

    def site(self, node: cst.CSTNode) -> Site:
        return Site(node, self.top, self.origin)

    def add(self, out: list[Item], item: Item) -> None:
        """Append an item built here; in an uncertain frame it is only possibly present."""
        if self.guards:
            item.guards = self.guards
            item.conditional = self.certain and (item.certain or item.conditional)
            item.certain = False
        elif not self.certain:
            item.certain = False
        out.append(item)

    def uncertain(self) -> Frame:
        """A branch that exists only for some Python values: its exits are only possible."""
        flow = Flow(loops=self.flow.loops) if self.flow is not None else None
        return Frame(self.env, self.top, self.origin, False, self.depth, flow, self.guards)

    def branch(self, guard: Guard) -> Frame:
        """One branch of an undecidable Python-level `if`: what it builds exists when `guard`
        holds (its exits are only possible)."""
        flow = Flow(loops=self.flow.loops) if self.flow is not None else None
        return Frame(self.env, self.top, self.origin, self.certain, self.depth, flow, (*self.guards, guard))

    def tir(self) -> Frame:
        """The body of a TIR construct (same names; Python control flow not modelled)."""
        return Frame(self.env, self.top, self.origin, self.certain, self.depth, None, self.guards)

    def absorb(self, branch: Frame) -> None:
        """After an undecidable branch that may have returned or broken out, the rest of this
        body is only possibly executed."""
        if branch.flow is not None and branch.flow.exit is not None:
            self.certain = False


@dataclass
class Sink:
    """What evaluating one statement's expressions produced besides a value."""

    out: list[Item]  # where inlined macro statements go (before the statement itself)
    accesses: list[Access] = field(default_factory=list)
    calls: list[OpCall] = field(default_factory=list)
    emits: bool = False  # a call that emits IR (tile op, T.print, T.assume, ...)
    unknown: bool = False  # a call whose effect tilecheck cannot see
    call_depth: int = 0  # > 0 while evaluating another call's arguments


class DefinedFunction:
    """A function defined in the file or in a project module it imports from: a macro
    (inlined by TileLang), a macro factory, a lazy loader, or a plain helper."""

    def __init__(
        self,
        node: cst.FunctionDef,
        top: cst.CSTNode,
        env: Env,
        is_macro: bool,
        path: str | None = None,
        imports: ImportTable | None = None,
    ) -> None:
        self.node = node
        self.top = top
        self.env = env
        self.is_macro = is_macro
        self.path = path  # the project file defining it; None for the checked file
        self.imports = imports or ImportTable({})  # the import table of that project file
        self.receiver: Value | None = None  # `self` of a kernel factory that is a method
        # Argument lists of the calls seen in the file (for factories: one build each).
        self.call_sites: list[list[tuple[str | None, Value]]] = []


def bind_python(target: cst.BaseExpression, value: Value, env: Env) -> None:
    """Bind an assignment target as Python does (tuples unpack a known sequence of the same
    length; anything else gives Python values tilecheck does not know)."""
    if isinstance(target, cst.Name):
        env.bind(target.value, value)
    elif isinstance(target, (cst.Tuple, cst.List)):
        items = value.value if isinstance(value, PyConst) and isinstance(value.value, (tuple, list)) else None
        for index, element in enumerate(target.elements):
            part: Value = PyValue()
            if items is not None and len(items) == len(target.elements):
                item = items[index]
                part = item if isinstance(item, Value) else PyConst(item)
            bind_python(element.value, part, env)


def either(name: str, first: Value | None, second: Value | None) -> Value:
    """What a local name holds after an undecided `if` that left it `first` in one branch and
    `second` in the other (None: unbound). A read of a name one branch leaves unbound fails, so
    any later use has the other branch's value; two buffers (`buf = T.alloc_fragment(...)` /
    `else: buf = T.alloc_local(...)`) give a buffer (of their scope when they agree); anything
    else is a value tilecheck does not know."""
    if first is None or second is None:
        found = first if second is None else second
        return found if found is not None else UNKNOWN
    if isinstance(first, BufferValue) and isinstance(second, BufferValue):
        if first.buffer is second.buffer:
            return first
        a, b = first.buffer, second.buffer
        scope = a.scope if a.scope == b.scope else "?"
        return BufferValue(Buffer(name, scope, shape=a.shape if a.shape == b.shape else None, api=None))
    return UNKNOWN
