from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade, Severity
from tilecheck.tilelang.measured import LAYOUT_RELEASES, opts_out
from tilecheck.tilelang.queries import factory_call_text
from tilecheck.tilelang.shared_memory import (
    SIZED_CLASSES,
    SharedBuffer,
    SharedLayout,
    TargetClass,
    compiled_static_bytes,
    kernel_launch,
    pipelines,
    target_class,
    unfollowed_calls,
)
from tilecheck.tilelang.sizing import profile_layout, profile_wgmma, strips_stages
from tilecheck.tilelang.versions import names
from tilecheck.tilelang.warp_specialized import kernel_layout

from ._loops import backend, line

if TYPE_CHECKING:
    from tilecheck.backends import Profile
    from tilecheck.core.types import Related
    from tilecheck.lint.context import Context
    from tilecheck.tilelang.model import Kernel, Loop, Site

_GEMM = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024, 1024), "float16"), B: T.Tensor((1024, 1024), "float16"), C: T.Tensor((1024, 1024), "float16")):
    with T.Kernel(8, 8, threads=128) as (bx, by):
        A_s = T.alloc_shared((128, 64), "float16")
        B_s = T.alloc_shared((64, 128), "float16")
        C_l = T.alloc_fragment((128, 128), "float32")
        T.clear(C_l)
        for k in T.Pipelined(16, num_stages=STAGES):
            T.copy(A[by * 128, k * 64], A_s)
            T.copy(B[k * 64, bx * 128], B_s)
            T.gemm(A_s, B_s, C_l)
        T.copy(C_l, C[by * 128, bx * 128])
"""
_TMA_BOUNDARY = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024, 1024), "float16"), B: T.Tensor((1024, 1024), "float16"), C: T.Tensor((1024, 1024), "float16"), X: T.Tensor((1024,), "int8")):
    with T.Kernel(1024 // BN, 1024 // BM, threads=128) as (bx, by):
        A_s = T.alloc_shared((BM, BK), "float16")
        B_s = T.alloc_shared((BK, BN), "float16")
        C_l = T.alloc_fragment((BM, BN), "float32")
        X_s = T.alloc_shared((1, PAD), "int8", scope="shared")
        X_s[0, 0] = X[bx]
        T.clear(C_l)
        for k in T.Pipelined(1024 // BK, num_stages=4):
            T.copy(A[by * BM, k * BK], A_s)
            T.copy(B[k * BK, bx * BN], B_s)
            T.gemm(A_s, B_s, C_l)
        for i, j in T.Parallel(BM, BN):
            C_l[i, j] += X_s[0, 0]
        T.copy(C_l, C[by * BM, bx * BN])
"""


# A warp-specialised GEMM whose epilogue tile `C_s` decides the arena (65,536 B after a 30-byte
# `O_s` that stays live) beside a static array of PAD bytes. TileLang 0.1.15 (sm_90a) stores
# `C_s` with TMA where `C`'s rows are a multiple of 16 bytes (`C_s` aligned to its 1,024-byte
# swizzle atom: 66,560 B dynamic) and plainly where they are not (WIDTH 510: aligned to 16,
# 65,568 B). With PAD 166,000 the limit (232,448) lies between the two; tilecheck does not model
# which store TileLang picks, so it proves nothing there.
_EPILOGUE_STORE = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((512, 512), "float16"), B: T.Tensor((512, 512), "float16"), C: T.Tensor((512, WIDTH), "float16")):
    with T.Kernel(2, 4, threads=128) as (bx, by):
        A_s = T.alloc_shared((128, 16), "float16")
        B_s = T.alloc_shared((16, 256), "float16")
        C_l = T.alloc_fragment((128, 256), "float32")
        C_s = T.alloc_shared((128, 256), "float16")
        O_s = T.alloc_shared((3, 5), "float16")
        P_s = T.alloc_shared((1, PAD), "int8", scope="shared")
        T.clear(C_l)
        T.copy(A[by * 128, 0], O_s)
        T.copy(A[0, 0], P_s)
        for k in T.Pipelined(32, num_stages=1):
            T.copy(A[by * 128, k * 16], A_s)
            T.copy(B[k * 16, bx * 256], B_s)
            T.gemm(A_s, B_s, C_l)
        for i, j in T.Parallel(128, 256):
            C_l[i, j] += O_s[0, 0] + P_s[0, 0]
        T.copy(C_l, C_s)
        T.copy(C_s, C[by * 128, bx * 256])
        C[0, 0] = O_s[0, 0]
"""


def _epilogue_store(pad: int, width: int) -> str:
    return _EPILOGUE_STORE.replace("PAD", str(pad)).replace("WIDTH", str(width))


def _tma(pad: int, *, large: bool, serial: bool = False) -> str:
    """A warp-specialised GEMM and a static array of `pad` bytes. TileLang 0.1.15 (sm_90a,
    sm_100a, sm_120): large tiles 196,608 B dynamic + 64 B of mbarriers; small 49,152 + 64.
    `serial`: the loop a `T.serial`, which TileLang does not warp-specialise: large tiles
    49,152 B dynamic (one version each), no mbarrier."""
    tiles = {"BM": "128", "BN": "256", "BK": "64"} if large else {"BM": "64", "BN": "128", "BK": "32"}
    source = _TMA_BOUNDARY.replace("PAD", str(pad))
    if serial:
        source = source.replace("T.Pipelined(1024 // BK, num_stages=4)", "T.serial(1024 // BK)")
    for name, value in tiles.items():
        source = source.replace(name, value)
    return source


_ONE_BUFFER = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024, 1024), "int8")):
    with T.Kernel(8, threads=128) as bx:
        S = T.alloc_shared((1, BYTES), "int8")
        S[0, 0] = A[bx, 0]
        A[bx, 1] = S[0, 0]
"""

_STATIC = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024, 1024), "float16"), B: T.Tensor((1024, 1024), "float16")):
    with T.Kernel(4, threads=128) as bx:
        S = T.alloc_shared((ROWS, 128), "float16", scope="shared")
        T.copy(A[bx * ROWS, 0], S)
        T.copy(S, B[bx * ROWS, 0])
"""
# Two static arrays whose lifetimes do not overlap: TileLang 0.1.15 keeps both (`half_t S1[16384]`,
# `half_t S2[16384]`), and tilelang.compile for sm_80 fails: "0x10000 bytes, 0xc000 max".
_STATIC_TWICE = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024, 1024), "float16"), B: T.Tensor((1024, 1024), "float16")):
    with T.Kernel(8, threads=128) as bx:
        S1 = T.alloc_shared((128, 128), "float16", scope="shared")
        S2 = T.alloc_shared((128, 128), "float16", scope="shared")
        T.copy(A[bx * 128, 0], S1)
        T.copy(S1, B[bx * 128, 0])
        T.copy(B[bx * 128, 128], S2)
        T.copy(S2, A[bx * 128, 128])
"""
_STATIC_SCALAR = _ONE_BUFFER.replace('"int8")', '"int8", scope="shared")')

# A factory built twice, once too large (tests/test_smem_review.py draws its explain tables).
FACTORY = """import tilelang.language as T


def make(n):
    @T.prim_func
    def main(A: T.Tensor((1024, 1024), "int8")):
        with T.Kernel(8, threads=128) as bx:
            S = T.alloc_shared((1, n), "int8")
            S[0, 0] = A[bx, 0]
            A[bx, 1] = S[0, 0]

    return main


fits = make(101376)
too_large = make(101377)
"""


class SharedMemoryExceedsLimit(Rule):
    """A kernel needs more shared memory per thread block than the selected GPU allows.

    ## What it does
    With a CUDA or HIP backend selected whose profile gives `shared_memory_per_block`, sizes each
    `T.Kernel` the way TileLang 0.1.15 lowers it (the `dyn_shared_memory_buf` arena plus the
    static `__shared__` arrays) and reports the kernel when the total exceeds the limit. The
    diagnostic is at the `T.Kernel` call; the largest buffers are related locations at their
    `T.alloc_shared`, with shape x dtype x versions.

    How the bytes add up: each `T.alloc_shared` takes `prod(shape) x element size` per
    version; a buffer filled from global memory inside `T.Pipelined(..., num_stages=S)` keeps
    `S` versions (a manual `stage=` list: one per stage between its writer and its last
    reader); a buffer never accessed takes nothing; buffers whose lifetimes (in top-level
    statements) do not overlap share space, so an epilogue tile reuses the pipeline's; with
    two or more buffers each offset and the arena's end are aligned to 16 bytes.
    `scope="shared"` buffers and bool tiles are static arrays outside the arena and count
    against the same limit. `T.use_swizzle` and `T.annotate_layout` change no byte count. A `T.reduce_*` across warps adds a shared workspace, so a reduction
    is sized only when it provably stays inside each warp: along the last axis of a 2-D
    accumulator that only `T.gemm(..., policy=T.GemmWarpPolicy.FullRow)` writes, with 16 rows
    per warp (flash attention's row max and sum; on the cp.async class: sm_80, sm_86, sm_87,
    sm_89).

    On the warp-specialised targets (sm_90a, sm_100a, sm_120) TileLang lays the kernel out
    differently: a `T.copy` from global memory in the pipelined loop is a TMA load whose tile
    keeps `num_stages` versions; the pipeline adds a static array of 2 x `num_stages`
    mbarriers of 8 bytes; a tile swizzled for `T.gemm` (or an epilogue tile) is aligned to its
    swizzle atom (rows a multiple of 128 bytes: 1,024; of 64: 512; of 32: 256), another TMA
    tile to 128, anything else to 16, and the arena is packed best-fit, the larger buffers
    first. A kernel with no pipelined loop (or `num_stages=0`) is not warp-specialised: one
    version of every tile, no mbarrier, the tiles aligned to 16, except a gemm's on sm_90a,
    where it is a wgmma (at least 64 rows): 1,024; nor is a pipeline filled by a `T.Parallel`
    producer, whose tiles are versioned as on the cp.async targets. With 256 (512) threads a
    wgmma's two (four) warp groups split N, so on sm_90a a `B` tile not transposed is swizzled
    over a half (a quarter) of its columns. A manual `order=`/`stage=` beside `num_stages` >= 1 changes nothing there; on
    sm_90a a second pipelined gemm loop is not warp-specialised, its tiles keeping num_stages x
    num_stages versions. Only the kernels whose layout was measured are sized there: one
    `T.Pipelined` loop with `num_stages` >= 1 fed by TMA copies or by `T.Parallel` producers
    only (on sm_90a a second one of copies and gemms, or a plain copying loop before it, whose
    TMA tiles then live from that loop on), or no pipelined loop; float16/bfloat16 gemms;
    `threads=128`, `256` or `512`.

    Static `__shared__` arrays have a limit of their own that the CUDA compiler enforces:
    49,152 bytes on the targets TileLang compiles with a plain `-arch=sm_XY` (sm_80, sm_86,
    sm_87, sm_89; from compute capability 9.0 TileLang compiles for the arch-specific `sm_90a`,
    `sm_100a`, `sm_120a`, which take more). A kernel whose static arrays (`scope="shared"`
    buffers, bool tiles) exceed it is reported even when the block's budget holds them: ptxas
    rejects it ("uses too much shared data (0xc100 bytes, 0xc000 max)"). Two static arrays
    are two arrays even when their lifetimes do not overlap (TileLang 0.1.15 does not reuse
    them). Only arrays a tile op reads in full (`T.copy`'s source, `T.gemm`'s operands) count
    there, since the compiler shrinks an array read only at constant indices.

    HIP lays LDS out as the cp.async class does (measured with TileLang 0.1.15 on 97 generated
    and hand-written kernels and on TileLang's own examples and tests): gfx950 byte for byte; gfx942, which
    strips `num_stages`, with one version of every buffer, so the help there never suggests
    fewer stages. Not sized on HIP: a reduction (the no-workspace proof is for CUDA's 32-thread
    warps); on gfx942 a manual `order=`/`stage=` schedule, which it keeps, and a pipelined
    loop whose tiles would reuse the space of an earlier statement's (TileLang kept them apart).

    Not reported: kernels whose size tilecheck cannot decide (a symbolic or unresolved shape
    or dtype, a manual schedule that is not a literal list, code it does not model, more than
    one `T.Kernel` in a function, a loop of fewer than two iterations, which TileLang removes,
    shared memory used inside a block statement (`T.sblock`), where TileLang plans the arena
    statement by statement, a shape with a dimension that is not positive,
    a pipeline filled by a tile op other than `T.copy`, such as `T.im2col`, by a `T.Parallel`
    loop that stores a computed value (a scale, a bounds mask, a `T.max`) rather than a load or a
    cast of one (TileLang then keeps fewer versions of the tile), or by a statement that also
    reads the tile it fills, such as a runtime `if` around the copy and the gemm, a runtime `if`
    over several statements that use shared buffers (TileLang lets them share space inside it),
    a serial loop after the pipeline that uses shared memory (TileLang does not give it the
    pipeline's space), a manual `T.annotate_ws_schedule`, another reduction; on the warp-specialised targets also any other pipeline
    shape, a `T.Parallel` producer beside a TMA copy, a manual schedule without `num_stages`,
    another block size, `pass_configs` on the kernel, or, when the profile names no arch, a
    kernel whose size differs between sm_90a and the other two, or one over the limit only by
    the alignment of an epilogue tile: TileLang stores such a tile with TMA, aligned to its
    swizzle atom, only where the global tensor allows it, and plainly, aligned to 16, where it
    does not, such as rows that are not a multiple of 16 bytes),
    files that pass a pass config changing the layout (`tl.disable_shared_memory_reuse`,
    `tl.enable_aggressive_shared_memory_merge`; on the warp-specialised targets also
    `tl.disable_warp_specialized`, `tl.disable_tma_lower`), kernels under `@autotune` (the
    build that runs is the tuner's choice), kernels whose `@tilelang.jit(target=...)` pins
    another target than the selected backend's, profiles without a budget, and anything with no
    backend selected (`--select TL501` then warns that it checked no kernel). Never on
    Metal or WebGPU: their profiles carry the budget, but TileLang lays out (or fails to
    lower) their kernels unlike either class, so `explain` and the hover say "not sized on
    metal: ..." instead.

    ## Why is this bad?
    TileLang lowers such a kernel without a word; it fails only when it is initialised on
    the GPU, as `cudaFuncSetAttribute` refuses the dynamic shared memory size (`Failed to set
    the allowed dynamic shared memory size`, [`tilelang/jit/adapter/wrapper.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/jit/adapter/wrapper.py)).
    The per-block limits are NVIDIA's (CUDA C++ Programming Guide, technical specifications
    per compute capability): 166,912 bytes on sm_80 and sm_87, 101,376 on sm_86, sm_89 and
    sm_120, 232,448 on sm_90 and sm_100. AMD's LDS (ROCm, GPU hardware specifications): 65,536
    bytes on gfx942 (MI300), 163,840 on gfx950 (MI350). A tile configuration tuned on an A100
    or an H100 fails on an RTX 4090, an L4 or an A10.

    ## Example
    ```python
    A_s = T.alloc_shared((128, 64), "float16")   # 16,384 bytes per version
    B_s = T.alloc_shared((64, 128), "float16")   # 16,384 bytes per version
    for k in T.Pipelined(16, num_stages=4):       # 4 versions of each: 131,072 bytes
        T.copy(A[by * 128, k * 64], A_s)
        T.copy(B[k * 64, bx * 128], B_s)
        T.gemm(A_s, B_s, C_l)
    ```
    Under `--backend cuda-sm86`: (16,384 + 16,384) x 4 = 131,072 bytes, the limit is 101,376.

    With `scope="shared"` the same tiles are static arrays: under `--backend cuda-sm80`, one
    `T.alloc_shared((193, 128), "float16", scope="shared")` copied in and out needs 49,408
    bytes, over ptxas's 49,152 for static arrays, though well within the block's 166,912.

    ## Use instead
    ```python
    for k in T.Pipelined(16, num_stages=3):       # (16,384 + 16,384) x 3 = 98,304 bytes
        ...
    ```
    Fewer stages, or smaller tiles (`block_K = 32` halves both buffers). The help names the
    largest `num_stages` that fits, or the buffer to shrink. For static arrays over the
    compiler's limit, drop `scope="shared"`: the default scope, `shared.dyn`, is the arena the
    block's budget applies to.

    Under `--backend cuda-sm120` the same kernel needs 131,072 + 64 (mbarriers) = 131,136
    bytes against 101,376; `num_stages=3` needs 98,304 + 48 = 98,352.

    ## Backends
    Reported under every CUDA profile with a budget: the cp.async ones (`cuda-sm80`,
    `cuda-sm86`, `cuda-sm87`, `cuda-sm89`) and the warp-specialised ones (`cuda-sm90`, `cuda-sm100`,
    `cuda-sm120`, for the kernels whose layout is sized); and on `hip-gfx942` (one version per
    buffer) and `hip-gfx950`. Not on `metal` and `webgpu` (a budget, but not sized), nor on
    `cpu` and `ascend` (no budget in their profiles).
    The static-array limit is checked under `cuda-sm80`, `cuda-sm86`, `cuda-sm87` and
    `cuda-sm89` (`static_shared_memory_per_block` in their profiles).

    The layouts were measured with TileLang 0.1.14 and 0.1.15 (the default `tilelang-version`
    range). A project whose range holds another release gets the report as a note that says
    the size was not measured for it.
    """

    CODE = "TL501"
    NAME = "shared-memory-exceeds-limit"
    GRADE = Grade.CONTRACT
    HELP = "Lower num_stages or shrink the largest shared tiles until the kernel fits the target's limit."
    CHECKLIST = Checklist(
        grade="Contract: the kernel is legal TileLang and lowers; the selected GPU cannot launch it, because "
        "its shared memory per block exceeds the target's opt-in limit.",
        shape="A device kernel (T.Kernel) whose merged dyn_shared_memory_buf plus static __shared__ arrays, "
        "after pipeline versioning and lifetime reuse, exceeds the profile's shared_memory_per_block.",
        smallest_invalid='One `T.alloc_shared((1, 101377), "int8")` that is used, under --backend cuda-sm86.',
        closest_valid='`T.alloc_shared((1, 101376), "int8")`: exactly the limit fits.',
        siblings="Buffers used by sibling top-level statements whose lifetimes do not overlap share space.",
        neutral_wrappers="Loops and blocks do not change the size; only top-level statements bound a lifetime.",
        generated_ir="Sized from the lowered layout TileLang would produce (versions, reuse, alignment), "
        "checked byte for byte against TileLang 0.1.15 by the oracle.",
        proof="Proven when every shared buffer's shape and dtype are constants and every pipeline schedule is "
        "known; any undecidable part and the size is not reported.",
        first_pass="MergeSharedMemoryAllocations sizes the arena; the launch (cudaFuncSetAttribute) rejects it.",
        rewrite="The largest num_stages that fits, else shrink the largest buffer.",
    )
    VALID = [
        Valid(_GEMM.replace("STAGES", "4")),
        Valid(_GEMM.replace("STAGES", "3"), backend="cuda-sm86"),
        Valid(_GEMM.replace("STAGES", "4"), backend="cuda-sm80"),
        Valid(_GEMM.replace("STAGES", "4"), backend="cuda-sm90"),
        Valid(_GEMM.replace("STAGES", "4"), backend="hip-gfx942"),
        Valid(_ONE_BUFFER.replace("BYTES", "65536"), backend="hip-gfx942"),
        Valid(_ONE_BUFFER.replace("BYTES", "163840"), backend="hip-gfx950"),
        Valid(_ONE_BUFFER.replace("BYTES", "163841"), backend="metal"),
        Valid(_ONE_BUFFER.replace("BYTES", "163841"), backend="webgpu"),
        Valid(_ONE_BUFFER.replace("BYTES", "101376"), backend="cuda-sm86"),
        Valid(_epilogue_store(166000, 510), backend="cuda-sm90"),  # TileLang: 231,584 bytes
        Valid(_epilogue_store(166000, 512), backend="cuda-sm90"),  # not proven (TileLang: 232,576)
        Valid(_ONE_BUFFER.replace("BYTES", "166912"), backend="cuda-sm80"),
        Valid(_ONE_BUFFER.replace("BYTES", "166912"), backend="cuda-sm87"),
        Valid(_ONE_BUFFER.replace("BYTES", "n"), backend="cuda-sm86"),
        Valid(_GEMM.replace("STAGES", "3"), backend="cuda-sm120"),
        Valid(_GEMM.replace("STAGES", "4").replace("threads=128", "threads=64"), backend="cuda-sm120"),
        # TileLang 0.1.15's tilelang.compile: 49,152 static bytes compile for sm_80; 49,408 compile
        # for sm_90a; an array read only at constant indices is shrunk by the compiler.
        Valid(_STATIC.replace("ROWS", "192"), backend="cuda-sm80"),
        Valid(_STATIC.replace("ROWS", "193"), backend="cuda-sm90"),
        Valid(_STATIC_SCALAR.replace("BYTES", "49153"), backend="cuda-sm80"),
        Valid(_tma(35776, large=True), backend="cuda-sm90"),
        Valid(_tma(35776, large=True), backend="cuda-sm100"),
        Valid(_tma(52160, large=False), backend="cuda-sm120"),
        Valid(_tma(183296, large=True, serial=True), backend="cuda-sm90"),
    ]
    INVALID = [
        Invalid(
            _GEMM.replace("STAGES", "4"),
            at=((6, 10),),
            backend="cuda-sm86",
            message="`T.Kernel` of `main` needs 131,072 bytes of shared memory per block on cuda-sm86, "
            "the limit is 101,376",
        ),
        Invalid(
            _GEMM.replace("STAGES", "6"), at=((6, 10),), backend="cuda-sm80", message="needs 196,608 bytes"
        ),
        Invalid(
            _ONE_BUFFER.replace("BYTES", "101377"), at=((6, 10),), backend="cuda-sm89", message="101,377"
        ),
        Invalid(
            _ONE_BUFFER.replace("BYTES", "166913"), at=((6, 10),), backend="cuda-sm80", message="166,913"
        ),
        Invalid(
            _ONE_BUFFER.replace("BYTES", "166913"),
            at=((6, 10),),
            backend="cuda-sm87",
            message="needs 166,913 bytes of shared memory per block on cuda-sm87, the limit is 166,912",
        ),
        Invalid(
            _GEMM.replace("STAGES", "4"),
            at=((6, 10),),
            backend="cuda-sm120",
            message="needs 131,136 bytes of shared memory per block on cuda-sm120, the limit is 101,376 "
            "(131,072 dynamic + 64 static, 64 of them mbarriers)",
        ),
        Invalid(
            _ONE_BUFFER.replace("BYTES", "65537"),
            at=((6, 10),),
            backend="hip-gfx942",
            message="needs 65,537 bytes of shared memory per block on hip-gfx942, the limit is 65,536",
        ),
        Invalid(
            _ONE_BUFFER.replace("BYTES", "163841"),
            at=((6, 10),),
            backend="hip-gfx950",
            message="needs 163,841 bytes of shared memory per block on hip-gfx950, the limit is 163,840",
        ),
        Invalid(
            FACTORY,
            at=((7, 14),),
            backend="cuda-sm86",
            message="`T.Kernel` of `main` built by `make(n=101377)` needs 101,377 bytes of shared memory per "
            "block on cuda-sm86",
        ),
        Invalid(
            _STATIC.replace("ROWS", "193"),
            at=((6, 10),),
            backend="cuda-sm80",
            message="`T.Kernel` of `main` declares 49,408 bytes of static shared memory on cuda-sm80, the "
            "compiler's limit is 49,152",
        ),
        Invalid(
            _STATIC_TWICE,
            at=((6, 10),),
            backend="cuda-sm89",
            message="declares 65,536 bytes of static shared memory on cuda-sm89, the compiler's limit is 49,152",
        ),
        Invalid(_tma(35777, large=True), at=((6, 10),), backend="cuda-sm90", message="needs 232,449 bytes"),
        Invalid(_tma(35777, large=True), at=((6, 10),), backend="cuda-sm100", message="needs 232,449 bytes"),
        Invalid(_tma(52161, large=False), at=((6, 10),), backend="cuda-sm120", message="needs 101,377 bytes"),
        Invalid(
            _epilogue_store(167000, 512), at=((6, 10),), backend="cuda-sm90", message="needs 233,576 bytes"
        ),
        Invalid(
            _tma(183297, large=True, serial=True),
            at=((6, 10),),
            backend="cuda-sm90",
            message="needs 232,449 bytes",
        ),
    ]

    def check(self, ctx: Context) -> None:
        profile = backend(ctx)
        if profile is None or profile.shared_memory_per_block <= 0:
            return
        kind = target_class(profile.backend, profile.warp_specialization)
        if kind not in SIZED_CLASSES:
            return
        assert kind is not None
        if opts_out(ctx.source, kind):
            return  # a pass config may change the layout (reuse, merging, warp specialisation)
        for kernel in ctx.model.kernels:
            launch = kernel_launch(kernel)
            if launch is None or kernel.conditions:
                continue
            unfollowed = unfollowed_calls(kernel, ctx.model)
            layout = profile_layout(kernel, profile, kind, unfollowed=unfollowed)
            if not layout.sized:
                continue
            builds = [other for other in ctx.model.kernels if other.node is kernel.node]
            call = factory_call_text(kernel, builds) if len(builds) > 1 else None
            what = f"`T.Kernel` of `{kernel.name}`" + (f" built by `{call}`" if call else "")
            if layout.total_bytes > profile.shared_memory_per_block:
                _report_total(ctx, kernel, kind, layout, profile, launch, what)
            elif profile.static_shared_memory_per_block:
                _check_static(ctx, kernel, layout, profile, launch, what)


def _versions(ctx: Context, message: str) -> tuple[str, Severity | None]:
    """A size is proven for the TileLang releases whose layouts were measured: for a project
    whose range holds any other, the report is a note that says so."""
    unmeasured = [version for version in ctx.tilelang.versions if version not in LAYOUT_RELEASES]
    if not unmeasured:
        return message, None
    return (
        f"{message} (sized as TileLang {names(LAYOUT_RELEASES)} lay{'s' if len(LAYOUT_RELEASES) == 1 else ''} "
        f"it out; not measured for {names(unmeasured)})",
        Severity.INFO,
    )


def _related(ctx: Context, buffers: list[SharedBuffer]) -> tuple[Related, ...]:
    return tuple(
        ctx.related(b.buffer.node, b.buffer.top, b.buffer.path, b.describe())
        for b in buffers
        if b.buffer.node is not None and b.buffer.top is not None
    )


def _report_total(
    ctx: Context,
    kernel: Kernel,
    kind: TargetClass,
    layout: SharedLayout,
    profile: Profile,
    launch: Site,
    what: str,
) -> None:
    limit = profile.shared_memory_per_block
    largest = sorted((b for b in layout.buffers if b.bytes), key=lambda b: -b.bytes)[:3]
    message, severity = _versions(
        ctx,
        f"{what} needs {layout.total_bytes:,} bytes of shared memory per block on "
        f"{profile.name}, the limit is {limit:,} ({_arithmetic(layout)})",
    )
    ctx.report(
        launch,
        message,
        severity=severity,
        related=_related(ctx, largest),
        help=_rewrite(ctx, kernel, kind, layout, profile),
        data=_data(layout, layout.total_bytes, limit, profile),
    )


def _check_static(
    ctx: Context, kernel: Kernel, layout: SharedLayout, profile: Profile, launch: Site, what: str
) -> None:
    """Static `__shared__` arrays over ptxas's limit: the kernel does not compile, although the
    block's budget would hold the same bytes as dynamic shared memory."""
    static = compiled_static_bytes(kernel, layout)
    limit = profile.static_shared_memory_per_block
    if static <= limit:
        return
    arrays = sorted((b for b in layout.buffers if b.static and b.bytes), key=lambda b: -b.bytes)
    scoped = [b for b in arrays if b.buffer.scope == "shared"]  # the only arrays counted (no bool tile)
    names = ", ".join(f"`{b.name}`" for b in scoped)
    message, severity = _versions(
        ctx,
        f"{what} declares {static:,} bytes of static shared memory on {profile.name}, the compiler's limit is "
        f'{limit:,}: `scope="shared"` buffers are static `__shared__` arrays, and ptxas rejects the kernel',
    )
    ctx.report(
        launch,
        message,
        severity=severity,
        related=_related(ctx, scoped[:3]),
        help=f'Allocate {names} in dynamic shared memory: drop `scope="shared"` (the dynamic arena may hold '
        f"up to {profile.shared_memory_per_block:,} bytes per block on {profile.name}).",
        data=_data(layout, static, limit, profile, "static"),
    )


def _data(
    layout: SharedLayout, needed: int, limit: int, profile: Profile, kind: str = "block"
) -> tuple[tuple[str, int | str], ...]:
    """The numbers JSON and SARIF carry: the bytes over `limit`, which limit it is (`block`:
    shared memory per block; `static`: the compiler's limit on static arrays), the totals."""
    return (
        ("bytes", needed),
        ("dynamic_bytes", layout.dynamic_bytes),
        ("static_bytes", layout.static_bytes),
        ("limit", limit),
        ("limit_kind", kind),
        ("backend", profile.name),
    )


def _arithmetic(layout: SharedLayout) -> str:
    parts = []
    if layout.dynamic_bytes:
        parts.append(f"{layout.dynamic_bytes:,} dynamic")
    if layout.static_bytes:
        barriers = f", {layout.mbarrier_bytes:,} of them mbarriers" if layout.mbarrier_bytes else ""
        parts.append(f"{layout.static_bytes:,} static{barriers}")
    return " + ".join(parts)


def _rewrite(ctx: Context, kernel: Kernel, kind: TargetClass, layout: SharedLayout, profile: Profile) -> str:
    """The largest uniform num_stages that fits, else the buffer to shrink (num_stages alone
    when the target honours it)."""
    limit = profile.shared_memory_per_block
    staged = (
        []
        if strips_stages(profile)
        else [
            loop
            for loop in pipelines(kernel)
            if loop.pipeline is not None
            and loop.pipeline.stages is not None
            and loop.pipeline.stages > 1
            and not (loop.pipeline.has_order or loop.pipeline.has_stage)
        ]
    )
    deepest = max((loop.pipeline.stages or 0 for loop in staged if loop.pipeline is not None), default=0)
    for stages in range(deepest - 1, 0, -1):
        trial = kernel_layout(
            kernel,
            kind,
            {
                id(loop): min(loop.pipeline.stages or 0, stages)
                for loop in staged
                if loop.pipeline is not None
            },
            wgmma=profile_wgmma(profile),
        )
        static_limit = profile.static_shared_memory_per_block
        if (
            trial.sized
            and trial.total_bytes <= limit
            and not (static_limit and compiled_static_bytes(kernel, trial) > static_limit)
        ):
            where = ", ".join(f"`{_whole_header(ctx, loop)}` (line {line(ctx, loop)})" for loop in staged)
            return (
                f"Use num_stages={stages} on {where}: the kernel then needs {trial.total_bytes:,} bytes, "
                f"within {profile.name}'s {limit:,}; or shrink the tiles."
            )
    largest = max(layout.buffers, key=lambda b: b.bytes)
    over = layout.total_bytes - limit
    return (
        f"Shrink the tiles: the kernel needs {over:,} byte{'' if over == 1 else 's'} less to fit {profile.name}; the largest buffer is "
        f"{largest.describe()}."
    )


def _whole_header(ctx: Context, loop: Loop, limit: int = 80) -> str:
    """The loop constructor as written; a long one shortened at an argument boundary
    (`T.Pipelined(T.ceildiv(K, block_K), ...)`), never inside a word."""
    text = ctx.text(loop.call if loop.call is not None else loop.site.node, 10_000)
    if len(text) <= limit:
        return text
    cut = text.rfind(", ", 0, limit - 5)
    return text[:cut] + ", ...)" if cut > 0 else text.split("(", 1)[0] + "(...)"
