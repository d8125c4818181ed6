"""Shared memory per thread block on the TMA, warp-specialised CUDA targets (sm_90a, sm_100a, sm_120).

TileLang 0.1.15 splits a `T.Pipelined` loop whose shared tiles are filled by TMA loads into a
producer and a consumer warpgroup (`ProducerConsumerWarpSpecialized`), and packs the arena
with per-buffer alignments (`MergeSharedMemoryAllocations`). The rules below were measured by
lowering generated kernels for `{"kind": "cuda", "arch": "sm_90a"}` (and sm_100a and sm_120)
and reading the allocation plan; tools/oracle/smem checks them byte for byte.

- A `T.copy(global, shared)` in the pipelined loop, of a 2-D tile whose rows are a multiple of
  16 bytes and whose dtype is the tensor's, is a TMA load: its tile keeps `num_stages` versions.
- The mbarriers are a static `__shared__` array of 2 x `num_stages` barriers of 8 bytes (a full
  and an empty barrier per stage, shared by every TMA load the same statement consumes).
- Alignment in the arena: a tile swizzled for `T.gemm` or for a fragment-to-global epilogue
  copy is aligned to its swizzle atom (a swizzled extent of a multiple of 128 bytes: 1024; of
  64: 512; of 32: 256); any other TMA destination to 128 (a gemm operand with 16-byte rows
  too); every other buffer to 16. A gemm operand's swizzled extent is its rows (an mma, and a
  wgmma's K-major operand), except on sm_90a, where a `T.gemm` of at least 64 rows (float16 or
  bfloat16 into float32, K a multiple of 16) is a wgmma: a transposed `A` is swizzled over 64
  rows, a `B` that is not transposed over the wgmma's N, which is the tile's columns over the
  number of warp groups (side by side along N, `ComputeWgmmaWarpPartition`).
- A loop TileLang does not warp-specialise — no pipelined loop, `num_stages=0` (the same bytes
  as `T.serial`), or a pipeline with no `T.copy` to make a TMA load of (a `T.Parallel`
  producer, versioned by the cp.async class's stage rule) — loads with plain or cp.async
  copies: no mbarrier, one version of a tile outside a pipeline, every tile aligned to 16
  except a wgmma operand on sm_90a (1024, the descriptor's worst case: no TMA load gives it
  the swizzle's) and an epilogue tile (a TMA store: its swizzle atom).
- A second pipelined loop after the warp-specialised one (sm_90a; sm_100a and sm_120 not
  measured) is pipelined with cp.async, not warp-specialised, and adds no mbarrier: its tiles
  keep num_stages x num_stages versions (1-3 stages measured), a wgmma operand aligned to 1024,
  an mma's to 16.
- A plain copying loop (`T.serial`, `num_stages=0`) before the warp-specialised one (sm_90a;
  sm_100a and sm_120 not measured): warp specialisation splits the body from that loop on
  into a producer and a consumer branch, so the TMA tiles are live from the copying loop on
  and placed before its tiles, which are aligned as with no pipeline.
- The arena is packed as TileLang's linear scan does: buffers in order of first top-level
  statement (larger first, then by name; the tiles of a cp.async-pipelined loop in the order of
  the statements that fill them, as its prologue does), each into the best-fitting freed
  block, else at the aligned top; a buffer whose last statement is before another's first
  frees its space. With two or more buffers the arena is rounded up to 16 bytes.
- `threads=128`, `256` and `512` lower alike but for the wgmma's N split (4 x 1, 4 x 2, 4 x 4
  warps: a `B` tile not transposed swizzled over N, N/2, N/4); TileLang rejects a wgmma whose
  `B` would not be swizzled and a gemm no warp partition covers (not sized).
- A literal manual `order=`/`stage=` beside `num_stages` >= 1 changes nothing: the
  warp-specialised pipeline keeps num_stages versions and barriers (measured with four
  schedules, reordered and all-in-one-stage ones too). Without `num_stages` TileLang plans the
  manual schedule itself (cp.async, not measured).

The wgmma rules hold on sm_90a only: sm_100a and sm_120 make the same `T.gemm` an mma. A
caller that knows the arch says so (`wgmma`, from the profile's target: `wgmma_target`); one
that does not gets a size only when both give the same bytes.

Only what was measured is sized: `T.copy`, `T.gemm`, `T.clear`, `T.fill` and element
statements, with a pipeline's consumers being gemms and element reads. Anything else (a manual
`order=`/`stage=` without `num_stages`, three pipelined loops, or two on sm_100a and sm_120, a
copying loop after the pipelined one or two before it, a pipeline mixing TMA copies with a
`T.Parallel` producer, gemm dtypes other than
float16/bfloat16 or operand shapes that do not match, `threads` other than a literal 128, 256
or 512, `pass_configs`, other calls or keywords, ...) is not sized: the layout says why in
`undecided`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilecheck.tilelang.autotuning import under_autotune
from tilecheck.tilelang.linear_scan import pack
from tilecheck.tilelang.measured import (
    has_pass_configs,
    keywords,
    unmeasured_construct,
)
from tilecheck.tilelang.model import Item, Kernel, Loop, OpCall, Request, Stmt, walk
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
    _version,
    shared_layout,
    too_many_calls,
    unmodeled_lifetimes,
)
from tilecheck.tilelang.values import int_value

if TYPE_CHECKING:
    from tilecheck.tilelang.values import Buffer

MBARRIER_BYTES = 8  # one `uint64_t` per barrier
GEMM_DTYPES = frozenset({"float16", "bfloat16"})
TMA_MAX_BOX = 256  # elements per box dimension; larger tiles are split (not measured)
BLOCK_SIZES = frozenset({128, 256, 512})  # the `threads=` measured
WARPGROUP = 128  # threads: a wgmma needs a multiple of it
WGMMA_MIN_M = 64  # `T.gemm` rows below it are an mma even on sm_90a
DESCRIPTOR_ALIGNMENT = 1024  # a wgmma operand no TMA load aligns (TileLang's worst case)


def wgmma_target(target: str) -> bool | None:
    """Whether a CUDA target string (`cuda -arch=sm_90a`) lowers a `T.gemm` as a wgmma (the
    Hopper archs, 90 to 99); None when the string names no arch."""
    _, _, arch = target.partition("-arch=sm_")
    digits = "".join(c for c in arch.split(" ")[0] if c.isdigit())
    return 90 <= int(digits) < 100 if digits else None


def kernel_layout(
    kernel: Kernel,
    target_class: TargetClass,
    stages: dict[int, int] | None = None,
    unfollowed: int = 0,
    wgmma: bool | None = None,
) -> SharedLayout:
    """The shared-memory layout of `kernel` for either CUDA target class (see shared_layout),
    worked out once per kernel and arguments (callers do not change it). `wgmma` says whether
    the TMA-class target is sm_90a (`wgmma_target`); None: any target of the class."""
    key = ("layout", target_class, tuple(sorted(stages.items())) if stages else (), unfollowed, wgmma)
    known = kernel.derived.get(key)
    if isinstance(known, SharedLayout):
        return known
    if target_class is TargetClass.WARP_SPECIALIZED:
        layout = warp_specialized_layout(kernel, stages, unfollowed, wgmma)
    else:
        layout = shared_layout(kernel, target_class, stages, unfollowed)
    kernel.derived[key] = layout
    return layout


def warp_specialized_layout(
    kernel: Kernel, stages: dict[int, int] | None = None, unfollowed: int = 0, wgmma: bool | None = None
) -> SharedLayout:
    if wgmma is not None:
        return _layout(kernel, stages, unfollowed, wgmma)
    hopper, other = (_layout(kernel, stages, unfollowed, arch) for arch in (True, False))
    if not hopper.sized or not other.sized:
        return hopper if not hopper.sized else other  # not sized on one arch: not sized for the class
    if (hopper.dynamic_bytes, hopper.static_bytes) != (other.dynamic_bytes, other.static_bytes):
        unknown = SharedLayout(TargetClass.WARP_SPECIALIZED, hopper.buffers)
        unknown.undecided.append(
            f"a `T.gemm` is a wgmma on sm_90a ({hopper.total_bytes:,} bytes) but an mma on sm_100a and "
            f"sm_120 ({other.total_bytes:,} bytes), which align its tiles differently: the arch is not known"
        )
        return unknown
    return hopper


def _layout(kernel: Kernel, stages: dict[int, int] | None, unfollowed: int, wgmma: bool) -> SharedLayout:
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
    elif kernel.threads not in BLOCK_SIZES:  # evaluated: a factory's `threads=128` parameter too
        undecided.append(
            "`threads=` is not known to be 128, 256 or 512 (the block sizes measured for this class)"
        )
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
    lifetimes = unmodeled_lifetimes(kernel)
    if lifetimes is not None:
        undecided.append(lifetimes)
    for number, item in enumerate(kernel.body):
        _check_modeled(item, undecided)
        for buffer in _touched(item):
            shared = by_buffer.get(id(buffer))
            if shared is not None:
                first = shared.live[0] if shared.live is not None else number
                shared.live = (first, number)
    if undecided:
        return layout
    staged = _staged_pipelines(kernel, stages, undecided)
    if undecided:
        return layout
    if not staged:
        return _unpipelined(kernel, layout, by_buffer, wgmma)
    if len(staged) > 2 or (len(staged) == 2 and not wgmma):
        undecided.append(
            "the kernel has more than one pipelined loop (a second one gets num_stages x num_stages versions; "
            "measured on sm_90a only, for two)"
        )
        return layout
    loop = _the_pipeline(kernel, staged, undecided)
    if loop is None:
        return layout
    copying = _copying_loops(kernel, staged)
    if copying and not (
        wgmma
        and len(staged) == 1
        and len(copying) == 1
        and isinstance(kernel.body[copying[0]], Loop)
        and copying[0] < _index(kernel, loop)
    ):
        undecided.append(
            "a second loop fills shared memory from global memory (measured only as one loop before the "
            "pipelined one, on sm_90a)"
        )
        return layout
    depth = _depth(loop, stages, undecided)
    if depth is not None and not any(_global_to_shared_copy(inner) for inner, _ in walk(loop.body)):
        # No `T.copy` to make a TMA load of (a `T.Parallel` producer): TileLang pipelines the
        # loop as the cp.async class does, not warp-specialised (measured: no mbarrier).
        assert loop.pipeline is not None
        if loop.pipeline.has_order or loop.pipeline.has_stage or len(staged) > 1 or copying:
            undecided.append(
                "a manual `order=`/`stage=` schedule or a second pipeline beside a `T.Parallel` producer (not measured)"
            )
            return layout
        _version(loop, by_buffer, undecided, depth)
        _prologue_order(kernel, loop, by_buffer)
        return layout if undecided else _unpipelined(kernel, layout, by_buffer, wgmma)
    gemms = _Gemms(kernel, wgmma)
    second: set[int] | None = set()
    if len(staged) > 1:
        second = _second_pipeline(kernel, staged[1], stages, by_buffer, gemms, undecided)
    tma = _tma_loads(loop, by_buffer, undecided)
    if depth is None or not tma or second is None:
        return layout
    _consumers(loop, tma, by_buffer, undecided, gemms)
    plain = {id(s.buffer) for s in layout.buffers if copying and s.live == (copying[0],) * 2}
    for shared in layout.buffers:
        if id(shared.buffer) in plain:
            continue
        if id(shared.buffer) in tma and shared.live != (_index(kernel, loop),) * 2:
            undecided.append(f"the TMA tile `{shared.name}` is used outside the pipeline (not measured)")
        elif id(shared.buffer) in tma:
            shared.versions = depth
        elif shared.live is not None and id(shared.buffer) not in second:
            _outside_alignment(shared, kernel, loop, undecided)
            if len(staged) > 1 and any(b is shared.buffer for b in _touched(staged[1])):
                undecided.append(
                    f"`{shared.name}` is used inside and outside the second pipeline (not measured)"
                )
    if copying and not undecided:
        reason = _copying_loop_first(kernel, copying[0], loop, tma, by_buffer)
        undecided += [reason] if reason else []
    if undecided:
        return layout
    layout.mbarrier_bytes = 2 * depth * MBARRIER_BYTES
    layout.static_bytes = layout.mbarrier_bytes + sum(s.bytes for s in layout.buffers if s.static)
    layout.dynamic_bytes = pack([s for s in layout.buffers if not s.static and s.live is not None])
    return layout


def _staged_pipelines(kernel: Kernel, stages: dict[int, int] | None, undecided: list[str]) -> list[Loop]:
    """The pipelined loops TileLang warp-specialises: all but those of `num_stages=0`, which
    lower as plain loops (measured: the same bytes as `T.serial`)."""
    staged = []
    for _, loop in _pipelines(kernel.body):
        request = loop.pipeline
        assert request is not None
        depth = (stages or {}).get(id(loop), request.stages)
        if request.state is Request.UNKNOWN or request.has_order or request.has_stage or depth != 0:
            staged.append(loop)
    return staged


def _the_pipeline(kernel: Kernel, staged: list[Loop], undecided: list[str]) -> Loop | None:
    """The warp-specialised loop: the first of `staged` (a second is `_second_pipeline`'s)."""
    loop = staged[0]
    if not all(any(item is s for item in kernel.body) for s in staged):
        undecided.append("the pipelined loop is nested in another statement (not measured)")
        return None
    return loop


def _copying_loops(kernel: Kernel, staged: list[Loop]) -> list[int]:
    """The top-level statements besides the pipelines that hold a loop filling shared memory
    from global memory."""
    return [
        number
        for number, item in enumerate(kernel.body)
        if all(item is not s for s in staged)
        and any(_writes_shared_from_global(inner) for inner, _ in walk([item]) if isinstance(inner, Loop))
    ]


def _copying_loop_first(
    kernel: Kernel, number: int, loop: Loop, tma: dict[int, int], by_buffer: dict[int, SharedBuffer]
) -> str | None:
    """A plain copying loop (`T.serial`, `num_stages=0`) before the warp-specialised one
    (measured on sm_90a): warp specialisation splits the body from that loop on into a producer
    and a consumer branch, so the TMA tiles are live from the copying loop to the pipeline and
    taken before the loop's own tiles (used in it alone); those, loaded with plain copies, are
    aligned as in a kernel with no pipeline. Returns why it is not sized, if it is not."""
    own = [s for s in by_buffer.values() if s.live == (number, number)]
    if any(s.live is not None and s.live[0] == number and s not in own for s in by_buffer.values()):
        return "a tile of the copying loop before the pipeline is used after it (not measured)"
    undecided: list[str] = []
    described = _wgmma_operands([kernel.body[number]], _Gemms(kernel, True), by_buffer, undecided)
    if described is None or not all(_plain_alignment(s, kernel, described, undecided) for s in own):
        return undecided[0]
    for key in tma:
        by_buffer[key].live = (number, _index(kernel, loop))
        by_buffer[key].order = -1
    return None


MEASURED_SECOND_STAGES = 3  # the deepest second pipeline measured


def _second_pipeline(
    kernel: Kernel,
    loop: Loop,
    stages: dict[int, int] | None,
    by_buffer: dict[int, SharedBuffer],
    gemms: _Gemms,
    undecided: list[str],
) -> set[int] | None:
    """A second pipelined loop after the warp-specialised one (sm_90a): TileLang pipelines it
    with cp.async, not warp-specialised (no mbarrier of its own), and its tiles keep num_stages
    x num_stages versions (measured for 1-3 stages); a gemm operand is aligned to 1024 if a
    wgmma (its descriptor), else 16; the prologue fills them one statement after another. Only
    `T.copy` loads of tiles of its own, consumed by `T.gemm`, were measured."""
    request = loop.pipeline
    assert request is not None
    index = _index(kernel, loop)
    depth = (stages or {}).get(id(loop), request.stages)
    if request.has_order or request.has_stage or depth is None or not 1 <= depth <= MEASURED_SECOND_STAGES:
        undecided.append(
            "a second pipelined loop with a manual schedule or `num_stages` other than 1-3 (not measured)"
        )
        return None
    tiles: dict[int, int] = {}
    for number, item in enumerate(loop.body):
        target = _global_to_shared_copy(item)
        shared = by_buffer.get(id(target)) if target is not None else None
        if target is None and not (isinstance(item, Stmt) and item.calls and item.calls[0].api == "gemm"):
            undecided.append(
                "a second pipelined loop holds statements other than copies and gemms (not measured)"
            )
            return None
        if target is not None and (shared is None or shared.static or shared.live != (index, index)):
            undecided.append(
                f"the second pipeline's tile `{target.name}` is not one of its own (not measured)"
            )
            return None
        if shared is not None and id(shared.buffer) in tiles:
            # TileLang: "Multiple writes to overlapping buffer regions detected" (a mutant)
            undecided.append(f"the second pipeline fills `{shared.name}` twice (TileLang rejects it)")
            return None
        if shared is not None:
            tiles[id(shared.buffer)] = number
    operands: set[int] = set()
    for call in _gemm_calls(loop.body):
        gemm = gemms.read(call, by_buffer, undecided)
        if gemm is None:
            return None
        for operand in (gemm.a, gemm.b):
            if id(operand.buffer) not in tiles:
                undecided.append(f"`T.gemm` on `{operand.name}` in the second pipeline is not measured")
                return None
            operand.alignment = DESCRIPTOR_ALIGNMENT if gemm.wgmma else 16
            operands.add(id(operand.buffer))
    if operands != set(tiles):
        undecided.append("a tile of the second pipeline no `T.gemm` reads (not measured)")
        return None
    for key, number in tiles.items():
        by_buffer[key].versions = depth * depth
        by_buffer[key].order = number
    return set(tiles)


def _prologue_order(kernel: Kernel, loop: Loop, by_buffer: dict[int, SharedBuffer]) -> None:
    """A software-pipelined loop's tiles, first used in the order of their statements
    (measured: the prologue's copies are apart in TileLang's liveness)."""
    index = _index(kernel, loop)
    for number, item in enumerate(loop.body):
        for buffer in _touched(item):
            shared = by_buffer.get(id(buffer))
            if (
                shared is not None
                and shared.live is not None
                and shared.live[0] == index
                and not shared.order
            ):
                shared.order = number + 1


def _index(kernel: Kernel, loop: Loop) -> int:
    return next(number for number, item in enumerate(kernel.body) if item is loop)


def _depth(loop: Loop, stages: dict[int, int] | None, undecided: list[str]) -> int | None:
    request = loop.pipeline
    assert request is not None
    if request.state is Request.UNKNOWN:
        undecided.append("a pipeline's schedule is not known statically")
        return None
    manual = request.has_order or request.has_stage
    if manual and not (
        request.num_stages is not None
        and request.stages
        and request.order_values is not None
        and request.stage_values is not None
        and len(request.order_values) == len(request.stage_values) == len(loop.body)
    ):
        undecided.append(
            "a manual `order=`/`stage=` schedule without a literal `num_stages` >= 1 (not measured for this class)"
        )
        return None
    # Measured (sm_90a, sm_100a, sm_120): beside `num_stages` >= 1 the warp-specialised pipeline
    # ignores a literal `order=`/`stage=`: the bytes and barriers are num_stages'.
    depth = (stages or {}).get(id(loop), request.stages)
    if depth is None:
        undecided.append("a pipeline's `num_stages` is not a constant")
        return None
    if depth < 1:
        undecided.append("`num_stages` below 1 in a warp-specialised pipeline (not measured)")
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
            why = "a second copy into the tile" if id(copy) in tma else _tma_shape(shared, row)
            undecided.append(f"the copy into `{shared.name}` is not a TMA load measured ({why})")
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
    loop: Loop, tma: dict[int, int], by_buffer: dict[int, SharedBuffer], undecided: list[str], gemms: _Gemms
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
    for call in _gemm_calls(loop.body):
        gemm = gemms.read(call, by_buffer, undecided)
        if gemm is None:
            return
        for operand, continuity in ((gemm.a, gemm.a_continuity), (gemm.b, gemm.b_continuity)):
            if id(operand.buffer) not in tma:
                undecided.append(
                    f"`T.gemm` on `{operand.name}` ({operand.dtype}) is not measured for this class"
                )
                return
            row = continuity * ELEMENT_BYTES[operand.dtype]
            atom = _atom(row)
            if atom is None and row != 16:
                undecided.append(f"the swizzle of `{operand.name}` is not measured")
                return
            operand.alignment = atom or 128  # 16-byte rows: not swizzled, a TMA tile's 128


def _gemm_calls(items: list[Item]) -> Iterator[OpCall]:
    return (c for inner, _ in walk(items) for c in getattr(inner, "calls", ()) if c.api == "gemm")


@dataclass
class _Gemm:
    """A `T.gemm` of two shared tiles, and the extent of each tile's swizzled dimension (in
    elements) that TileLang 0.1.15 gives it (tilelang/cuda/op/gemm/gemm_wgmma.py, gemm_mma.py)."""

    a: SharedBuffer
    b: SharedBuffer
    wgmma: bool
    a_continuity: int
    b_continuity: int


@dataclass
class _Gemms:
    kernel: Kernel
    hopper: bool  # the target lowers a `T.gemm` it allows as a wgmma (sm_90a)

    def read(self, call: OpCall, by_buffer: dict[int, SharedBuffer], undecided: list[str]) -> _Gemm | None:
        found = [by_buffer.get(id(b)) for b in call.operands[:2] if b is not None]
        operands = [o for o in found if o is not None]
        accumulator = call.operands[2] if len(call.operands) == 3 else None
        if len(operands) != 2 or accumulator is None or not accumulator.is_fragment:
            undecided.append("a `T.gemm` tilecheck does not size (operands or keywords not measured)")
            return None
        a, b = operands
        if any(o.dtype not in GEMM_DTYPES or len(o.shape) != 2 for o in operands) or a.dtype != b.dtype:
            bad = next((o for o in operands if o.dtype not in GEMM_DTYPES), b)
            undecided.append(f"`T.gemm` on `{bad.name}` ({bad.dtype}) is not measured for this class")
            return None
        transpose_a, transpose_b = (_flag(call, f"transpose_{n}") for n in "AB")
        m = a.shape[1] if transpose_a else a.shape[0]
        k = a.shape[0] if transpose_a else a.shape[1]
        n = b.shape[0] if transpose_b else b.shape[1]
        k_b = b.shape[1] if transpose_b else b.shape[0]
        c_shape = tuple(int_value(v) for v in accumulator.shape or ())
        if k_b != k or c_shape != (m, n):
            undecided.append("a `T.gemm` whose operand shapes do not match (TileLang rejects it)")
            return None
        threads = self.kernel.threads or 0
        wgmma = self.hopper and m >= WGMMA_MIN_M and k % 16 == 0 and threads % WARPGROUP == 0
        if wgmma and accumulator.dtype != "float32":
            undecided.append(
                f"the accumulator `{accumulator.name}` of a wgmma is not float32 (not measured for this class)"
            )
            return None
        warps = threads // 32
        if not wgmma:  # an mma: each tile swizzled by its own rows (make_swizzled_layout)
            if not any(
                warps % w == 0 and m % (16 * w) == 0 and n % (8 * warps // w) == 0
                for w in range(1, warps + 1)
            ):
                # ComputeDefaultWarpPartition: "No valid warp partition for T.gemm"
                undecided.append("no warp partition covers the `T.gemm` (TileLang rejects it)")
                return None
            return _Gemm(a, b, False, a.shape[-1], b.shape[-1])
        # Warp groups side by side along N (ComputeWgmmaWarpPartition, Square: 4 x 2 warps for 256,
        # 4 x 4 for 512).
        groups = threads // WARPGROUP
        if groups > 1 and (n % (groups * 8) or m % (4 * 16)):
            undecided.append("a wgmma's warp partition is not measured for this shape")
            return None
        gemm = _Gemm(a, b, True, 64 if transpose_a else k, k if transpose_b else _wgmma_n(n // groups))
        if _atom(gemm.b_continuity * ELEMENT_BYTES[b.dtype]) is None:
            # measured with 512 threads and N=32: "Not a canonical GMMA_MN layout"
            undecided.append(f"the wgmma tile `{b.name}` would not be swizzled (TileLang rejects it)")
            return None
        return gemm


def _wgmma_n(columns: int) -> int:
    """`select_wgmma_inst_n`: the widest wgmma N (a multiple of 16 up to 256) tiling `columns`."""
    fallback = math.gcd(columns, 256)
    if columns % 16:
        return fallback
    return next((c for c in range(256, fallback, -16) if columns % c == 0), fallback)


def _flag(call: OpCall, keyword: str) -> bool:
    import libcst as cst

    node = call.site.node
    for arg in node.args if isinstance(node, cst.Call) else ():
        if arg.keyword is not None and arg.keyword.value == keyword:
            return isinstance(arg.value, cst.Name) and arg.value.value == "True"
    return False


def _unpipelined(
    kernel: Kernel, layout: SharedLayout, by_buffer: dict[int, SharedBuffer], hopper: bool
) -> SharedLayout:
    """A kernel TileLang does not warp-specialise (no pipelined loop, `num_stages=0`, or a
    pipeline with no `T.copy`, versioned by the cp.async class's rule): its copies are not
    TMA loads and no mbarrier is allocated; a tile is aligned to 16 bytes, a wgmma
    operand to 1024 (sm_90a: its descriptor, with no TMA load to give the swizzle's), an epilogue
    tile to its swizzle atom (a TMA store)."""
    undecided = layout.undecided
    described = _wgmma_operands(kernel.body, _Gemms(kernel, hopper), by_buffer, undecided)
    if described is None:
        return layout
    for shared in layout.buffers:
        if shared.live is not None and not _plain_alignment(shared, kernel, described, undecided):
            return layout
    layout.static_bytes = sum(s.bytes for s in layout.buffers if s.static)
    layout.dynamic_bytes = pack([s for s in layout.buffers if not s.static and s.live is not None])
    return layout


def _wgmma_operands(
    items: list[Item], gemms: _Gemms, by_buffer: dict[int, SharedBuffer], undecided: list[str]
) -> set[int] | None:
    """The tiles (`id(buffer)`) the gemms of `items` read as a wgmma; None: a gemm not sized."""
    described: set[int] = set()
    for call in _gemm_calls(items):
        gemm = gemms.read(call, by_buffer, undecided)
        if gemm is None:
            return None
        if gemm.wgmma:
            described |= {id(gemm.a.buffer), id(gemm.b.buffer)}
    return described


def _plain_alignment(shared: SharedBuffer, kernel: Kernel, described: set[int], undecided: list[str]) -> bool:
    """A tile no TMA load fills: 16, a wgmma operand 1024, an epilogue tile its swizzle atom."""
    roles = _roles(shared, kernel)
    atom = _swizzle_atom(shared)
    if roles <= {"load", "element", "gemm"}:
        shared.alignment = DESCRIPTOR_ALIGNMENT if id(shared.buffer) in described else 16
    elif roles == {"from fragment", "to global"} and atom is not None and not shared.static:
        shared.alignment, shared.tma_store = atom, True
    else:
        undecided.append(f"`{shared.name}` is used in a way not measured for this class")
        return False
    return True


def _outside_alignment(shared: SharedBuffer, kernel: Kernel, loop: Loop, undecided: list[str]) -> None:
    """A buffer outside the pipeline: an epilogue tile (a fragment copied in, copied out to
    global memory) is swizzled; one filled by a plain copy or element stores is aligned to 16."""
    if any(b is shared.buffer for b in _touched(loop)):
        undecided.append(
            f"`{shared.name}` is used in the pipeline but is not one of its TMA tiles (not measured)"
        )
        return
    roles = _roles(shared, kernel)
    if roles <= {"load", "element"}:
        shared.alignment = 16
        return
    atom = _swizzle_atom(shared)
    if roles == {"from fragment", "to global"} and atom is not None and not shared.static:
        shared.alignment, shared.tma_store = atom, True
        return
    undecided.append(f"`{shared.name}` outside the pipeline is used in a way not measured for this class")


def _roles(shared: SharedBuffer, kernel: Kernel) -> set[str]:
    """How the kernel uses a buffer: `load` (a copy from global memory), `element` (loads and
    stores), `from fragment`, `to global`, `gemm` (an operand), or another call's name."""
    roles: set[str] = set()
    for inner, _ in walk(kernel.body):
        if not isinstance(inner, Stmt):
            continue
        if any(a.buffer is shared.buffer for a in inner.accesses):
            roles.add("element")
        for call in inner.calls:
            if any(b is shared.buffer for b in call.operands):
                roles.add(_role(call.api, call.operands, shared.buffer))
    return roles


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


def _tma_shape(shared: SharedBuffer, row: int) -> str:
    """What about a tile's shape keeps its copy from the TMA loads measured."""
    if len(shared.shape) != 2:
        return f"a {len(shared.shape)}-D tile"
    if any(d > TMA_MAX_BOX for d in shared.shape):
        return f"a dimension over {TMA_MAX_BOX} elements"
    return f"{row}-byte rows"


def _row_bytes(shared: SharedBuffer) -> int:
    return shared.shape[-1] * ELEMENT_BYTES[shared.dtype] if len(shared.shape) == 2 else 0


def _swizzle_atom(shared: SharedBuffer) -> int | None:
    return _atom(_row_bytes(shared))


def _atom(row: int) -> int | None:
    """The alignment of a tile swizzled over `row` bytes (SwizzleMode::SmemAlignment); None:
    not swizzled."""
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
