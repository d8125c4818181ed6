"""Shared memory per thread block, as TileLang 0.1.15 allocates it for one device kernel.

`shared_layout(kernel, target_class)` predicts what TileLang's lowering leaves in the
device kernel: the `dyn_shared_memory_buf` arena (every `T.alloc_shared` of the default
scope, merged) and the static `__shared__` arrays (`scope="shared"` buffers and bool tiles,
not merged).
The rules, measured by lowering generated kernels (tools/oracle/smem):

- A buffer takes `prod(shape) x element bytes` per version; a buffer never accessed takes 0.
- In a `T.Pipelined` loop a buffer gets one version per pipeline stage between the stage
  that writes it and the last stage that reads it: the planner puts every statement that
  fills shared memory from global memory (a `T.copy`, or a `T.Parallel` of global loads) in
  stage 0 and the rest in stage `num_stages - 1`; a manual `stage=` list gives the stages
  itself. `num_stages` 0 or 1 keeps one version.
- The arena is planned over the kernel's top-level statements: a buffer lives from the first
  statement that touches it to the last, and is placed at the lowest offset where it fits
  among the buffers still live, so an epilogue tile reuses the pipeline's space. With two or
  more buffers every offset and the arena's end are aligned to 16 bytes.

HIP lowers like the cp.async class (measured on gfx942 and gfx950, tools/oracle/smem/judge.py
`--targets hip:gfx942,hip:gfx950`): gfx950 byte for byte, gfx942 with every `num_stages`
stripped to one version (`shared_layout`'s `stages`; see tilecheck.tilelang.sizing). Metal and
WebGPU are not sized (`UNSIZED_BACKENDS` says why).

This module sizes the cp.async class (sm_80, sm_86, sm_87, sm_89, gfx950); the warp-specialised TMA class
(sm_90a, sm_100a, sm_120) aligns and versions differently and is sized by
`tilecheck.tilelang.warp_specialized` (`kernel_layout` chooses by class).
A layout that depends on something tilecheck cannot decide says what in `undecided`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecheck.tilelang.autotuning import under_autotune
from tilecheck.tilelang.lowest_fit import plan_arena
from tilecheck.tilelang.model import (
    MAX_BUILDS,
    FileModel,
    Item,
    Kernel,
    Loop,
    Request,
    Site,
    Stmt,
    StmtKind,
    walk,
)
from tilecheck.tilelang.reductions import within_warps
from tilecheck.tilelang.values import Buffer, Constness, int_value

if TYPE_CHECKING:
    import libcst as cst

ELEMENT_BYTES = {
    "bool": 1, "int8": 1, "uint8": 1, "float8_e4m3": 1, "float8_e5m2": 1, "float8_e4m3fn": 1,
    "float8_e4m3fnuz": 1, "float8_e5m2fnuz": 1, "int16": 2, "uint16": 2, "float16": 2, "half": 2,
    "bfloat16": 2, "int32": 4, "uint32": 4, "float32": 4, "float": 4, "int64": 8, "uint64": 8,
    "float64": 8,
}  # fmt: skip


class TargetClass(enum.Enum):
    """CUDA targets that lower a kernel's shared memory alike."""

    CP_ASYNC = "cp.async (sm_80, sm_86, sm_87, sm_89, gfx950)"
    WARP_SPECIALIZED = "TMA, warp-specialised (sm_90a, sm_100a, sm_120)"


SIZED_CLASSES = frozenset(TargetClass)  # the TMA class: tilecheck.tilelang.warp_specialized


@dataclass
class SharedBuffer:
    buffer: Buffer
    name: str
    dtype: str
    shape: tuple[int, ...]
    bytes_per_version: int
    versions: int = 1
    static: bool = False  # a `scope="shared"` array, outside the merged arena
    live: tuple[int, int] | None = None  # first and last top-level statement; None: never used
    offset: int | None = None  # in the arena (dynamic buffers that are used)
    alignment: int = 16  # of its offset in the arena (the TMA class aligns swizzled tiles more)
    # Its rank among the buffers first used in the same top-level statement, for the TMA class's
    # packing: a software-pipelined loop's prologue fills its tiles one statement after another.
    order: int = 0
    # An epilogue tile aligned to its swizzle atom because TileLang stores it with TMA; where
    # TileLang falls back to a plain store it is aligned to 16 (see `sizing.profile_layout`).
    tma_store: bool = False

    @property
    def bytes(self) -> int:
        return self.bytes_per_version * self.versions if self.live is not None else 0

    def describe(self) -> str:
        shape = " x ".join(str(n) for n in self.shape)
        versions = f" x {self.versions} versions" if self.versions > 1 else ""
        return f"`{self.name}`: ({shape}) {self.dtype}{versions} = {self.bytes:,} bytes"


@dataclass
class SharedLayout:
    target_class: TargetClass
    buffers: list[SharedBuffer] = field(default_factory=list)
    dynamic_bytes: int = 0
    static_bytes: int = 0  # includes `mbarrier_bytes`
    mbarrier_bytes: int = 0  # the warp-specialised pipeline's barriers, a static array
    undecided: list[str] = field(default_factory=list)  # why the size is not decidable

    @property
    def sized(self) -> bool:
        return not self.undecided

    @property
    def total_bytes(self) -> int:
        return self.dynamic_bytes + self.static_bytes


# Why a backend's shared memory is not sized, measured with TileLang 0.1.15 lowering 97 kernels
# on the CPU (80 of tools/oracle/smem/generate.py, seeds 87 and 88, and 17 of the tests' kernels;
# tools/oracle/smem/judge.py --targets metal,webgpu, then compare.py --targets metal,webgpu).
UNSIZED_BACKENDS = {
    "metal": "TileLang 0.1.15 lays out Metal threadgroup memory unlike the CUDA and HIP classes (of 97 "
    "measured kernels 73 lower and 21 of them differ: buffers kept out of the merged arena, padded arrays)",
    "webgpu": "TileLang 0.1.15 lowers few kernels for WebGPU (85 of 97 measured fail: no `T.gemm` "
    "implementation, vectors wider than 4 lanes, bfloat16), and 2 of the 12 that lower declare more "
    "workgroup memory than TileLang counts",
}


def target_class(backend: str, warp_specialization: bool) -> TargetClass | None:
    """The class of a TileLang backend's targets (None: a backend tilecheck does not size).

    HIP (`rocm`) targets lay out shared memory (LDS) as the cp.async class does."""
    if backend == "rocm":
        return TargetClass.CP_ASYNC
    if backend != "cuda":
        return None
    return TargetClass.WARP_SPECIALIZED if warp_specialization else TargetClass.CP_ASYNC


def unsized_reason(backend: str) -> str:
    """Why tilecheck does not size shared memory for `backend` (one whose class is None)."""
    return UNSIZED_BACKENDS.get(backend, f"tilecheck does not size shared memory for backend `{backend}`")


def kernel_launch(kernel: Kernel) -> Site | None:
    """The `T.Kernel(...)` call of a kernel, when it launches exactly one."""
    calls = _kernel_launches(kernel)
    return Site(calls[0], kernel.top) if len(calls) == 1 else None


def unfollowed_calls(kernel: Kernel, model: FileModel) -> int:
    """How many of the file's unfollowed calls sit in `kernel`'s definition."""
    return sum(1 for site, _ in model.unfollowed if site.top is kernel.top)


def pipelines(kernel: Kernel) -> list[Loop]:
    """The kernel's pipeline-requested loops, in source order."""
    return [loop for _, loop in _pipelines(kernel.body)]


def shared_layout(
    kernel: Kernel,
    target_class: TargetClass,
    stages: dict[int, int] | None = None,
    unfollowed: int = 0,
) -> SharedLayout:
    """`stages` maps a pipelined loop (`id(loop)`) to a `num_stages` to size it with instead;
    `unfollowed` counts the kernel's calls tilecheck could not follow (they may allocate or
    touch shared memory: the size is then not decidable)."""
    layout = SharedLayout(target_class)
    if target_class is not TargetClass.CP_ASYNC:
        layout.undecided.append(
            "this class's layout (TMA buffers, versions, mbarriers) is planned by warp_specialized.kernel_layout"
        )
        return layout
    if unfollowed:
        layout.undecided.append("a call tilecheck cannot follow may allocate or use shared memory")
    if kernel.calls_not_built:
        layout.undecided.append(too_many_calls(kernel))
    if under_autotune(kernel):
        layout.undecided.append(
            "the kernel's configuration comes from `@autotune`: the tuner's choice is the build that runs"
        )
    if len(_kernel_launches(kernel)) != 1:
        layout.undecided.append("the function does not launch exactly one `T.Kernel`")
    for buffer in kernel.buffers:
        if buffer.scope not in ("shared", "shared.dyn"):
            if buffer.scope.startswith("shared") or buffer.scope == "?":
                layout.undecided.append(
                    f"`{buffer.name}` has a scope tilecheck does not size ({buffer.scope})"
                )
            continue
        shared = _shared_buffer(buffer, layout.undecided)
        if shared is not None:
            layout.buffers.append(shared)
    by_buffer = {id(s.buffer): s for s in layout.buffers}
    lifetimes = unmodeled_lifetimes(kernel)
    if lifetimes is not None:
        layout.undecided.append(lifetimes)
    local = _warp_local_reductions(kernel)
    for number, item in enumerate(kernel.body):
        _check_modeled(item, layout.undecided, local)
        for buffer in _touched(item):
            shared = by_buffer.get(id(buffer))
            if shared is not None:
                first = shared.live[0] if shared.live is not None else number
                shared.live = (first, number)
    for ancestors, loop in _pipelines(kernel.body):
        if any(
            isinstance(a, Loop) and a.pipeline is not None and a.pipeline.state is not Request.BARE
            for a in ancestors
        ):
            layout.undecided.append("a pipelined loop is nested in another (TileLang plans neither level)")
            continue
        _version(loop, by_buffer, layout.undecided, (stages or {}).get(id(loop)))
    if layout.undecided:
        return layout
    layout.static_bytes = sum(s.bytes for s in layout.buffers if s.static)
    layout.dynamic_bytes = plan_arena([s for s in layout.buffers if not s.static and s.live is not None])
    return layout


# The operands a tile op reads in full, with thread-dependent indices (`T.copy`'s source,
# `T.gemm`'s A and B).
_READ_IN_FULL = {"copy": (0,), "gemm": (0, 1)}


def compiled_static_bytes(kernel: Kernel, layout: SharedLayout) -> int:
    """The static `__shared__` bytes the CUDA compiler must keep: the mbarriers and each
    `scope="shared"` array a tile op reads in full. The compiler may shrink an array read only
    at constant indices (ptxas then sees less than the source declares), so the others count
    as 0; so do bool tiles (static too, but TileLang 0.1.15 lowers no tile op that reads one:
    "Cannot convert type boolx16 to CUDA type")."""
    read = {
        id(call.operands[index])
        for item, _ in walk(kernel.body)
        for call in getattr(item, "calls", ())
        for index in _READ_IN_FULL.get(call.api, ())
        if index < len(call.operands) and call.operands[index] is not None
    }
    arrays = sum(
        shared.bytes
        for shared in layout.buffers
        if shared.static
        and shared.buffer.scope == "shared"
        and shared.dtype != "bool"
        and id(shared.buffer) in read
    )
    return arrays + layout.mbarrier_bytes


def too_many_calls(kernel: Kernel) -> str:
    return (
        f"the factory is called with {kernel.calls_not_built} distinct argument sets, more than the "
        f"{MAX_BUILDS} tilecheck builds one by one: it was built once with its arguments unknown"
    )


def _kernel_launches(kernel: Kernel) -> tuple[cst.Call, ...]:
    """The `T.Kernel(...)` calls in `kernel`'s definition, found once per kernel."""
    known = kernel.derived.get("launches")
    if isinstance(known, tuple):
        return known
    import libcst as cst  # here: importing the rules must not import libcst

    from tilecheck.tilelang.syntax import nested_statements

    launches: list[cst.Call] = []
    for statement in nested_statements([kernel.node]):  # statements only: expressions hold no `with`
        for item in statement.items if isinstance(statement, cst.With) else ():
            call = item.item
            func = call.func if isinstance(call, cst.Call) else None
            if isinstance(call, cst.Call) and isinstance(func, cst.Attribute) and func.attr.value == "Kernel":
                launches.append(call)
    kernel.derived["launches"] = found = tuple(launches)
    return found


def _shared_buffer(buffer: Buffer, undecided: list[str]) -> SharedBuffer | None:
    name = buffer.name or "a shared buffer"
    dims = [int_value(v) for v in buffer.shape] if buffer.shape is not None else None
    if dims is None or any(d is None for d in dims):
        undecided.append(f"the shape of `{name}` is not a constant")
        return None
    if any(d is not None and d <= 0 for d in dims):
        undecided.append(f"the shape of `{name}` has a dimension that is not positive")
        return None
    element = ELEMENT_BYTES.get(buffer.dtype or "")
    if element is None:
        undecided.append(
            f"the dtype of `{name}` is not a constant tilecheck knows ({buffer.dtype or 'unresolved'})"
        )
        return None
    shape = tuple(d for d in dims if d is not None)
    # TileLang 0.1.15 leaves `scope="shared"` buffers and bool tiles out of the merged arena: each
    # is a static `__shared__` array (measured: a (128, 64) bool tile is `bool M[8192]`, and an
    # epilogue tile after it does not reuse its space).
    static = buffer.scope == "shared" or buffer.dtype == "bool"
    return SharedBuffer(buffer, name, buffer.dtype or "", shape, math.prod(shape) * element, static=static)


def _touched(item: Item) -> Iterator[Buffer]:
    """Every buffer `item` (and what it contains) reads or writes, in source order."""
    for inner, _ in walk([item]):
        if isinstance(inner, Loop):
            yield from (access.buffer for access in inner.header_accesses)
        elif isinstance(inner, Stmt):
            for call in inner.calls:
                yield from (b for b in call.operands if b is not None)
            yield from (access.buffer for access in inner.accesses)


def reduces(kernel: Kernel) -> bool:
    """Whether the kernel calls a reduction (`T.reduce_*`, `T.cumsum`, `T.finalize_reducer`)."""
    return any(_reduces(call.api) for item, _ in walk(kernel.body) for call in getattr(item, "calls", ()))


def _warp_local_reductions(kernel: Kernel) -> frozenset[int]:
    """The reductions (`id` of the call) proven to take no shared workspace."""
    count = kernel.threads if kernel_launch(kernel) is not None else None
    return frozenset(
        id(call)
        for item, _ in walk(kernel.body)
        for call in getattr(item, "calls", ())
        if within_warps(call, kernel, count)
    )


def unmodeled_lifetimes(kernel: Kernel) -> str | None:
    """Why the lifetimes of the kernel's shared buffers are not its top-level statements', as
    tilecheck plans them: measured with TileLang 0.1.15 (sm_80, sm_86, gfx942, gfx950), a
    runtime `if` whose branch holds several statements that use several shared buffers lets the
    buffers of different statements in it share space (65,536 B where whole-statement lifetimes give
    131,072), and a serial loop after a pipelined one does not reuse the pipeline's space
    (131,072 B where 98,304 would fit)."""
    pipelined = False
    for item in kernel.body:
        if isinstance(item, Stmt) and item.kind is StmtKind.IF:
            for branch in (item.body, item.orelse):
                using = [inner for inner in branch if _uses_shared(inner)]
                buffers = {id(b) for inner in using for b in _touched(inner) if b.scope.startswith("shared")}
                if len(using) > 1 and len(buffers) > 1:
                    return "a runtime `if` holds several statements that use shared buffers (TileLang plans space inside it statement by statement: not modeled)"
        if pipelined and any(
            isinstance(inner, Loop)
            and not inner.is_parallel
            and inner.pipeline is None
            and _uses_shared(inner)
            for inner, _ in walk([item])
        ):
            return "a serial loop after the pipelined one uses shared memory (TileLang does not give it the pipeline's space: not modeled)"
        pipelined = pipelined or any(True for _ in _pipelines([item]))
    return None


def _uses_shared(item: Item) -> bool:
    return any(b.scope.startswith("shared") for b in _touched(item))


def _check_modeled(item: Item, undecided: list[str], local: frozenset[int] = frozenset()) -> None:
    for inner, _ in walk([item]):
        if isinstance(inner, Stmt) and inner.kind is StmtKind.UNKNOWN:
            # first: such a statement is also uncertain, but no Python-level condition is why
            label = f" ({inner.label})" if inner.label else ""
            undecided.append(f"a statement tilecheck cannot see into{label}")
            return
        if not inner.certain:
            undecided.append("a statement exists only for some values of a Python-level condition")
            return
        if (
            isinstance(inner, Loop)
            and inner.extent is not None
            and (int_value(inner.extent) or 0) < 2
            and int_value(inner.extent) is not None
            and _uses_shared(inner)
        ):
            # TileLang removes a loop of one iteration (or none) and plans the arena over what is
            # left (measured: a one-iteration pipeline's epilogue tile reuses an input's space;
            # with none, the buffers only it uses take nothing).
            undecided.append(
                "a loop of fewer than two iterations uses shared memory (its removal is not modeled)"
            )
            return
        if (
            isinstance(inner, Loop)
            and inner.extent is not None
            and int_value(inner.extent) is None
            and inner.constness is not Constness.SYMBOLIC
            and _uses_shared(inner)
        ):
            # A Python value tilecheck does not know is a constant when TileLang builds the
            # kernel: it may be 1, and TileLang removes such a loop (a TIR variable it keeps).
            undecided.append(
                "the extent of a loop that uses shared memory is not known (TileLang removes a loop of one "
                "iteration)"
            )
            return
        if isinstance(inner, Stmt) and inner.kind is StmtKind.BLOCK and _uses_shared(inner):
            # TileLang plans the arena inside a block statement statement by statement (measured:
            # a write-only buffer of an inner `T.sblock` shares its space with a later buffer of
            # the outer one, 16,384 B where top-level lifetimes give 32,768 B).
            undecided.append(
                f"a `T.{inner.api or 'sblock'}` block uses shared memory (planning inside blocks is not modeled)"
            )
            return
        if any(call.api == "annotate_ws_schedule" for call in getattr(inner, "calls", ())):
            # Measured: a pipeline TileLang versions twice keeps one version under it (sm_80).
            undecided.append(
                "a manual warp-specialisation schedule (`T.annotate_ws_schedule`) is not modeled"
            )
            return
        reduction = next(
            (
                call.api
                for call in getattr(inner, "calls", ())
                if _reduces(call.api) and id(call) not in local
            ),
            None,
        )
        if reduction is not None:
            # A reduction across threads takes a shared workspace TileLang sizes from the layout
            # it infers (e.g. 512 B more than the buffers on a measured `T.reduce_sum`); only the
            # cases tilecheck.tilelang.reductions proves to take none are sized.
            undecided.append(f"`T.{reduction}` may allocate a shared workspace tilecheck does not model")
            return


def _reduces(api: str) -> bool:
    return api.startswith("reduce") or api in ("cumsum", "finalize_reducer")


def _pipelines(items: list[Item]) -> Iterator[tuple[tuple[Item, ...], Loop]]:
    for item, ancestors in walk(items):
        if isinstance(item, Loop) and item.pipeline is not None and item.pipeline.state is not Request.BARE:
            yield ancestors, item


def _copy_stage_writes(item: Item) -> list[Buffer]:
    """The shared buffers `item` fills from global memory (a `T.copy(global, shared)` or a
    loop storing global loads): a copy stage, which the pipeline planner puts in stage 0.
    Empty when `item` is not a copy stage."""
    reads_global = False
    writes: list[Buffer] = []
    for inner, _ in walk([item]):
        if not isinstance(inner, Stmt):
            continue
        for call in inner.calls:
            if call.api == "copy" and len(call.operands) == 2:
                source, target = call.operands
                reads_global |= source is not None and source.scope == "global"
                if target is not None and target.scope.startswith("shared"):
                    writes.append(target)
        for access in inner.accesses:
            reads_global |= not access.write and access.buffer.scope == "global"
            if access.write and access.buffer.scope.startswith("shared"):
                writes.append(access.buffer)
    return writes if reads_global else []


def _computed_store(item: Item) -> Buffer | None:
    """A shared buffer that `item` stores a computed value into (not one load or a cast of one)."""
    for inner, _ in walk([item]):
        if isinstance(inner, Stmt) and inner.kind is StmtKind.STORE and not inner.stores_a_load:
            for access in inner.accesses:
                if access.write and access.buffer.scope.startswith("shared"):
                    return access.buffer
    return None


_STAGE_KNOWN = ("copy", "gemm", "fill", "clear")  # calls on shared tiles whose stage the planner rule covers


def _unclassified_writer(loop: Loop) -> str | None:
    """A call in the pipeline that may fill shared memory in a way the stage rule does not
    cover: a `T.copy` into shared memory from something tilecheck does not know as a buffer
    (a `T.Tensor` view over a pointer), or another tile op on a shared tile (`T.im2col`)."""
    for statement in loop.body:
        if any(
            isinstance(i, Loop) and i.pipeline and i.pipeline.state is not Request.BARE
            for i in _items(statement)
        ):
            continue  # a nested pipeline: not sized for that reason
        filled = {id(b) for b in _copy_stage_writes(statement)}
        computed = _computed_store(statement) if filled else None
        if computed is not None:
            # measured (TileLang 0.1.15, sm_80 to sm_120): `B_s[i, j] = B[k, j] * 2` keeps one
            # version of `B_s` where `B_s[i, j] = B[k, j]` (or a cast of it) keeps num_stages
            return (
                f"a pipelined loop stores a computed value into `{computed.name}`, not a plain load: "
                "TileLang does not version such a tile as a copied one (not modeled)"
            )
        used = next((b for b in _reads(statement) if id(b) in filled), None)
        if used is not None:
            # e.g. `if mask: T.copy(A, A_s); T.gemm(A_s, ...)`: TileLang versions `A_s` 3 times
            # under num_stages=3 (test_tilelang_language_pipeline.py:129); not modeled.
            return f"a pipelined statement both fills `{used.name}` and reads it"
    for inner, _ in walk(loop.body):
        for call in getattr(inner, "calls", ()):
            shared = next((b for b in call.operands if b is not None and b.scope.startswith("shared")), None)
            if shared is None:
                continue
            if call.api == "copy" and len(call.operands) == 2 and call.operands[0] is None:
                return f"a pipelined `T.copy` fills `{shared.name}` from something tilecheck does not know as a buffer"
            if call.api != "copy" and not call.api.startswith(_STAGE_KNOWN):
                return f"a pipelined `T.{call.api}` on `{shared.name}`: its pipeline stage is not modeled"
    return None


def _items(item: Item) -> Iterator[Item]:
    return (inner for inner, _ in walk([item]))


def _reads(item: Item) -> Iterator[Buffer]:
    """The buffers `item` may read: a copy's source, every operand of other calls, loads."""
    for inner, _ in walk([item]):
        if isinstance(inner, Loop):
            yield from (access.buffer for access in inner.header_accesses)
        elif isinstance(inner, Stmt):
            for call in inner.calls:
                operands = call.operands[:1] if call.api == "copy" else call.operands
                yield from (b for b in operands if b is not None)
            yield from (access.buffer for access in inner.accesses if not access.write)


def _version(
    loop: Loop, by_buffer: dict[int, SharedBuffer], undecided: list[str], stages_instead: int | None
) -> None:
    request = loop.pipeline
    assert request is not None
    if request.state is Request.UNKNOWN:
        undecided.append("a pipeline's schedule is not known statically")
        return
    unclassified = _unclassified_writer(loop)
    if unclassified is not None:
        undecided.append(unclassified)
        return
    if request.has_order or request.has_stage:
        if request.stage_values is None or request.order_values is None:
            undecided.append("a pipeline's manual `order=`/`stage=` is not a literal list")
            return
        if len(request.stage_values) != len(loop.body):
            undecided.append("a manual `stage=` list does not match the loop's statements")
            return
        stages = list(request.stage_values)
    else:
        depth = request.stages if stages_instead is None else stages_instead
        if depth is None:
            undecided.append("a pipeline's `num_stages` is not a constant")
            return
        last = max(depth - 1, 0)
        stages = [0 if _copy_stage_writes(s) else last for s in loop.body]
    for number, statement in enumerate(loop.body):
        for target in _copy_stage_writes(statement):
            shared = by_buffer.get(id(target))
            if shared is not None:
                _add_versions(shared, number, stages, loop)


def _add_versions(shared: SharedBuffer, writer: int, stages: list[int], loop: Loop) -> None:
    """One version per stage from the writer's to the last reader's."""
    readers = [
        stages[other]
        for other, item in enumerate(loop.body)
        if other != writer and any(b is shared.buffer for b in _touched(item))
    ]
    if readers:
        shared.versions = max(shared.versions, max(readers) - stages[writer] + 1)
