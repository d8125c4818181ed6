"""Shared memory per thread block on the TMA, warp-specialised CUDA targets (sm_90a, sm_100a, sm_120).

TileLang 0.1.15 splits a `T.Pipelined` loop whose shared tiles are filled by TMA loads into a
producer and a consumer warpgroup (`ProducerConsumerWarpSpecialized`), and packs the arena
with per-buffer alignments (`MergeSharedMemoryAllocations`). The rules below were measured by
lowering generated kernels for `{"kind": "cuda", "arch": "sm_90a"}` (sm_100a and sm_120 gave
the same bytes) and reading the allocation plan; tools/oracle/smem checks them byte for byte.

- A `T.copy(global, shared)` in the pipelined loop, of a 2-D tile whose rows are a multiple of
  16 bytes and whose dtype is the tensor's, is a TMA load: its tile keeps `num_stages` versions.
- The mbarriers are a static `__shared__` array of 2 x `num_stages` barriers of 8 bytes (a full
  and an empty barrier per stage, shared by every TMA load the same statement consumes).
- Alignment in the arena: a tile swizzled for `T.gemm` or for a fragment-to-global epilogue
  copy is aligned to its swizzle atom (rows a multiple of 128 bytes: 1024; of 64: 512; of 32:
  256; a transposed gemm operand alike, by its own rows); any other TMA destination to 128
  (a gemm operand with 16-byte rows too); every other buffer to 16.
- The arena is packed as TileLang's linear scan does: buffers in order of first top-level
  statement (larger first, then by name), each into the best-fitting freed block, else at the
  aligned top; a buffer whose last statement is before another's first frees its space. With
  two or more buffers the arena is rounded up to 16 bytes.

Only what was measured is sized: `T.copy`, `T.gemm`, `T.clear`, `T.fill` and element
statements, with a pipeline's consumers being gemms and element reads. Anything else (a manual
`order=`/`stage=`, `num_stages` below 1, a second pipelined or copying loop, a producer that is
not a TMA copy, gemm dtypes other than float16/bfloat16, `threads` other than a literal 128,
`pass_configs`, other calls or keywords, ...) is not sized: the layout says why in `undecided`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.tilelang.autotuning import under_autotune
from tilecheck.tilelang.linear_scan import pack
from tilecheck.tilelang.measured import (
    MEASURED_THREADS,
    has_pass_configs,
    keywords,
    unmeasured_construct,
)
from tilecheck.tilelang.model import Item, Kernel, Loop, Request, Stmt, walk
from tilecheck.tilelang.shared_memory import (
    ELEMENT_BYTES,
    SharedBuffer,
    SharedLayout,
    TargetClass,
    _check_modeled,
    _kernel_launches,
    _pipelines,
    _shared_buffer,
    _touched,
    shared_layout,
    too_many_calls,
)

if TYPE_CHECKING:
    from tilecheck.tilelang.values import Buffer

MBARRIER_BYTES = 8  # one `uint64_t` per barrier
GEMM_DTYPES = frozenset({"float16", "bfloat16"})
TMA_MAX_BOX = 256  # elements per box dimension; larger tiles are split (not measured)


def kernel_layout(
    kernel: Kernel,
    target_class: TargetClass,
    stages: dict[int, int] | None = None,
    unfollowed: int = 0,
) -> SharedLayout:
    """The shared-memory layout of `kernel` for either CUDA target class (see shared_layout),
    worked out once per kernel and arguments (callers do not change it)."""
    key = ("layout", target_class, tuple(sorted(stages.items())) if stages else (), unfollowed)
    known = kernel.derived.get(key)
    if isinstance(known, SharedLayout):
        return known
    if target_class is TargetClass.WARP_SPECIALIZED:
        layout = warp_specialized_layout(kernel, stages, unfollowed)
    else:
        layout = shared_layout(kernel, target_class, stages, unfollowed)
    kernel.derived[key] = layout
    return layout


def warp_specialized_layout(
    kernel: Kernel, stages: dict[int, int] | None = None, unfollowed: int = 0
) -> SharedLayout:
    layout = SharedLayout(TargetClass.WARP_SPECIALIZED)
    undecided = layout.undecided
    if unfollowed:
        undecided.append("a call tilecheck cannot follow may allocate or use shared memory")
    if kernel.calls_not_built:
        undecided.append(too_many_calls(kernel))
    if under_autotune(kernel):
        undecided.append(
            "the kernel's configuration comes from `@autotune`: the tuner's choice is the build that runs"
        )
    launches = _kernel_launches(kernel)
    if len(launches) != 1:
        undecided.append("the function does not launch exactly one `T.Kernel`")
    elif kernel.threads != MEASURED_THREADS:  # evaluated: a factory's `threads=128` parameter too
        undecided.append("`threads=` is not known to be 128 (the only block size measured for this class)")
    elif keywords(launches[0]) - {"threads"}:
        undecided.append("`T.Kernel` takes keywords besides `threads=` (not measured for this class)")
    unmeasured = unmeasured_construct(kernel)
    if unmeasured is not None:
        undecided.append(f"{unmeasured} (not measured for this class)")
    if has_pass_configs(kernel):
        undecided.append(
            "`pass_configs` may change how TileLang lowers the kernel (not measured for this class)"
        )
    for buffer in kernel.buffers:
        if buffer.scope not in ("shared", "shared.dyn"):
            if buffer.scope.startswith("shared") or buffer.scope == "?":
                undecided.append(f"`{buffer.name}` has a scope tilecheck does not size ({buffer.scope})")
            continue
        shared = _shared_buffer(buffer, undecided)
        if shared is not None:
            layout.buffers.append(shared)
    by_buffer = {id(s.buffer): s for s in layout.buffers}
    for number, item in enumerate(kernel.body):
        _check_modeled(item, undecided)
        for buffer in _touched(item):
            shared = by_buffer.get(id(buffer))
            if shared is not None:
                first = shared.live[0] if shared.live is not None else number
                shared.live = (first, number)
    if undecided:
        return layout
    loop = _the_pipeline(kernel, undecided)
    if loop is None:
        return layout
    depth = _depth(loop, stages, undecided)
    tma = _tma_loads(loop, by_buffer, undecided)
    if depth is None or not tma:
        return layout
    _consumers(loop, tma, by_buffer, undecided)
    for shared in layout.buffers:
        if id(shared.buffer) in tma and shared.live != (_index(kernel, loop),) * 2:
            undecided.append(f"the TMA tile `{shared.name}` is used outside the pipeline (not measured)")
        elif id(shared.buffer) in tma:
            shared.versions = depth
        elif shared.live is not None:
            _outside_alignment(shared, kernel, loop, undecided)
    if undecided:
        return layout
    layout.mbarrier_bytes = 2 * depth * MBARRIER_BYTES
    layout.static_bytes = layout.mbarrier_bytes + sum(s.bytes for s in layout.buffers if s.static)
    layout.dynamic_bytes = pack([s for s in layout.buffers if not s.static and s.live is not None])
    return layout


def _the_pipeline(kernel: Kernel, undecided: list[str]) -> Loop | None:
    found = list(_pipelines(kernel.body))
    if len(found) != 1:
        undecided.append(
            "the kernel has no pipelined loop (TileLang does not warp-specialise it; not measured)"
            if not found
            else "the kernel has more than one pipelined loop (a second one gets num_stages x num_stages versions)"
        )
        return None
    _, loop = found[0]
    if not any(item is loop for item in kernel.body):
        undecided.append("the pipelined loop is nested in another statement (not measured)")
        return None
    for item in kernel.body:
        if item is not loop and any(
            _writes_shared_from_global(inner) for inner, _ in walk([item]) if isinstance(inner, Loop)
        ):
            undecided.append("a second loop fills shared memory from global memory (not measured)")
            return None
    return loop


def _index(kernel: Kernel, loop: Loop) -> int:
    return next(number for number, item in enumerate(kernel.body) if item is loop)


def _depth(loop: Loop, stages: dict[int, int] | None, undecided: list[str]) -> int | None:
    request = loop.pipeline
    assert request is not None
    if request.state is Request.UNKNOWN:
        undecided.append("a pipeline's schedule is not known statically")
        return None
    if request.has_order or request.has_stage:
        undecided.append("a manual `order=`/`stage=` schedule (not measured for this class)")
        return None
    depth = (stages or {}).get(id(loop), request.stages)
    if depth is None:
        undecided.append("a pipeline's `num_stages` is not a constant")
        return None
    if depth < 1:
        undecided.append("`num_stages` below 1: TileLang does not warp-specialise the loop (not measured)")
        return None
    return depth


def _tma_loads(loop: Loop, by_buffer: dict[int, SharedBuffer], undecided: list[str]) -> dict[int, int]:
    """The pipeline's TMA destinations (`id(buffer)` -> the body statement that loads it)."""
    tma: dict[int, int] = {}
    for number, item in enumerate(loop.body):
        copy = _global_to_shared_copy(item)
        if copy is None:
            if _writes_shared(item):
                undecided.append(
                    "a pipeline statement other than a `T.copy` from global memory writes shared memory"
                )
            continue
        shared = by_buffer.get(id(copy))
        if shared is None:
            undecided.append(f"`{copy.name}` is not a shared tile tilecheck sizes")
            continue
        row = _row_bytes(shared)
        source = _copy_source(item)
        if row % 16 or row == 0 or any(d > TMA_MAX_BOX for d in shared.shape) or id(copy) in tma:
            undecided.append(f"the copy into `{shared.name}` is not a TMA load measured ({row}-byte rows)")
            continue
        if source is None or source.dtype != shared.dtype:
            undecided.append(f"the copy into `{shared.name}` converts its dtype (not a TMA load)")
            continue
        tma[id(copy)] = number
    if not tma and not undecided:
        undecided.append(
            "no TMA copy in the pipelined loop: TileLang does not warp-specialise it (not measured)"
        )
    return tma


def _consumers(
    loop: Loop, tma: dict[int, int], by_buffer: dict[int, SharedBuffer], undecided: list[str]
) -> None:
    """Check the consumers and give each TMA destination its alignment."""
    readers: dict[int, list[int]] = {key: [] for key in tma}
    for number, item in enumerate(loop.body):
        if number in tma.values():
            continue
        for inner, _ in walk([item]):
            if isinstance(inner, Stmt) and any(a.buffer.scope == "global" for a in inner.accesses):
                undecided.append("a pipeline consumer reads global memory (a mixed producer; not measured)")
                return
            other = next((c.api for c in getattr(inner, "calls", ()) if c.api != "gemm"), None)
            if other is not None:
                # Only `T.gemm` and element reads were measured: a `T.copy` out of a tile, say,
                # may give it another layout (and alignment).
                undecided.append(f"`T.{other}` in the pipeline's consumers (not measured for this class)")
                return
        for buffer in _touched(item):
            if id(buffer) in readers and number not in readers[id(buffer)]:
                readers[id(buffer)].append(number)
    if len({(min(r), max(r)) if r else None for r in readers.values()}) != 1 or not all(readers.values()):
        undecided.append(
            "the TMA loads are consumed by different statements (barriers not merged; not measured)"
        )
        return
    for key in tma:
        by_buffer[key].alignment = 128
    for inner, _ in walk(loop.body):
        for call in getattr(inner, "calls", ()):
            if call.api != "gemm":
                continue
            found = [by_buffer.get(id(b)) for b in call.operands[:2] if b is not None]
            operands = [o for o in found if o is not None]
            if len(call.operands) != 3 or len(operands) != 2:
                undecided.append("a `T.gemm` tilecheck does not size (operands or keywords not measured)")
                return
            for operand in operands:
                if operand.dtype not in GEMM_DTYPES or id(operand.buffer) not in tma:
                    undecided.append(
                        f"`T.gemm` on `{operand.name}` ({operand.dtype}) is not measured for this class"
                    )
                    return
                atom = _swizzle_atom(operand)
                if atom is None and _row_bytes(operand) != 16:
                    undecided.append(f"the swizzle of `{operand.name}` is not measured")
                    return
                operand.alignment = atom or 128  # 16-byte rows: not swizzled, a TMA tile's 128


def _outside_alignment(shared: SharedBuffer, kernel: Kernel, loop: Loop, undecided: list[str]) -> None:
    """A buffer outside the pipeline: an epilogue tile (a fragment copied in, copied out to
    global memory) is swizzled; one filled by a plain copy or element stores is aligned to 16."""
    if any(b is shared.buffer for b in _touched(loop)):
        undecided.append(f"`{shared.name}` is used inside and outside the pipeline (not measured)")
        return
    roles: set[str] = set()
    for inner, _ in walk(kernel.body):
        if not isinstance(inner, Stmt):
            continue
        if any(a.buffer is shared.buffer for a in inner.accesses):
            roles.add("element")
        for call in inner.calls:
            if any(b is shared.buffer for b in call.operands):
                roles.add(_role(call.api, call.operands, shared.buffer))
    if roles <= {"load", "element"}:
        shared.alignment = 16
        return
    atom = _swizzle_atom(shared)
    if roles == {"from fragment", "to global"} and atom is not None and not shared.static:
        shared.alignment = atom
        return
    undecided.append(f"`{shared.name}` outside the pipeline is used in a way not measured for this class")


def _role(api: str, operands: tuple[Buffer | None, ...], buffer: Buffer) -> str:
    source, target = (*operands, None, None)[:2]
    if api != "copy" or len(operands) != 2 or source is None or target is None:
        return api
    if target is buffer and source.scope == "global":
        return "load"
    if target is buffer and source.scope == "local.fragment":
        return "from fragment"
    if source is buffer and target.scope == "global":
        return "to global"
    return "copy"


def _row_bytes(shared: SharedBuffer) -> int:
    return shared.shape[-1] * ELEMENT_BYTES[shared.dtype] if len(shared.shape) == 2 else 0


def _swizzle_atom(shared: SharedBuffer) -> int | None:
    row = _row_bytes(shared)
    for width, atom in ((128, 1024), (64, 512), (32, 256)):
        if row and row % width == 0:
            return atom
    return None


def _copy_source(item: Item) -> Buffer | None:
    return item.calls[0].operands[0] if isinstance(item, Stmt) and item.calls else None


def _global_to_shared_copy(item: Item) -> Buffer | None:
    if not isinstance(item, Stmt) or len(item.calls) != 1 or item.body or item.orelse:
        return None
    call = item.calls[0]
    if call.api != "copy" or len(call.operands) != 2:
        return None
    source, target = call.operands
    if source is None or target is None or source.scope != "global" or not target.scope.startswith("shared"):
        return None
    return target


def _writes_shared(item: Item) -> bool:
    for inner, _ in walk([item]):
        if isinstance(inner, Stmt):
            if any(a.write and a.buffer.scope.startswith("shared") for a in inner.accesses):
                return True
            for call in inner.calls:
                targets = call.operands[1:2] if call.api == "copy" else call.operands
                if (
                    any(b is not None and b.scope.startswith("shared") for b in targets)
                    and call.api != "gemm"
                ):
                    return True
    return False


def _writes_shared_from_global(loop: Loop) -> bool:
    return any(_global_to_shared_copy(inner) is not None for inner, _ in walk(loop.body)) or (
        _writes_shared(loop)
        and any(
            isinstance(i, Stmt) and any(a.buffer.scope == "global" and not a.write for a in i.accesses)
            for i, _ in walk(loop.body)
        )
    )
