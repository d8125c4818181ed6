"""The kernel model: loop nests and statements as TileLang's frontend builds them.

`analyze()` turns a parsed file into `FileModel`. Rules read this model; they never
re-derive frontend behaviour from the CST. CST nodes are kept only for locations and fixes.

Every item knows where it came from: `node` is the construct itself, `top` the module-level
statement containing it (for cheap, lazy locations) and `origin` the chain of macro calls
that inlined it (outermost call first). Diagnostics about inlined code are reported at the
outermost call site (`report_node`).
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecheck.tilelang.values import Buffer, Constness, Value, Var

if TYPE_CHECKING:
    import libcst as cst

    from tilecheck.tilelang.imports import ProjectModule


@dataclass(frozen=True)
class MacroCall:
    name: str
    call: cst.CSTNode  # the call expression at the call site
    call_top: cst.CSTNode
    definition: cst.FunctionDef
    definition_top: cst.CSTNode
    path: str | None = None  # the project file defining the macro; None for the checked file
    helper: bool = False  # a plain Python helper whose returned expression stands for the call

    @property
    def kind(self) -> str:
        return "helper" if self.helper else "macro"


@dataclass(eq=False)
class Site:
    """Where an item is in the source, and through which macro calls it was inlined."""

    node: cst.CSTNode
    top: cst.CSTNode
    origin: tuple[MacroCall, ...] = ()

    @property
    def path(self) -> str | None:
        """The project file `node` is written in (a macro imported from it), None for this file."""
        return self.origin[-1].path if self.origin else None

    @property
    def report_node(self) -> cst.CSTNode:
        return self.origin[0].call if self.origin else self.node

    @property
    def report_top(self) -> cst.CSTNode:
        return self.origin[0].call_top if self.origin else self.top


class LoopKind(enum.Enum):
    PARALLEL = "parallel"
    SERIAL = "serial"
    PIPELINED = "pipelined"
    UNROLLED = "unrolled"
    VECTORIZED = "vectorized"
    PERSISTENT = "persistent"
    GRID = "grid"
    RANGE = "range"  # Python `range` in a kernel: a TIR serial loop
    THREAD_BINDING = "thread-binding"

    @property
    def is_parallel(self) -> bool:
        return self is LoopKind.PARALLEL


class Request(enum.Enum):
    """Pipeline classification of a loop (TileLang's "pipeline-requested")."""

    BARE = "bare"
    REQUESTED = "requested"
    UNKNOWN = "unknown"


@dataclass
class PipelineRequest:
    state: Request
    num_stages: Value | None = None
    num_stages_positional: bool = False
    order: Value | None = None
    stage: Value | None = None
    annotations: Value | None = None
    reasons: tuple[str, ...] = ()  # what makes it requested, e.g. ("num_stages=3",)
    # Which kind of schedule is requested: a stage count (num_stages > 0, or the key in
    # `annotations`) and/or a manual schedule (non-empty order/stage, or their keys).
    requests_stages: bool = False
    requests_manual: bool = False
    # A non-empty `order` / `stage` (argument or annotation key). TileLang's PipelinePlanning
    # plans a manual schedule only when both are present (pipeline_planning.cc:1087).
    has_order: bool = False
    has_stage: bool = False
    stages: int | None = None  # the requested num_stages when it is a literal or constant
    order_values: tuple[int, ...] | None = None  # the manual order / stage, when literal
    stage_values: tuple[int, ...] | None = None

    @property
    def depth(self) -> int | None:
        """The pipeline depth: num_stages, or `max(stage) + 1` for a manual schedule."""
        if self.stages is not None and self.stages > 0:
            return self.stages
        if self.stage_values:
            return max(self.stage_values) + 1
        return None


@dataclass(frozen=True, eq=False)
class Guard:
    """One branch of a Python-level `if` whose condition tilecheck could not decide: the `if`
    as evaluated once (`site`, shared by both branches) and whether its test held."""

    site: Site
    test: cst.BaseExpression
    holds: bool

    def same(self, other: Guard) -> bool:
        return self.site is other.site and self.holds == other.holds

    def contradicts(self, other: Guard) -> bool:
        return self.site is other.site and self.holds != other.holds


@dataclass(eq=False)
class Item:
    site: Site
    # False when the item exists only for some values of a Python-level condition or
    # iterable that tilecheck cannot evaluate: never evidence for a proof on its own.
    certain: bool = True
    # The Python-level `if` statements whose condition tilecheck could not decide and whose
    # branch this item was spliced from, outermost first (for `tilecheck explain`).
    conditions: tuple[Site, ...] = ()
    # The undecided branches the item is in, outermost first; with `conditional`, the item
    # certainly exists whenever they all hold (it is uncertain only through them).
    guards: tuple[Guard, ...] = ()
    conditional: bool = False


@dataclass(eq=False)
class Loop(Item):
    kind: LoopKind = LoopKind.SERIAL
    api: str = ""  # as written: "T.Parallel", "range", ...
    var: Var | None = None
    dim: int = 0  # position in a multi-dimensional constructor (T.Parallel(M, N), T.grid)
    ndim: int = 1
    min: Value | None = None
    extent: Value | None = None
    step: Value | None = None
    constness: Constness = Constness.UNKNOWN  # of min and extent together
    pipeline: PipelineRequest | None = None
    call: cst.Call | None = None  # the constructor call (T.Parallel(...)); also `site.node`
    range_node: cst.CSTNode | None = None  # the source of this dimension's range, for messages
    statement: cst.For | None = None
    header_accesses: list[Access] = field(default_factory=list)  # loads in the bounds
    body: list[Item] = field(default_factory=list)
    # The constructor's named arguments as evaluated (`explicit`, `unroll_factor`, ...).
    arguments: dict[str, Value] = field(default_factory=dict)

    @property
    def is_parallel(self) -> bool:
        return self.kind is LoopKind.PARALLEL


class StmtKind(enum.Enum):
    STORE = "store"  # a BufferStore (B[i] = x, B[i] += x, alloc_var write)
    BIND = "bind"  # an assignment of a PrimExpr: `t = i * 2`
    EVAL = "eval"  # an expression statement that emits IR (T.copy, T.print, ...)
    IF = "if"  # a runtime `if`
    WHILE = "while"
    BLOCK = "block"  # `with T.sblock(...)`, `with T.ws(...)`
    MACRO_BIND = "macro-bind"  # a macro's expression argument becoming a Bind
    UNKNOWN = "unknown"  # a call tilecheck cannot see into


@dataclass(eq=False)
class Access:
    """One buffer load or store. `uses` are the variables in its indices after folding."""

    buffer: Buffer
    uses: frozenset[Var]
    write: bool
    site: Site


@dataclass(eq=False)
class OpCall:
    """A call to a TileLang operation inside a statement."""

    api: str  # "copy", "fill", ...
    tile_op: str | None  # the tl.tileop.* op it lowers to, or None for element operations
    nested: bool  # inside another call's arguments (TileLang's checker does not look there)
    site: Site
    # The buffer each positional argument names (a buffer or a region of one), None otherwise.
    operands: tuple[Buffer | None, ...] = ()


@dataclass(eq=False)
class Stmt(Item):
    kind: StmtKind = StmtKind.EVAL
    label: str = ""  # a description for statements the frontend synthesises
    api: str = ""  # the TileLang API of a block statement (`with T.sblock(...)` -> "sblock")
    accesses: list[Access] = field(default_factory=list)
    calls: list[OpCall] = field(default_factory=list)
    # A store of one buffer load, or of a cast of one (`B_s[i, j] = B[k, j]`), not a computed value.
    stores_a_load: bool = False
    body: list[Item] = field(default_factory=list)  # then-branch / while / block body
    orelse: list[Item] = field(default_factory=list)


MAX_BUILDS = 8  # distinct calls of one factory built one by one (`Kernel.calls_not_built`)


@dataclass(eq=False)
class Kernel:
    name: str
    node: cst.FunctionDef
    top: cst.CSTNode
    body: list[Item] = field(default_factory=list)
    macro_calls: list[MacroCall] = field(default_factory=list)  # every inlined call, in order
    buffers: list[Buffer] = field(default_factory=list)  # parameters and allocations
    # The factory call that built it (its name, each parameter's value); None outside a factory.
    factory_call: tuple[str, tuple[tuple[str, Value | None], ...]] | None = None
    # Undecided Python-level `if` statements of the factory around the definition, outermost first.
    conditions: tuple[Site, ...] = ()
    threads: int | None = None  # a `T.Kernel(..., threads=n)` whose `n` is a known integer
    # Distinct factory calls beyond what is built one by one: the one build then has unknown arguments.
    calls_not_built: int = 0
    # What is worked out from the finished kernel (its shared-memory layouts), kept with it: a
    # kernel reused for the document's next version (`reuse.KernelMemo`) is not worked out again.
    derived: dict[Hashable, object] = field(default_factory=dict, repr=False)


@dataclass(eq=False)
class Malformed:
    """A loop header TileLang fails to build (reference §2.2); the frontend creates no Loop.

    `kind` is "parallel-targets" (the number of `for` targets differs from the number of
    `T.Parallel` extents) or "vectorized-step" (`T.vectorized` given a step).
    """

    kind: str
    site: Site
    api: str
    certain: bool = True
    targets: int = 0
    extents: int = 0
    unpacking: bool = False  # the `for` target is a tuple (`for i, j in ...`)
    detail: str = ""  # for "vectorized-step": "positional" or "keyword"
    # One target over several extents builds (the target is the list of loop variables) until
    # it is used as one index among others, e.g. `A[i, 0]`: the first such use.
    scalar_use: Site | None = None


@dataclass(eq=False)
class FileModel:
    kernels: list[Kernel] = field(default_factory=list)
    macros: dict[str, cst.FunctionDef] = field(default_factory=dict)
    malformed: list[Malformed] = field(default_factory=list)
    # Project modules read to resolve imports (by path), to locate code inlined from them.
    modules: dict[str, ProjectModule] = field(default_factory=dict)
    # Calls in kernels whose callee, a macro perhaps, tilecheck does not know (`self.loader(f)`):
    # the call site and the callee as written.
    unfollowed: list[tuple[Site, str]] = field(default_factory=list)


def children(item: Item) -> Iterator[Item]:
    if isinstance(item, Loop):
        yield from item.body
    elif isinstance(item, Stmt):
        yield from item.body
        yield from item.orelse


def walk(items: list[Item], ancestors: tuple[Item, ...] = ()) -> Iterator[tuple[Item, tuple[Item, ...]]]:
    """Every item with its ancestors (outermost first): the lexical paths of the nest."""
    for item in items:
        yield item, ancestors
        inner = (*ancestors, item)
        if isinstance(item, Loop):
            yield from walk(item.body, inner)
        elif isinstance(item, Stmt):
            yield from walk(item.body, inner)
            yield from walk(item.orelse, inner)


def enclosing_loops(ancestors: tuple[Item, ...]) -> Iterator[Loop]:
    for item in ancestors:
        if isinstance(item, Loop):
            yield item
