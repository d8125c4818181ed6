"""The TMA / warp-specialised class sizes kernels as TileLang 0.1.15 does for sm_90a.

Every expected number here is TileLang's own: the device kernel's `dyn_shared_memory_buf`
and the static `__shared__` arrays (the mbarriers among them) after `tilelang.lower` for
`{"kind": "cuda", "arch": "sm_90a"}`, and the offsets and alignments of TileLang's allocation
plan (`tl.debug_merge_shared_memory_allocations`), measured with tools/oracle/smem/judge.py.
sm_100a and sm_120 gave the same bytes for every kernel here.
"""

from __future__ import annotations

import libcst as cst
import pytest

from tests.support import run, write
from tilecheck.tilelang.frontend import analyze
from tilecheck.tilelang.shared_memory import SharedLayout, TargetClass
from tilecheck.tilelang.warp_specialized import kernel_layout

HEAD = """import tilelang.language as T

M, N, K = 512, 512, 512


@T.prim_func
def main(A: T.Tensor((M, K), "{dtype}"), B: T.Tensor((K, N), "{dtype}"), C: T.Tensor((M, N), "{dtype}")):
    with T.Kernel(N // {bn}, M // {bm}, threads={threads}) as (bx, by):
"""


def kernel(
    bm: int = 64,
    bn: int = 64,
    bk: int = 32,
    stages: str = "3",
    dtype: str = "float16",
    mode: str = "gemm",
    threads: int = 128,
    epilogue: bool = False,
    odd: bool = False,
    unused: bool = False,
    static: str = "",
    header: str = "",
) -> str:
    """The generated family's kernel (tools/oracle/smem/generate.py), one variant at a time."""
    lines = [HEAD.format(dtype=dtype, bm=bm, bn=bn, threads=threads).rstrip("\n")]
    scope = ', scope="shared"' if static == "pipeline" else ""
    lines.append(f'        A_s = T.alloc_shared(({bm}, {bk}), "{dtype}"{scope})')
    if mode == "gemm":
        lines.append(f'        B_s = T.alloc_shared(({bk}, {bn}), "{dtype}")')
    lines.append(f'        C_l = T.alloc_fragment(({bm}, {bn}), "float32")')
    if unused:
        lines.append(f'        U_s = T.alloc_shared((16, 64), "{dtype}")')
    if epilogue:
        lines.append(f'        C_s = T.alloc_shared(({bm}, {bn}), "{dtype}")')
    if static == "extra":
        lines.append(f'        X_s = T.alloc_shared((4, {bn}), "{dtype}", scope="shared")')
    if odd:
        lines.append(f'        O_s = T.alloc_shared((3, 5), "{dtype}")')
    lines.append("        T.clear(C_l)")
    if static == "extra":
        lines.append(f"        T.copy(B[0, bx * {bn}], X_s)")
    if odd:
        lines.append(f"        T.copy(A[by * {bm}, 0], O_s)")
    lines.append("        " + (header or f"for k in T.Pipelined(K // {bk}, num_stages={stages}):"))
    if mode == "parallel-producer":
        lines += [
            f"            for i, j in T.Parallel({bm}, {bk}):",
            f"                A_s[i, j] = A[by * {bm} + i, k * {bk} + j]",
            f"            for i, j in T.Parallel({bm}, {bn}):",
            f"                C_l[i, j] += A_s[i, j % {bk}]",
        ]
    elif mode == "copy":
        lines += [
            f"            T.copy(A[by * {bm}, k * {bk}], A_s)",
            f"            for i, j in T.Parallel({bm}, {bn}):",
            f"                C_l[i, j] += A_s[i, j % {bk}]",
        ]
    else:
        lines += [
            f"            T.copy(A[by * {bm}, k * {bk}], A_s)",
            f"            T.copy(B[k * {bk}, bx * {bn}], B_s)",
            "            T.gemm(A_s, B_s, C_l)",
        ]
    if static == "extra":
        lines += [f"        for i, j in T.Parallel({bm}, {bn}):", "            C_l[i, j] += X_s[i % 4, j]"]
    if odd:
        lines += [f"        for i, j in T.Parallel({bm}, {bn}):", "            C_l[i, j] += O_s[0, 0]"]
    if epilogue:
        lines += ["        T.copy(C_l, C_s)", f"        T.copy(C_s, C[by * {bm}, bx * {bn}])"]
    else:
        lines.append(f"        T.copy(C_l, C[by * {bm}, bx * {bn}])")
    return "\n".join(lines) + "\n"


def layout(source: str) -> SharedLayout:
    model = analyze(cst.parse_module(source))
    assert len(model.kernels) == 1
    return kernel_layout(model.kernels[0], TargetClass.WARP_SPECIALIZED)


def plan(sized: SharedLayout) -> list[tuple[str, int | None, int, int]]:
    return [(b.name, b.offset, b.alignment, b.bytes) for b in sized.buffers]


@pytest.mark.parametrize(
    ("stages", "dynamic", "mbarriers"),
    # TileLang, sm_90a: 8,192 / 16,384 / 24,576 / 32,768 B dynamic; mbarrier_mem 16 / 32 / 48 / 64 B.
    [("1", 8192, 16), ("2", 16384, 32), ("3", 24576, 48), ("4", 32768, 64)],
)
def test_tma_loads_get_num_stages_versions_and_two_mbarriers_per_stage(
    stages: str, dynamic: int, mbarriers: int
) -> None:
    sized = layout(kernel(stages=stages))
    assert sized.sized, sized.undecided
    assert (sized.dynamic_bytes, sized.static_bytes, sized.mbarrier_bytes) == (dynamic, mbarriers, mbarriers)
    assert [b.versions for b in sized.buffers] == [int(stages), int(stages)]


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        # TileLang's plan: A_s (64, 16) fp16 aligned to 256, B_s (16, 32) to 512; 9,216 B.
        ({"bn": 32, "bk": 16}, [("A_s", 0, 256, 6144), ("B_s", 6144, 512, 3072)]),
        # A_s (64, 32): 64-byte rows, 512; B_s (32, 64): 128-byte rows, 1024; 24,576 B.
        ({}, [("A_s", 0, 512, 12288), ("B_s", 12288, 1024, 12288)]),
        # The larger buffer first among those first used together: B_s at 0; 98,304 B.
        (
            {"bm": 128, "bn": 256, "bk": 64, "stages": "2"},
            [("A_s", 65536, 1024, 32768), ("B_s", 0, 1024, 65536)],
        ),
        # A_s (64, 8): 16-byte rows are not swizzled, a TMA tile's 128; 6,144 B.
        ({"bk": 8}, [("A_s", 0, 128, 3072), ("B_s", 3072, 1024, 3072)]),
        # bfloat16 as float16; bm=32 too: B_s (12,288 B) before A_s; 18,432 B.
        ({"bm": 32, "dtype": "bfloat16"}, [("A_s", 12288, 512, 6144), ("B_s", 0, 1024, 12288)]),
    ],
)
def test_gemm_operands_are_aligned_to_their_swizzle_atom(
    shape: dict[str, object], expected: list[object]
) -> None:
    sized = layout(kernel(**shape))  # type: ignore[arg-type]
    assert sized.sized, sized.undecided
    assert plan(sized) == expected
    assert sized.dynamic_bytes == max(offset + size for _, offset, _, size in expected)  # type: ignore[operator]


def test_an_epilogue_tile_reuses_the_pipeline_space_at_its_swizzle_atom() -> None:
    # TileLang: C_s (64, 32) fp16 at offset 0, alignment 512; 9,216 B + 48 B of mbarriers.
    sized = layout(kernel(bn=32, bk=16, epilogue=True))
    assert plan(sized) == [("A_s", 0, 256, 6144), ("B_s", 6144, 512, 3072), ("C_s", 0, 512, 4096)]
    assert (sized.dynamic_bytes, sized.static_bytes) == (9216, 48)


def test_a_plain_buffer_is_aligned_to_16_and_the_next_tile_to_its_atom() -> None:
    # TileLang: O_s (3, 5) fp16 at 0 (alignment 16), A_s at 512, B_s at 13,312; 25,600 B.
    sized = layout(kernel(odd=True, unused=True, epilogue=True))
    assert plan(sized) == [
        ("A_s", 512, 512, 12288),
        ("B_s", 13312, 1024, 12288),
        ("U_s", None, 16, 0),
        ("C_s", 0, 1024, 8192),
        ("O_s", 0, 16, 30),
    ]
    assert (sized.dynamic_bytes, sized.static_bytes) == (25600, 48)


def test_tma_destinations_that_no_gemm_reads_are_aligned_to_128() -> None:
    # TileLang: one A_s (64, 16) fp16 x 3 = 6,144 B; float32 (64, 32) x 3 with a float32
    # epilogue tile (64, 64) at 0: 24,576 B.
    assert layout(kernel(mode="copy", bk=16)).dynamic_bytes == 6144
    sized = layout(kernel(mode="copy", bk=32, dtype="float32", epilogue=True))
    assert plan(sized) == [("A_s", 0, 128, 24576), ("C_s", 0, 1024, 16384)]
    assert sized.total_bytes == 24576 + 48


def test_static_buffers_stay_outside_the_arena() -> None:
    # TileLang: a scope="shared" TMA destination keeps 3 versions as a static array (12,288 B),
    # besides 48 B of mbarriers; B_s alone in the arena: 12,288 B.
    sized = layout(kernel(static="pipeline"))
    assert (sized.dynamic_bytes, sized.static_bytes) == (12288, 12288 + 48)
    # The only TMA tile static: an empty arena (0 B dynamic), 12,288 + 48 B static.
    sized = layout(kernel(mode="copy", static="pipeline"))
    assert (sized.dynamic_bytes, sized.static_bytes) == (0, 12288 + 48)
    # A static (4, 64) fp16 array filled before the pipeline: 512 B static.
    sized = layout(kernel(static="extra"))
    assert (sized.dynamic_bytes, sized.static_bytes) == (24576, 512 + 48)


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (
            kernel(threads=256),
            "`threads=` is not known to be 128 (the only block size measured for this class)",
        ),
        (
            kernel(stages="0"),
            "the kernel has no pipelined loop (TileLang does not warp-specialise it; not measured)",
        ),
        (
            kernel(header="for k in T.serial(K // 32):"),
            "the kernel has no pipelined loop (TileLang does not warp-specialise it; not measured)",
        ),
        (
            kernel(mode="parallel-producer"),
            "a pipeline statement other than a `T.copy` from global memory writes shared memory",
        ),
        (
            kernel(mode="copy", bk=8, dtype="int8"),
            "the copy into `A_s` is not a TMA load measured (8-byte rows)",
        ),
        (
            kernel(header="for k in T.Pipelined(K // 32, num_stages=2, order=[0, 1, 2], stage=[0, 0, 1]):"),
            "a manual `order=`/`stage=` schedule (not measured for this class)",
        ),
    ],
)
def test_what_is_not_measured_is_not_sized(source: str, reason: str) -> None:
    sized = layout(source)
    assert not sized.sized
    assert sized.undecided == [reason]


def test_a_second_pipelined_loop_is_not_sized() -> None:
    source = kernel().replace(
        "        T.copy(C_l, C[",
        "        for k in T.Pipelined(K // 32, num_stages=2):\n"
        "            T.copy(A[by * 64, k * 32], A_s)\n"
        "            T.copy(B[k * 32, bx * 64], B_s)\n"
        "            T.gemm(A_s, B_s, C_l)\n"
        "        T.copy(C_l, C[",
    )
    assert layout(source).undecided == [
        "the kernel has more than one pipelined loop (a second one gets num_stages x num_stages versions)"
    ]


BOUNDARY = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024, 1024), "float16"), B: T.Tensor((1024, 1024), "float16"), C: T.Tensor((1024, 1024), "float16"), X: T.Tensor((1024,), "int8")):
    with T.Kernel(1024 // {bn}, 1024 // {bm}, threads=128) as (bx, by):
        A_s = T.alloc_shared(({bm}, {bk}), "float16")
        B_s = T.alloc_shared(({bk}, {bn}), "float16")
        C_l = T.alloc_fragment(({bm}, {bn}), "float32")
        X_s = T.alloc_shared((1, {pad}), "int8", scope="shared")
        X_s[0, 0] = X[bx]
        T.clear(C_l)
        for k in T.Pipelined(1024 // {bk}, num_stages=4):
            T.copy(A[by * {bm}, k * {bk}], A_s)
            T.copy(B[k * {bk}, bx * {bn}], B_s)
            T.gemm(A_s, B_s, C_l)
        for i, j in T.Parallel({bm}, {bn}):
            C_l[i, j] += X_s[0, 0]
        T.copy(C_l, C[by * {bm}, bx * {bn}])
"""
LARGE = {
    "bm": 128,
    "bn": 256,
    "bk": 64,
}  # TileLang: 196,608 B dynamic + 64 B mbarriers (num_stages=3: 147,456 + 48)
SMALL = {
    "bm": 64,
    "bn": 128,
    "bk": 32,
}  # TileLang: 49,152 B dynamic + 64 B mbarriers (num_stages=3: 36,864 + 48)


@pytest.mark.parametrize(
    ("backend", "tiles", "pad", "total", "limit", "fits_with"),
    [
        # TileLang 0.1.15 (sm_90a, sm_100a and sm_120 alike): 196,608 + 64 + 35,776 = 232,448 B
        # fits, one byte more does not; num_stages=3: 147,456 + 48 + 35,777 = 183,281 B.
        ("cuda-sm90", LARGE, 35776, 232448, 232448, None),
        ("cuda-sm90", LARGE, 35777, 232449, 232448, 183281),
        ("cuda-sm100", LARGE, 35776, 232448, 232448, None),
        ("cuda-sm100", LARGE, 35777, 232449, 232448, 183281),
        # 49,152 + 64 + 52,160 = 101,376 B; num_stages=3: 36,864 + 48 + 52,161 = 89,073 B.
        ("cuda-sm120", SMALL, 52160, 101376, 101376, None),
        ("cuda-sm120", SMALL, 52161, 101377, 101376, 89073),
    ],
)
def test_tl501_at_the_limit_and_one_byte_over(
    tmp_path, monkeypatch, capsys, backend, tiles, pad, total, limit, fits_with
) -> None:
    import json

    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": BOUNDARY.format(pad=pad, **tiles)})
    outcome = run(
        capsys, "k.py", "--backend", backend, "--select", "TL501", "--output-format", "json", "--isolated"
    )
    records = json.loads(outcome.out)
    if fits_with is None:
        assert (outcome.status, records) == (0, [])
        return
    (record,) = records
    dynamic = 196608 if tiles is LARGE else 49152
    assert (record["code"], record["line"], record["column"]) == ("TL501", 6, 10)
    assert record["message"] == (
        f"`T.Kernel` of `main` needs {total:,} bytes of shared memory per block on {backend}, the limit is "
        f"{limit:,} ({dynamic:,} dynamic + {total - dynamic:,} static, 64 of them mbarriers)"
    )
    assert record["data"] == {
        "bytes": total,
        "dynamic_bytes": dynamic,
        "static_bytes": total - dynamic,
        "limit": limit,
        "limit_kind": "block",
        "backend": backend,
    }
    assert (
        f"Use num_stages=3 on `T.Pipelined(1024 // {tiles['bk']}, num_stages=4)` (line 13): the kernel then "
        f"needs {fits_with:,} bytes, within {backend}'s {limit:,}" in record["help"]
    )


def test_tl501_stays_silent_on_a_kernel_that_is_not_sized(tmp_path, monkeypatch, capsys) -> None:
    # 256 threads: TileLang gives the same bytes here, but that block size was not measured.
    monkeypatch.chdir(tmp_path)
    source = BOUNDARY.format(pad=52161, **SMALL).replace("threads=128", "threads=256")
    write(tmp_path, {"k.py": source})
    outcome = run(capsys, "k.py", "--backend", "cuda-sm120", "--select", "TL501", "--isolated")
    assert outcome.status == 0, outcome.out


def test_a_pass_config_is_not_sized() -> None:
    source = (
        "import tilelang\n"
        "import tilelang.language as T\n\n\n"
        "@tilelang.jit(pass_configs={tilelang.PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True})\n"
        "def factory():\n"
        "    @T.prim_func\n"
        + "".join("    " + line + "\n" if line else "\n" for line in kernel().split("\n")[6:])
        + "    return main\n"
    )
    assert layout(source).undecided == [
        "`pass_configs` may change how TileLang lowers the kernel (not measured for this class)"
    ]


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        (
            "T.gemm(A_s, B_s, C_l)",
            "T.gemm(A_s, B_s, C_l, clear_accum=True)",
            "a keyword of `T.gemm` (not measured for this class)",
        ),
        (
            "T.gemm(A_s, B_s, C_l)",
            "T.gemm(A_s, B_s, C_l, transpose_B=transposed)",
            "a keyword of `T.gemm` (not measured for this class)",
        ),
        (
            "            T.gemm(A_s, B_s, C_l)\n",
            "            T.gemm(A_s, B_s, C_l)\n            T.copy(B_s, C_l)\n",
            "`T.copy` in the pipeline's consumers (not measured for this class)",
        ),
        (
            "threads=128)",
            "threads=128, cluster_dims=2)",
            "`T.Kernel` takes keywords besides `threads=` (not measured for this class)",
        ),
        (
            "        T.clear(C_l)\n",
            "        T.clear(C_l)\n        T.atomic_add(C[0, 0], 1)\n",
            "`T.atomic_add` (not measured for this class)",
        ),
        (
            "        T.clear(C_l)\n",
            "        T.clear(C_l)\n        T.clear(Q_s)\n",
            "an operand of `T.clear` tilecheck cannot resolve (not measured for this class)",
        ),
        (
            "        T.clear(C_l)\n",
            "        T.clear(C_l)\n        T.copy(A[0, 0], Q_s)\n",
            "an expression statement tilecheck cannot resolve (not measured for this class)",
        ),
    ],
)
def test_a_construct_not_measured_is_not_sized(old: str, new: str, reason: str) -> None:
    source = kernel()
    assert old in source
    assert layout(source.replace(old, new)).undecided == [reason]


def test_a_converting_copy_or_a_tile_used_after_the_loop_is_not_sized() -> None:
    source = kernel().replace('A: T.Tensor((M, K), "float16")', 'A: T.Tensor((M, K), "float32")')
    assert layout(source).undecided[0] == "the copy into `A_s` converts its dtype (not a TMA load)"
    source = kernel().replace(
        "        T.copy(C_l, C[", "        T.copy(A_s, C[0, 0])\n        T.copy(C_l, C["
    )
    assert layout(source).undecided[0] == "the TMA tile `A_s` is used outside the pipeline (not measured)"


def test_hover_gives_the_warp_specialized_bytes_and_limit() -> None:
    from tests.test_shared_memory import gemm
    from tilecheck.backends import get_profile
    from tilecheck.lint.context import Context
    from tilecheck.server.hover_data import launches_at

    # TileLang, sm_120 (and sm_90a, sm_100a): 131,072 B dynamic (A_s at 0, B_s at 65,536) + 64 B mbarriers.
    source = "import tilelang\n" + gemm(bm=128, bn=128, bk=64, stages=4)
    ctx = Context("k.py", source, cst.parse_module(source), backend=get_profile("cuda-sm120"))
    ((_, text),) = launches_at(ctx, 10, 20)
    assert text.splitlines()[5:9] == [
        "- shared memory per block, TMA, warp-specialised (sm_90a, sm_100a, sm_120): 131,136 bytes "
        "(131,072 dynamic + 64 static); the limit on cuda-sm120 is 101,376: EXCEEDS it",
        "  - `A_s`: (128 x 64) float16 x 4 versions = 65,536 bytes  (offset 0, statements 2-2)",
        "  - `B_s`: (64 x 128) float16 x 4 versions = 65,536 bytes  (offset 65,536, statements 2-2)",
        "  - mbarriers: 8 x 8 bytes = 64 bytes  (static __shared__ array: a full and an empty barrier per pipeline "
        "stage)",
    ]


@pytest.mark.parametrize(
    ("bm", "bn", "bk", "transpose_a", "transpose_b", "expected"),
    [
        # TileLang's plans (sm_90a): a transposed operand's tile is swizzled by its own rows too.
        (64, 64, 32, False, True, [("A_s", 0, 512, 12288), ("B_s", 12288, 512, 12288)]),
        (64, 128, 16, False, True, [("A_s", 12288, 256, 6144), ("B_s", 0, 256, 12288)]),
        (128, 64, 16, True, False, [("A_s", 0, 1024, 12288), ("B_s", 12288, 1024, 6144)]),
        (64, 128, 32, True, True, [("A_s", 24576, 1024, 12288), ("B_s", 0, 512, 24576)]),
    ],
)
def test_transposed_gemm_operands(bm, bn, bk, transpose_a, transpose_b, expected) -> None:
    a_tile, a_from = ((bk, bm), f"k * {bk}, by * {bm}") if transpose_a else ((bm, bk), f"by * {bm}, k * {bk}")
    b_tile, b_from = ((bn, bk), f"bx * {bn}, k * {bk}") if transpose_b else ((bk, bn), f"k * {bk}, bx * {bn}")
    source = (
        HEAD.format(dtype="float16", bm=bm, bn=bn, threads=128)
        + f'        A_s = T.alloc_shared({a_tile}, "float16")\n'
        + f'        B_s = T.alloc_shared({b_tile}, "float16")\n'
        + f'        C_l = T.alloc_fragment(({bm}, {bn}), "float32")\n'
        + "        T.clear(C_l)\n"
        + f"        for k in T.Pipelined(K // {bk}, num_stages=3):\n"
        + f"            T.copy(A[{a_from}], A_s)\n"
        + f"            T.copy(B[{b_from}], B_s)\n"
        + f"            T.gemm(A_s, B_s, C_l, transpose_A={transpose_a}, transpose_B={transpose_b})\n"
        + f"        T.copy(C_l, C[by * {bm}, bx * {bn}])\n"
    )
    sized = layout(source)
    assert sized.sized, sized.undecided
    assert plan(sized) == expected
    assert sized.static_bytes == 48


@pytest.mark.parametrize("key", ["TL_DISABLE_WARP_SPECIALIZED", "TL_DISABLE_SHARED_MEMORY_REUSE"])
def test_tl501_stays_silent_when_the_file_passes_a_layout_config(tmp_path, monkeypatch, capsys, key) -> None:
    # A pass config given anywhere (here to tilelang.compile) may change the layout: not sized.
    monkeypatch.chdir(tmp_path)
    source = (
        "import tilelang\n"
        + BOUNDARY.format(pad=52161, **SMALL)
        + f"\n\nkernel = tilelang.compile(main, pass_configs={{tilelang.PassConfigKey.{key}: True}})\n"
    )
    write(tmp_path, {"k.py": source})
    outcome = run(capsys, "k.py", "--backend", "cuda-sm120", "--select", "TL501", "--isolated")
    assert outcome.status == 0, outcome.out


def test_tl501_under_cp_async_stays_silent_when_the_file_disables_reuse(
    tmp_path, monkeypatch, capsys
) -> None:
    from tests.test_shared_memory import gemm

    monkeypatch.chdir(tmp_path)
    # 131,072 B on sm_86 (TileLang, reuse on): reported; with reuse off the packing differs.
    source = "import tilelang\n" + gemm(bm=128, bn=128, bk=64, stages=4)
    write(tmp_path, {"k.py": source})
    assert run(capsys, "k.py", "--backend", "cuda-sm86", "--select", "TL501", "--isolated").status == 1
    config = "\nkernel = tilelang.compile(main, pass_configs={tilelang.PassConfigKey.TL_DISABLE_SHARED_MEMORY_REUSE: True})\n"
    write(tmp_path, {"k.py": source + config})
    assert run(capsys, "k.py", "--backend", "cuda-sm86", "--select", "TL501", "--isolated").status == 0


def test_a_block_size_held_in_a_name_is_sized_as_the_literal() -> None:
    """`threads=` is the model's evaluated value: a module constant (or a factory's parameter)
    holding 128 builds the kernel TileLang measured with `threads=128`."""
    literal = kernel()
    named = literal.replace("threads=128", "threads=THREADS").replace(
        "M, N, K = 512, 512, 512", "M, N, K = 512, 512, 512\nTHREADS = 128"
    )
    assert named != literal
    assert layout(named).sized and layout(named).total_bytes == layout(literal).total_bytes
    assert not layout(named.replace("THREADS = 128", "THREADS = 256")).sized
