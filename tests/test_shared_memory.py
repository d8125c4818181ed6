"""The shared-memory model sizes kernels as TileLang 0.1.15 does for sm_80.

Every expected number here is TileLang's own `dyn_shared_memory_buf` plus the static
`__shared__` arrays of the kernel lowered for sm_80 (measured with tools/oracle/smem/judge.py).
"""

from __future__ import annotations

import libcst as cst
import pytest

from tests.support import run, write
from tilecheck.tilelang.frontend import analyze
from tilecheck.tilelang.shared_memory import SharedLayout, TargetClass, shared_layout, unfollowed_calls

GEMM = """
import tilelang.language as T

M, N, K = 512, 512, 512


@T.prim_func
def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
    with T.Kernel(N // {bn}, M // {bm}, threads=128) as (bx, by):
        A_s = T.alloc_shared(({bm}, {bk}), "float16"{a_scope})
        B_s = T.alloc_shared(({bk}, {bn}), "float16")
        C_l = T.alloc_fragment(({bm}, {bn}), "float32")
{extra}        T.clear(C_l)
{before}        for k in T.Pipelined(K // {bk}, num_stages={stages}{schedule}):
            T.copy(A[by * {bm}, k * {bk}], A_s)
            T.copy(B[k * {bk}, bx * {bn}], B_s)
            T.gemm(A_s, B_s, C_l)
{after}        T.copy(C_l, C[by * {bm}, bx * {bn}])
"""


def layout(source: str) -> SharedLayout:
    model = analyze(cst.parse_module(source))
    assert len(model.kernels) == 1
    return shared_layout(model.kernels[0], TargetClass.CP_ASYNC)


def gemm(bm: int = 128, bn: int = 128, bk: int = 32, stages: int = 3, **parts: str) -> str:
    values = {"a_scope": "", "extra": "", "before": "", "after": "", "schedule": ""} | parts
    return GEMM.format(bm=bm, bn=bn, bk=bk, stages=stages, **values)


@pytest.mark.parametrize(
    ("stages", "expected"),
    [(0, 16384), (1, 16384), (2, 32768), (3, 49152), (4, 65536)],
)
def test_copy_stages_get_num_stages_versions(stages: int, expected: int) -> None:
    sized = layout(gemm(stages=stages))
    assert sized.sized and sized.static_bytes == 0
    assert sized.dynamic_bytes == expected
    assert [(b.name, b.versions) for b in sized.buffers] == [("A_s", max(stages, 1)), ("B_s", max(stages, 1))]


def test_manual_stage_list_gives_the_versions() -> None:
    # stage=[0, 0, 2]: written in stage 0, read in stage 2: three versions each (TileLang: 24576 B).
    sized = layout(gemm(bm=64, bn=64, bk=32, stages=2, schedule=", order=[0, 1, 2], stage=[0, 0, 2]"))
    assert [(b.name, b.versions) for b in sized.buffers] == [("A_s", 3), ("B_s", 3)]
    assert sized.total_bytes == 24576


def test_epilogue_tile_reuses_the_pipeline_space() -> None:
    # A_s 2048 B, B_s 8192 B, then C_s (64 x 256 half) 32768 B at offset 0: TileLang 32768.
    extra = '        C_s = T.alloc_shared((64, 256), "float16")\n'
    after = "        T.copy(C_l, C_s)\n        T.copy(C_s, C[by * 64, bx * 256])\n"
    sized = layout(gemm(bm=64, bn=256, bk=16, stages=1, extra=extra, after=after))
    assert sized.dynamic_bytes == 32768
    assert [(b.name, b.offset) for b in sized.buffers] == [("A_s", 0), ("B_s", 2048), ("C_s", 0)]


def test_unused_buffer_takes_nothing_and_offsets_align_to_16() -> None:
    # O_s (1 x 7 half, 14 B) lives across the loop: A_s and B_s start at 16 (TileLang: 8208 B).
    extra = (
        '        U_s = T.alloc_shared((64, 64), "float16")\n        O_s = T.alloc_shared((1, 7), "float16")\n'
    )
    before = "        T.copy(A[by * 64, 0], O_s)\n"
    after = "        for i, j in T.Parallel(64, 64):\n            C_l[i, j] += O_s[0, 0]\n"
    sized = layout(gemm(bm=64, bn=64, bk=16, stages=2, extra=extra, before=before, after=after))
    by_name = {b.name: b for b in sized.buffers}
    assert by_name["U_s"].bytes == 0 and by_name["U_s"].live is None
    assert by_name["A_s"].offset == 16
    assert sized.dynamic_bytes == 16 + 4096 + 4096


def test_scope_shared_buffer_is_static_and_versioned() -> None:
    # A_s with scope="shared": a static __shared__ array of 2 versions (TileLang: 16384 static).
    sized = layout(gemm(bm=64, bn=64, bk=64, stages=2, a_scope=', scope="shared"'))
    assert (sized.static_bytes, sized.dynamic_bytes) == (16384, 16384)


def test_parallel_producer_from_global_is_versioned() -> None:
    source = gemm(bm=128, bn=128, bk=16, stages=4).replace(
        "            T.copy(A[by * 128, k * 16], A_s)\n",
        "            for i, j in T.Parallel(128, 16):\n                A_s[i, j] = A[by * 128 + i, k * 16 + j]\n",
    )
    sized = layout(source)
    assert [(b.name, b.versions) for b in sized.buffers] == [("A_s", 4), ("B_s", 4)]


def _parallel_producer(stored: str) -> str:
    """The GEMM with `A_s` filled in the pipeline by a `T.Parallel` loop storing `stored`."""
    return gemm(bm=128, bn=128, bk=16, stages=4).replace(
        "            T.copy(A[by * 128, k * 16], A_s)\n",
        f"            for i, j in T.Parallel(128, 16):\n                A_s[i, j] = {stored}\n",
    )


@pytest.mark.parametrize(
    "stored",
    # TileLang 0.1.15 (sm_80): num_stages versions of the tile for a load and for a cast of one
    [
        "A[by * 128 + i, k * 16 + j]",
        'T.cast(A[by * 128 + i, k * 16 + j], "float16")',
        'A[by * 128 + i, k * 16 + j].astype("float16")',
    ],
)
def test_a_parallel_producer_storing_a_load_or_its_cast_is_versioned(stored: str) -> None:
    sized = layout(_parallel_producer(stored))
    assert [(b.name, b.versions) for b in sized.buffers] == [("A_s", 4), ("B_s", 4)]


@pytest.mark.parametrize(
    "stored",
    # TileLang 0.1.15 keeps one version of `A_s` for each of these where a load keeps num_stages
    # (measured on sm_80, sm_86, sm_90a, sm_100a and sm_120: a scale, a bounds mask, T.max)
    [
        "A[by * 128 + i, k * 16 + j] * 2",
        "T.if_then_else(k * 16 + j < K, A[by * 128 + i, k * 16 + j], 0)",
        "T.max(A[by * 128 + i, k * 16 + j], 0)",
    ],
)
def test_a_parallel_producer_storing_a_computed_value_is_not_sized(stored: str) -> None:
    assert layout(_parallel_producer(stored)).undecided == [
        "a pipelined loop stores a computed value into `A_s`, not a plain load: TileLang does not version "
        "such a tile as a copied one (not modeled)"
    ]


IF_BLOCK = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((4096, 256), "float16"), C: T.Tensor((4096, 256), "float16"), D: T.Tensor((4096, 256), "float16")):
    with T.Kernel(32, threads=128) as bx:
        X_s = T.alloc_shared((128, 256), "float16")
        Y_s = T.alloc_shared((128, 256), "float16")
        if bx < 16:
            T.copy(A[bx * 128, 0], X_s)
            T.copy(X_s, C[bx * 128, 0])
            T.copy(A[bx * 128, 0], Y_s)
            T.copy(Y_s, D[bx * 128, 0])
"""


def test_a_runtime_if_over_several_statements_that_use_shared_memory_is_not_sized() -> None:
    """TileLang 0.1.15 (sm_86, gfx942) lets `X_s` and `Y_s` share space inside the `if`: 65,536 B,
    where the `if` as one statement gives 131,072."""
    assert layout(IF_BLOCK).undecided == [
        "a runtime `if` holds several statements that use shared buffers (TileLang plans space inside it "
        "statement by statement: not modeled)"
    ]
    one = IF_BLOCK.replace(
        "            T.copy(A[bx * 128, 0], Y_s)\n            T.copy(Y_s, D[bx * 128, 0])\n", ""
    )
    assert layout(one).sized


_SERIAL = (
    "        for r in T.serial(2):\n"
    "            T.copy(E[by * 128, r * 128], E_s)\n"
    "            T.copy(E_s, E[by * 128, r * 128])\n"
)
_E = {"extra": '        E_s = T.alloc_shared((128, 128), "float16")\n'}


def test_a_serial_loop_after_the_pipeline_that_uses_shared_memory_is_not_sized() -> None:
    """TileLang 0.1.15 (sm_80, sm_86) does not give such a loop's tile the pipeline's space."""
    source = gemm(stages=3, after=_SERIAL, **_E).replace(
        'C: T.Tensor((M, N), "float16")', 'C: T.Tensor((M, N), "float16"), E: T.Tensor((M, 256), "float16")'
    )
    assert layout(source).undecided == [
        "a serial loop after the pipelined one uses shared memory (TileLang does not give it the "
        "pipeline's space: not modeled)"
    ]
    before = gemm(stages=3, before=_SERIAL, **_E).replace(
        'C: T.Tensor((M, N), "float16")', 'C: T.Tensor((M, N), "float16"), E: T.Tensor((M, 256), "float16")'
    )
    assert layout(before).sized  # before the pipeline, its space is reused (measured)


def test_symbolic_shape_is_not_sized() -> None:
    source = gemm().replace('(128, 32), "float16"', '(T.dynamic("m"), 32), "float16"')
    sized = layout(source)
    assert not sized.sized
    assert sized.undecided == ["the shape of `A_s` is not a constant"]


def test_unresolved_dtype_is_not_sized() -> None:
    source = gemm().replace(
        'B_s = T.alloc_shared((32, 128), "float16")', "B_s = T.alloc_shared((32, 128), dt)"
    )
    sized = layout(source)
    assert sized.undecided == ["the dtype of `B_s` is not a constant tilecheck knows (unresolved)"]


def test_a_dtype_held_in_a_module_constant_is_sized() -> None:
    """`dtype = T.float16` at module level, used as the allocation's dtype (a common idiom)."""
    source = gemm().replace(
        'B_s = T.alloc_shared((32, 128), "float16")', "B_s = T.alloc_shared((32, 128), dt)"
    )
    source = source.replace(
        "import tilelang.language as T\n", "import tilelang.language as T\n\ndt = T.float16\n", 1
    )
    sized, literal = layout(source), layout(gemm())
    assert sized.undecided == []
    rows = [
        [(b.name, b.dtype, b.bytes, b.versions, b.offset) for b in one.buffers] for one in (sized, literal)
    ]
    assert rows[0] == rows[1] == [("A_s", "float16", 24576, 3, 0), ("B_s", "float16", 24576, 3, 24576)]
    assert sized.dynamic_bytes == literal.dynamic_bytes == 49152


def test_a_reduction_is_not_sized() -> None:
    """TileLang adds a shared workspace for a reduction across threads (512 B on a measured
    `T.reduce_sum` kernel) that the model does not size: not decidable, so never a TL501."""
    source = gemm(
        extra='        R = T.alloc_fragment((128,), "float32")\n',
        after="        T.reduce_sum(C_l, R, dim=1)\n",
    )
    assert layout(source).undecided == [
        "`T.reduce_sum` may allocate a shared workspace tilecheck does not model"
    ]


def test_the_cp_async_planner_leaves_the_warp_specialized_class_to_its_own() -> None:
    model = analyze(cst.parse_module(gemm()))
    sized = shared_layout(model.kernels[0], TargetClass.WARP_SPECIALIZED)
    assert not sized.sized
    assert sized.undecided == [
        "this class's layout (TMA buffers, versions, mbarriers) is planned by warp_specialized.kernel_layout"
    ]


def test_explain_prints_the_table_per_target_class(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    extra = (
        '        U_s = T.alloc_shared((64, 64), "float16")\n        O_s = T.alloc_shared((1, 7), "float16")\n'
    )
    before = "        T.copy(A[by * 64, 0], O_s)\n"
    after = "        for i, j in T.Parallel(64, 64):\n            C_l[i, j] += O_s[0, 0]\n"
    write(tmp_path, {"k.py": gemm(bm=64, bn=64, bk=16, stages=2, extra=extra, before=before, after=after)})
    outcome = run(capsys, "explain", "k.py", "--backend", "cuda-sm86", "--isolated")
    assert outcome.status == 0, outcome.err
    lines = outcome.out.splitlines()
    start = lines.index("kernel main  (line 8)") + 1
    # sm_90a (TileLang's plan): O_s at 0, A_s at 256 (its 256-byte swizzle atom), B_s at 5,120
    # (1,024); 9,216 B dynamic and a 32-byte mbarrier_mem; sm_100a and sm_120 the same.
    assert lines[start : start + 11] == [
        "  shared memory per block, cp.async (sm_80, sm_86, sm_87, sm_89, gfx950): 8,208 bytes (8,208 dynamic + 0 static); "
        "the limit on cuda-sm86 is 101,376: fits",
        "    `A_s`: (64 x 16) float16 x 2 versions = 4,096 bytes  (offset 16, statements 3-3)",
        "    `B_s`: (16 x 64) float16 x 2 versions = 4,096 bytes  (offset 4,112, statements 3-3)",
        "    `U_s`: (64 x 64) float16 = 0 bytes  (never used: 0 bytes)",
        "    `O_s`: (1 x 7) float16 = 14 bytes  (offset 0, statements 2-4)",
        "  shared memory per block, TMA, warp-specialised (sm_90a, sm_100a, sm_120): 9,248 bytes "
        "(9,216 dynamic + 32 static)",
        "    `A_s`: (64 x 16) float16 x 2 versions = 4,096 bytes  (offset 256, statements 3-3)",
        "    `B_s`: (16 x 64) float16 x 2 versions = 4,096 bytes  (offset 5,120, statements 3-3)",
        "    `U_s`: (64 x 64) float16 = 0 bytes  (never used: 0 bytes)",
        "    `O_s`: (1 x 7) float16 = 14 bytes  (offset 0, statements 2-4)",
        "    mbarriers: 4 x 8 bytes = 32 bytes  (static __shared__ array: a full and an empty barrier per "
        "pipeline stage)",
    ]


def test_hover_on_kernel_launch_gives_bytes_and_limit():
    import libcst as cst

    from tilecheck.backends import get_profile
    from tilecheck.core.types import Span
    from tilecheck.lint.context import Context
    from tilecheck.server.hover_data import launches_at

    source = "import tilelang\n" + gemm(bm=128, bn=128, bk=64, stages=4)
    ctx = Context("k.py", source, cst.parse_module(source), backend=get_profile("cuda-sm86"))
    ((span, text),) = launches_at(ctx, 10, 20)
    assert span == Span(10, 9, 10, 50)  # `T.Kernel(N // 128, M // 128, threads=128)`
    assert text.splitlines()[:5] == [
        "**`T.Kernel` of `main`**",
        "",
        "- shared memory per block, cp.async (sm_80, sm_86, sm_87, sm_89, gfx950): 131,072 bytes (131,072 dynamic + 0 static); "
        "the limit on cuda-sm86 is 101,376: EXCEEDS it",
        "  - `A_s`: (128 x 64) float16 x 4 versions = 65,536 bytes  (offset 0, statements 2-2)",
        "  - `B_s`: (64 x 128) float16 x 4 versions = 65,536 bytes  (offset 65,536, statements 2-2)",
    ]


def test_json_and_sarif_carry_the_bytes(tmp_path, monkeypatch, capsys):
    import json

    from tilecheck.core.codec import decode, encode

    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": gemm(bm=128, bn=128, bk=64, stages=4)})
    data = {
        "bytes": 131072,
        "dynamic_bytes": 131072,
        "static_bytes": 0,
        "limit": 101376,
        "limit_kind": "block",
        "backend": "cuda-sm89",
    }
    outcome = run(capsys, "k.py", "--backend", "cuda-sm89", "--output-format", "json", "--isolated")
    (record,) = json.loads(outcome.out)
    assert (record["code"], record["line"], record["column"], record["data"]) == ("TL501", 9, 10, data)
    assert encode(decode(record)) == record
    outcome = run(capsys, "k.py", "--backend", "cuda-sm89", "--output-format", "sarif", "--isolated")
    (result,) = json.loads(outcome.out)["runs"][0]["results"]
    assert result["properties"]["data"] == data


def test_nested_pipelines_are_not_sized():
    source = gemm(bm=128, bn=128, bk=32, stages=3).replace(
        "        for k in T.Pipelined(K // 32, num_stages=3):\n",
        "        for ko in T.Pipelined(4, num_stages=3):\n          for k in T.Pipelined(4, num_stages=3):\n",
    )
    sized = layout(source)
    assert sized.undecided == ["a pipelined loop is nested in another (TileLang plans neither level)"]


CLASS_KERNEL = """import tilelang.language as T


class Op:
    def __init__(self):
        self.loader = make_loader(3)

    def build(self):
        @T.prim_func
        def main(A: T.Tensor((512, 512), "float16")):
            with T.Kernel(4, threads=128) as bx:
                A_s = T.alloc_shared((128, 32), "float16")
                self.loader(A_s)
                T.copy(A[bx * 128, 0], A_s)

        return main
"""


def test_a_call_tilecheck_cannot_follow_is_not_sized():
    model = analyze(cst.parse_module(CLASS_KERNEL))
    (kernel,) = model.kernels
    assert [callee for _, callee in model.unfollowed] == ["self.loader"]
    sized = shared_layout(kernel, TargetClass.CP_ASYNC, unfollowed=unfollowed_calls(kernel, model))
    assert sized.undecided[0] == "a call tilecheck cannot follow may allocate or use shared memory"
    assert shared_layout(kernel, TargetClass.CP_ASYNC).undecided == ["a statement tilecheck cannot see into"]


ONE_ITERATION = """
import tilelang.language as T

DV = {dv}


@T.prim_func
def main(DO: T.Tensor((1024, DV), "float32"), A: T.Tensor((1024, 64), "float32"), dv: T.Tensor((1024, DV), "float16")):
    with T.Kernel(16, threads=128) as (bs,):
        A_shared = T.alloc_shared((64, 64), dtype="float32")
        DO_shared = T.alloc_shared((64, 128), dtype="float32")
        dv_fragment = T.alloc_fragment((64, 128), dtype="float32")
        dv_shared = T.alloc_shared((64, 128), dtype="float16")
        T.copy(A[bs * 64, 0], A_shared)
        for i_v in T.Pipelined(T.ceildiv(DV, 128), num_stages=1):
            T.copy(DO[bs * 64, i_v * 128], DO_shared)
            T.gemm(A_shared, DO_shared, dv_fragment, transpose_A=True, clear_accum=True)
            T.copy(dv_fragment, dv_shared)
            T.copy(dv_shared, dv[bs * 64, i_v * 128])
"""


def test_a_loop_of_one_iteration_is_not_sized() -> None:
    # examples/kda/chunk_bwd_dv.py's shape: with two iterations TileLang gives 65,536 B (sized
    # here alike); with one it removes the loop and `dv_shared` reuses `A_shared`'s space: 49,152 B.
    assert layout(ONE_ITERATION.format(dv=256)).total_bytes == 65536
    once = layout(ONE_ITERATION.format(dv=128))
    assert once.undecided == [
        "a loop of fewer than two iterations uses shared memory (its removal is not modeled)"
    ]


AUTOTUNED = """import tilelang
import tilelang.language as T
from tilelang.autotuner import autotune


@{decorator}(configs=[{{"block_K": 32}}, {{"block_K": 64}}], warmup=10, rep=10)
@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_K=256):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(N // 128, M // 128, threads=128) as (bx, by):
            A_s = T.alloc_shared((128, block_K), "float16")
            B_s = T.alloc_shared((block_K, 128), "float16")
            C_l = T.alloc_fragment((128, 128), "float32")
            T.clear(C_l)
            for k in T.Pipelined(K // block_K, num_stages=3):
                T.copy(A[by * 128, k * block_K], A_s)
                T.copy(B[k * block_K, bx * 128], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * 128, bx * 128])

    return main


kernel = matmul(1024, 1024, 1024)
"""


@pytest.mark.parametrize("decorator", ["autotune", "tilelang.autotune"])
def test_a_factory_under_autotune_is_not_sized(decorator: str) -> None:
    # The defaults would need 393,216 B (256-wide tiles x 3 versions), but the build that runs
    # is the tuner's best configuration (examples/kda/chunk_delta_bwd.py:118 is such a kernel).
    model = analyze(cst.parse_module(AUTOTUNED.format(decorator=decorator)))
    (kernel,) = model.kernels
    assert shared_layout(kernel, TargetClass.CP_ASYNC).undecided == [
        "the kernel's configuration comes from `@autotune`: the tuner's choice is the build that runs"
    ]
    without = AUTOTUNED.format(decorator=decorator).replace(f"@{decorator}(", "# (")
    (plain,) = analyze(cst.parse_module(without)).kernels
    assert shared_layout(plain, TargetClass.CP_ASYNC).total_bytes == 393216


@pytest.mark.parametrize(
    ("backend", "expected"),
    [
        (
            "cuda-sm80",
            "393,216 bytes of shared memory per block on cuda-sm80, the limit is 166,912 (393,216 dynamic)",
        ),
        # TileLang 0.1.15 on sm_90a, defaults as constants: 393,216 dynamic + a 48-byte mbarrier array
        (
            "cuda-sm90",
            "393,264 bytes of shared memory per block on cuda-sm90, the limit is 232,448 "
            "(393,216 dynamic + 48 static, 48 of them mbarriers)",
        ),
    ],
)
def test_no_tl501_on_a_kernel_under_autotune(tmp_path, monkeypatch, capsys, backend, expected):
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path,
        {
            "tuned.py": AUTOTUNED.format(decorator="autotune"),
            "plain.py": AUTOTUNED.replace("@{decorator}(", "# ("),
        },
    )
    outcome = run(
        capsys,
        "tuned.py",
        "plain.py",
        "--backend",
        backend,
        "--select",
        "TL501",
        "--output-format",
        "concise",
        "--isolated",
    )
    assert outcome.out.splitlines()[:1] == [
        f"plain.py:11:14: error: TL501 [contract] `T.Kernel` of `main` needs {expected}"
    ]
    assert "tuned.py" not in outcome.out


SMALL_PAIR = """import tilelang.language as T


@T.prim_func
def main(KV: T.Tensor((64, 64), "bfloat16"), O: T.Tensor((64, 64), "bfloat16")):
    with T.Kernel(4, threads=128) as bx:
        A = T.alloc_shared([{a}], "bfloat16")
        B = T.alloc_shared([{b}], "bfloat16")
        T.copy(KV[bx, 0:{a}], A)
        T.copy(A[0:{b}], B)
        T.copy(B, O[bx, 0:{b}])
"""


@pytest.mark.parametrize(("a", "b", "expected"), [(4, 4, 32), (7, 7, 32), (16, 7, 48)])
def test_the_arena_end_is_aligned_to_16_with_two_buffers(a: int, b: int, expected: int) -> None:
    # TileLang 0.1.15, sm_80: 32, 32 and 48 bytes (the last buffer ends at 24, 30 and 46);
    # one 14-byte buffer alone takes 14 (testing/python/issue/test_tilelang_issue_1210.py: 32).
    assert layout(SMALL_PAIR.format(a=a, b=b, expected=expected)).total_bytes == expected


def test_a_loop_of_no_iteration_is_not_sized() -> None:
    # testing/python/issue/test_tilelang_issue_1697.py with K=0: TileLang allocates 0 bytes.
    source = gemm().replace("for k in T.Pipelined(K // 32,", "for k in T.Pipelined(0,")
    assert layout(source).undecided == [
        "a loop of fewer than two iterations uses shared memory (its removal is not modeled)"
    ]


IM2COL = """import tilelang.language as T


@T.prim_func
def main(data: T.Tensor((4, 32, 32, 64), "float16"), kernel: T.Tensor((3, 3, 64, 64), "float16")):
    with T.Kernel(1, 64, threads=256) as (bx, by):
        data_shared = T.alloc_shared((64, 32), "float16")
        kernel_shared = T.alloc_shared((32, 128), "float16")
        out_local = T.alloc_fragment((64, 128), "float32")
        kernel_flat = T.Tensor((576, 64), "float16", kernel.data)
        for k_iter in T.Pipelined(18, num_stages=3):
            {fill}
            T.copy(kernel_flat[k_iter * 32, bx * 128], kernel_shared)
            T.gemm(data_shared, kernel_shared, out_local)
"""


def test_a_pipeline_filled_in_ways_the_stage_rule_does_not_cover_is_not_sized() -> None:
    # testing/python/jit/test_tilelang_jit_nvrtc.py:351: TileLang versions both tiles 3 times
    # (36,864 B), which the copy-stage rule cannot see for `T.im2col` or a `T.Tensor` view.
    assert layout(IM2COL.format(fill="T.im2col(data, data_shared, by, k_iter, 3, 1, 1, 1)")).undecided == [
        "a pipelined `T.im2col` on `data_shared`: its pipeline stage is not modeled"
    ]
    assert layout(IM2COL.format(fill="T.copy(data[0, 0, 0, k_iter * 32], data_shared)")).undecided == [
        "a pipelined `T.copy` fills `kernel_shared` from something tilecheck does not know as a buffer"
    ]


def test_a_pipelined_statement_that_fills_and_reads_a_tile_is_not_sized() -> None:
    # testing/python/language/test_tilelang_language_pipeline.py:129 (a block-sparse GEMM):
    # `if mask: copy, copy, gemm` in one statement; TileLang gives the tiles 3 versions (49,152 B).
    source = gemm().replace(
        "            T.copy(A[by * 128, k * 32], A_s)\n"
        "            T.copy(B[k * 32, bx * 128], B_s)\n"
        "            T.gemm(A_s, B_s, C_l)\n",
        "            if A[0, k] > 0:\n"
        "                T.copy(A[by * 128, k * 32], A_s)\n"
        "                T.copy(B[k * 32, bx * 128], B_s)\n"
        "                T.gemm(A_s, B_s, C_l)\n",
    )
    assert layout(source).undecided == ["a pipelined statement both fills `A_s` and reads it"]


WS_SCHEDULE = """import tilelang.language as T


@T.prim_func
def kernel(A: T.Tensor((256, 64), T.float16), B: T.Tensor((256, 64), T.float16)):
    with T.Kernel(1, threads=128) as _:
        A_shared = T.alloc_shared((64, 64), T.float16)
        A_frag = T.alloc_fragment((64, 64), T.float16)
        T.annotate_ws_schedule(T.WSSchedule(num_warps=8, roles=[], pipelines=[], scopes=[]))
        for i in T.Pipelined(4, num_stages=2):
            T.copy(A[i * 64, 0], A_shared)
            T.copy(A_shared, A_frag)
            T.copy(A_frag, B[i * 64, 0])
"""


def test_a_manual_warp_specialisation_schedule_is_not_sized() -> None:
    # Without the schedule TileLang gives 16,384 B (two versions, sized alike here); with it
    # (test_tilelang_transform_materialize_ws_schedule.py:727) 8,192 B on sm_80.
    assert layout(WS_SCHEDULE.replace("        T.annotate_ws_schedule", "        # ")).total_bytes == 16384
    assert layout(WS_SCHEDULE).undecided == [
        "a manual warp-specialisation schedule (`T.annotate_ws_schedule`) is not modeled"
    ]


ONE_BUFFER = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024, 1024), "int8")):
    with T.Kernel(8, threads=128) as bx:
        S = T.alloc_shared((1, {n}), "int8")
        S[0, 0] = A[bx, 0]
        A[bx, 1] = S[0, 0]
"""


@pytest.mark.parametrize(
    ("backend", "limit"),
    [("cuda-sm80", 166912), ("cuda-sm87", 166912), ("hip-gfx942", 65536), ("hip-gfx950", 163840)],
)
def test_tl501_at_the_byte_boundary(tmp_path, monkeypatch, capsys, backend, limit):
    # One used int8 buffer of exactly the limit fits; one byte more is reported at `T.Kernel`. TileLang
    # 0.1.15 gives these kernels `dyn_shared_memory_buf` = the buffer on sm_80, gfx942 and gfx950.
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"fits.py": ONE_BUFFER.format(n=limit), "over.py": ONE_BUFFER.format(n=limit + 1)})
    outcome = run(
        capsys, "fits.py", "over.py", "--backend", backend, "--select", "TL501",
        "--output-format", "concise", "--isolated",
    )  # fmt: skip
    assert outcome.out.splitlines()[:-1] == [
        f"over.py:6:10: error: TL501 [contract] `T.Kernel` of `main` needs {limit + 1:,} bytes of shared memory "
        f"per block on {backend}, the limit is {limit:,} ({limit + 1:,} dynamic)"
    ]
    assert outcome.status == 1


def test_shared_memory_inside_a_block_statement_is_not_sized():
    """TileLang 0.1.15 gives 16,384 B on sm_80 (and gfx942, gfx950): the inner block's
    write-only `inner` shares its space with `outer`; top-level lifetimes would say 32,768 B, a
    false TL501 on a 16,385-32,767 B budget. (TileLang's
    testing/python/language/test_tilelang_language_copy.py, `lexical_scope`.)"""
    source = """
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((60, 60), "int32"), Out: T.Tensor((64, 64), "int32")):
    with T.Kernel(1, threads=128):
        inner = T.alloc_shared((64, 64), "int32")
        outer = T.alloc_shared((64, 64), "int32")
        with T.sblock("outer"):
            T.reads()
            T.writes()
            with T.sblock("inner"):
                T.reads()
                T.writes()
                T.copy(A[0:64, 0:64], inner)
            T.copy(A[0:64, 0:64], outer)
            for i, j in T.Parallel(64, 64):
                Out[i, j] = outer[i, j]
"""
    found = layout(source)
    assert not found.sized
    assert found.undecided == [
        "a `T.sblock` block uses shared memory (planning inside blocks is not modeled)"
    ]


def test_a_shape_passed_by_keyword_is_sized_as_a_positional_one():
    positional = gemm(bm=128, bn=128, bk=64, stages=3)
    keyword = positional.replace(
        'T.alloc_shared((128, 64), "float16"', 'T.alloc_shared(shape=(128, 64), dtype="float16"'
    )
    assert keyword != positional
    assert layout(keyword).total_bytes == layout(positional).total_bytes == 98_304
