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


def layout(source: str, wgmma: bool | None = None) -> SharedLayout:
    """The class's layout; `wgmma` True: sm_90a's, False: sm_100a's and sm_120's, None: any of them."""
    model = analyze(cst.parse_module(source))
    assert len(model.kernels) == 1
    return kernel_layout(model.kernels[0], TargetClass.WARP_SPECIALIZED, wgmma=wgmma)


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
            kernel(threads=64),
            "`threads=` is not known to be 128, 256 or 512 (the block sizes measured for this class)",
        ),
        (
            kernel(mode="copy", bk=8, dtype="int8"),
            "the copy into `A_s` is not a TMA load measured (8-byte rows)",
        ),
        (
            kernel(header="for k in T.Pipelined(K // 32, order=[0, 1, 2], stage=[0, 0, 1]):"),
            "a manual `order=`/`stage=` schedule without a literal `num_stages` >= 1 (not measured for this class)",
        ),
        (
            kernel().replace("T.gemm(A_s, B_s, C_l)", "T.gemm(B_s, A_s, C_l)"),
            "a `T.gemm` whose operand shapes do not match (TileLang rejects it)",
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
    assert layout(source, wgmma=True).undecided == [
        "the second pipeline's tile `A_s` is not one of its own (not measured)"
    ]
    assert layout(source, wgmma=False).undecided == [
        "the kernel has more than one pipelined loop (a second one gets num_stages x num_stages versions; "
        "measured on sm_90a only, for two)"
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
    # 64 threads: that block size was not measured.
    monkeypatch.chdir(tmp_path)
    source = BOUNDARY.format(pad=52161, **SMALL).replace("threads=128", "threads=64")
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
    assert layout(
        source.replace("def factory():\n", "def factory():\n    M, N, K = 512, 512, 512\n")
    ).undecided == ["`pass_configs` may change how TileLang lowers the kernel (not measured for this class)"]


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
    assert not layout(named.replace("THREADS = 128", "THREADS = 64")).sized


SERIAL = "for k in T.serial(K // 32):"


@pytest.mark.parametrize(
    ("source", "dynamic", "static", "expected"),
    [
        # TileLang, sm_90a and sm_100a alike: no TMA load, no mbarrier; the tiles aligned to 16,
        # the epilogue tile (TMA-stored) to its swizzle atom; 6,176 B under T.serial and num_stages=0.
        (
            kernel(bm=32, bn=64, header=SERIAL, epilogue=True, odd=True),
            6176,
            0,
            [("A_s", 4128, 16, 2048), ("B_s", 32, 16, 4096), ("C_s", 0, 1024, 4096), ("O_s", 0, 16, 30)],
        ),
        (
            kernel(bm=32, bn=64, stages="0", epilogue=True, odd=True),
            6176,
            0,
            [("A_s", 4128, 16, 2048), ("B_s", 32, 16, 4096), ("C_s", 0, 1024, 4096), ("O_s", 0, 16, 30)],
        ),
        # A copy-only loop: float32 (64, 16) at 16, its (64, 128) epilogue tile at 1024: 32,768 B.
        (
            kernel(mode="copy", dtype="float32", bm=64, bn=128, bk=16, stages="0", epilogue=True),
            32768,
            0,
            [("A_s", 0, 16, 4096), ("C_s", 0, 1024, 32768)],
        ),
        # A `T.Parallel` producer: its tile at 16 after O_s; 8,192 B.
        (
            kernel(mode="parallel-producer", header=SERIAL, epilogue=True, odd=True),
            8192,
            0,
            [("A_s", 32, 16, 4096), ("C_s", 0, 1024, 8192), ("O_s", 0, 16, 30)],
        ),
        # 256 threads, a static (4, 128) array: 10,272 B dynamic + 1,024 B static.
        (
            kernel(bm=32, bn=128, header=SERIAL, threads=256, static="extra", epilogue=True, odd=True),
            10272,
            1024,
            [
                ("A_s", 8224, 16, 2048),
                ("B_s", 32, 16, 8192),
                ("C_s", 0, 1024, 8192),
                ("X_s", None, 16, 1024),
                ("O_s", 0, 16, 30),
            ],
        ),
    ],
)
def test_a_loop_tilelang_does_not_warp_specialise_has_one_version_and_no_mbarriers(
    source: str, dynamic: int, static: int, expected: list[object]
) -> None:
    for wgmma in (None, True, False):
        sized = layout(source, wgmma)
        assert sized.sized, sized.undecided
        assert (sized.dynamic_bytes, sized.static_bytes, sized.mbarrier_bytes) == (dynamic, static, 0)
        assert [b.versions for b in sized.buffers] == [1] * len(sized.buffers)
        assert plan(sized) == expected


@pytest.mark.parametrize("threads", [128, 256])
def test_a_wgmma_operand_without_a_tma_load_is_aligned_to_1024_on_sm_90a_only(threads: int) -> None:
    # TileLang: a (64 x 64) gemm is a wgmma on sm_90a, its tiles aligned to 1,024 (the descriptor's
    # worst case): 9,216 B; an mma on sm_100a and sm_120, aligned to 16: 8,224 B.
    source = kernel(bm=64, bn=64, stages="0", threads=threads, epilogue=True, odd=True)
    hopper = layout(source, wgmma=True)
    assert plan(hopper) == [
        ("A_s", 1024, 1024, 4096),
        ("B_s", 5120, 1024, 4096),
        ("C_s", 0, 1024, 8192),
        ("O_s", 0, 16, 30),
    ]
    assert (hopper.dynamic_bytes, hopper.static_bytes) == (9216, 0)
    other = layout(source, wgmma=False)
    assert plan(other)[:2] == [("A_s", 32, 16, 4096), ("B_s", 4128, 16, 4096)]
    assert (other.dynamic_bytes, other.static_bytes) == (8224, 0)
    assert layout(source).undecided == [
        "a `T.gemm` is a wgmma on sm_90a (9,216 bytes) but an mma on sm_100a and sm_120 (8,224 bytes), "
        "which align its tiles differently: the arch is not known"
    ]
    # (128 x 64): the same 16,384 B on every arch of the class; a static wgmma operand is not in
    # the arena (16,384 B dynamic + 4,096 B static).
    assert layout(kernel(bm=128, bn=64, stages="0", epilogue=True, odd=True)).total_bytes == 16384
    sized = layout(kernel(bm=64, bn=128, stages="0", static="pipeline", epilogue=True, odd=True, unused=True))
    assert (sized.dynamic_bytes, sized.static_bytes) == (16384, 4096)


@pytest.mark.parametrize(
    ("source", "hopper", "other"),
    [
        # TileLang, 256 threads: a wgmma's two warp groups split N, so B_s (32, 64) is swizzled over
        # 32 columns on sm_90a (512) and over 64 on sm_100a (1024); the same 24,576 + 48 B.
        (
            kernel(threads=256),
            [("A_s", 0, 512, 12288), ("B_s", 12288, 512, 12288)],
            [("A_s", 0, 512, 12288), ("B_s", 12288, 1024, 12288)],
        ),
        # With O_s first the narrower swizzle shows: 9,472 B on sm_90a, 9,728 B on sm_100a.
        (
            kernel(bm=64, bn=32, bk=16, threads=256, odd=True),
            [("A_s", 256, 256, 6144), ("B_s", 6400, 256, 3072), ("O_s", 0, 16, 30)],
            [("A_s", 256, 256, 6144), ("B_s", 6656, 512, 3072), ("O_s", 0, 16, 30)],
        ),
        (
            kernel(threads=256, odd=True, epilogue=True),
            [
                ("A_s", 512, 512, 12288),
                ("B_s", 12800, 512, 12288),
                ("C_s", 0, 1024, 8192),
                ("O_s", 0, 16, 30),
            ],
            [
                ("A_s", 512, 512, 12288),
                ("B_s", 13312, 1024, 12288),
                ("C_s", 0, 1024, 8192),
                ("O_s", 0, 16, 30),
            ],
        ),
        # An mma (32 rows) and a copy-only pipeline as with 128 threads: 10,240 B and 24,704 B.
        (
            kernel(bm=32, bn=64, bk=16, threads=256, odd=True, epilogue=True),
            [("A_s", 7168, 256, 3072), ("B_s", 1024, 1024, 6144), ("C_s", 0, 1024, 4096), ("O_s", 0, 16, 30)],
            None,
        ),
        (
            kernel(mode="copy", bk=32, dtype="float32", threads=256, epilogue=True, odd=True),
            [("A_s", 128, 128, 24576), ("C_s", 0, 1024, 16384), ("O_s", 0, 16, 60)],
            None,
        ),
    ],
)
def test_256_threads(source: str, hopper: list[object], other: list[object] | None) -> None:
    for wgmma, expected in ((True, hopper), (False, other or hopper)):
        sized = layout(source, wgmma)
        assert sized.sized, sized.undecided
        assert sized.static_bytes == 48
        assert plan(sized)[: len(expected)] == expected
    # TileLang's totals: 24,624, 9,520 / 9,776, 25,136 / 25,648, 10,288 and 24,752 B.
    totals = {layout(source, wgmma).total_bytes for wgmma in (True, False)}
    assert layout(source).sized == (len(totals) == 1)


def test_wgmma_target() -> None:
    from tilecheck.tilelang.warp_specialized import wgmma_target

    assert [wgmma_target(f"cuda -arch=sm_{a}") for a in ("90a", "90", "100a", "120a", "80")] == [
        True,
        True,
        False,
        False,
        False,
    ]
    assert wgmma_target("cuda") is None


UNPIPELINED = BOUNDARY.replace(
    "for k in T.Pipelined(1024 // {bk}, num_stages=4):", "for k in T.serial(1024 // {bk}):"
)


@pytest.mark.parametrize(("pad", "total"), [(183296, 232448), (183297, 232449)])
def test_tl501_on_a_kernel_with_no_pipelined_loop(tmp_path, monkeypatch, capsys, pad, total) -> None:
    import json

    # TileLang 0.1.15, sm_90a: B_s at 0, A_s at 32,768 (wgmma tiles, 1,024-aligned): 49,152 B dynamic,
    # no mbarrier; with a static int8 (1, 183,296) array 232,448 B fit, one byte more does not.
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": UNPIPELINED.format(pad=pad, **LARGE)})
    outcome = run(
        capsys, "k.py", "--backend", "cuda-sm90", "--select", "TL501", "--output-format", "json", "--isolated"
    )
    records = json.loads(outcome.out)
    if total <= 232448:
        assert (outcome.status, records) == (0, [])
        return
    (record,) = records
    assert (record["code"], record["line"], record["column"]) == ("TL501", 6, 10)
    assert record["message"] == (
        "`T.Kernel` of `main` needs 232,449 bytes of shared memory per block on cuda-sm90, the limit is "
        "232,448 (49,152 dynamic + 183,297 static)"
    )
    assert record["data"]["dynamic_bytes"] == 49152


@pytest.mark.parametrize(
    ("stages", "dynamic", "a_bytes"), [("1", 8192, 4096), ("2", 8224, 8192), ("3", 12320, 12288)]
)
def test_a_pipeline_with_a_parallel_producer_is_not_warp_specialised(
    stages: str, dynamic: int, a_bytes: int
) -> None:
    # TileLang, sm_90a: no TMA load, no mbarrier; A_s gets num_stages versions (the cp.async
    # class's stage rule) at 16 after O_s, the epilogue tile at 0: 8,192 / 8,224 / 12,320 B.
    sized = layout(kernel(mode="parallel-producer", stages=stages, epilogue=True, odd=True))
    assert sized.sized, sized.undecided
    assert (sized.dynamic_bytes, sized.static_bytes) == (dynamic, 0)
    assert plan(sized) == [("A_s", 32, 16, a_bytes), ("C_s", 0, 1024, 8192), ("O_s", 0, 16, 30)]
    # Beside a TMA copy (TileLang warp-specialises the loop then, with mbarriers): not measured.
    mixed = kernel(stages=stages).replace(
        "            T.copy(A[by * 64, k * 32], A_s)\n",
        "            for i, j in T.Parallel(64, 32):\n                A_s[i, j] = A[by * 64 + i, k * 32 + j]\n",
    )
    assert layout(mixed).undecided[0] == (
        "a pipeline statement other than a `T.copy` from global memory writes shared memory"
    )


@pytest.mark.parametrize(
    ("order", "stage"),
    [
        ("[0, 1, 2]", "[0, 0, 1]"),
        ("[0, 1, 2]", "[0, 0, 2]"),
        ("[1, 0, 2]", "[0, 0, 1]"),
        ("[0, 1, 2]", "[0, 0, 0]"),
    ],
)
@pytest.mark.parametrize(("stages", "total"), [("1", 9232), ("2", 17440), ("3", 25648)])
def test_a_manual_schedule_beside_num_stages_is_ignored(
    order: str, stage: str, stages: str, total: int
) -> None:
    # TileLang (sm_90a, sm_100a and sm_120 alike): the warp-specialised pipeline keeps num_stages
    # versions and 2 x num_stages mbarriers whatever the literal order/stage: 9,216 + 16,
    # 17,408 + 32, 25,600 + 48 B (O_s at 0, A_s at 512, B_s after it, C_s reusing 0).
    header = f"for k in T.Pipelined(K // 32, num_stages={stages}, order={order}, stage={stage}):"
    sized = layout(kernel(header=header, epilogue=True, odd=True))
    assert sized.sized, sized.undecided
    assert sized.total_bytes == total
    assert sized.total_bytes == layout(kernel(stages=stages, epilogue=True, odd=True)).total_bytes


def two_pipelines(
    first: str, second: str, bm: int = 64, bn: int = 64, bk: int = 32, bk2: int = 16, header: str = ""
) -> str:
    """The generated family's kernel with a second pipelined gemm loop on tiles of its own."""
    source = kernel(bm=bm, bn=bn, bk=bk, stages=first, header=header, epilogue=True, odd=True)
    tiles = f'        D_s = T.alloc_shared(({bm}, {bk2}), "float16")\n        E_s = T.alloc_shared(({bk2}, {bn}), "float16")\n'
    loop = (
        f"        for k in T.Pipelined(K // {bk2}, num_stages={second}):\n"
        f"            T.copy(A[by * {bm}, k * {bk2}], D_s)\n"
        f"            T.copy(B[k * {bk2}, bx * {bn}], E_s)\n"
        "            T.gemm(D_s, E_s, C_l)\n"
    )
    source = source.replace("        T.clear(C_l)\n", tiles + "        T.clear(C_l)\n")
    return source.replace(
        f"        for i, j in T.Parallel({bm}, {bn}):\n",
        loop + f"        for i, j in T.Parallel({bm}, {bn}):\n",
        1,
    )


@pytest.mark.parametrize(
    ("first", "second", "total", "second_bytes"),
    # TileLang, sm_90a: the second loop is pipelined with cp.async (no mbarrier of its own), its
    # tiles keep num_stages x num_stages versions at 1,024 (wgmma operands): 9,232, 17,424,
    # 37,904, 17,440, 25,648 and 37,936 B.
    [
        ("1", "1", 9232, 2048),
        ("1", "2", 17424, 8192),
        ("1", "3", 37904, 18432),
        ("2", "2", 17440, 8192),
        ("3", "1", 25648, 2048),
        ("3", "3", 37936, 18432),
    ],
)
def test_a_second_pipelined_loop_on_sm_90a(first: str, second: str, total: int, second_bytes: int) -> None:
    source = two_pipelines(first, second)
    sized = layout(source, wgmma=True)
    assert sized.sized, sized.undecided
    assert (sized.total_bytes, sized.mbarrier_bytes) == (total, 16 * int(first))
    by_name = {b.name: b for b in sized.buffers}
    assert [(by_name[n].bytes, by_name[n].alignment) for n in ("D_s", "E_s")] == [(second_bytes, 1024)] * 2
    assert not layout(source).sized  # sm_100a and sm_120 were not measured
    twice = source.replace("E_s)\n", "E_s)\n            T.copy(B[k * 16, bx * 64], E_s)\n")
    assert layout(twice, wgmma=True).undecided == [
        "the second pipeline fills `E_s` twice (TileLang rejects it)"
    ]


def test_a_software_pipeline_fills_its_tiles_in_statement_order() -> None:
    # TileLang, sm_90a: an mma second loop (32 rows, 3 stages): D_s (32, 32) x 9 = 18,432 B is first
    # used before E_s (32, 128) x 9 = 73,728 B, so it is placed first though smaller: D_s at 32,
    # E_s at 18,464 (both aligned to 16); 92,192 B + 32 B of mbarriers.
    sized = layout(two_pipelines("2", "3", bm=32, bn=128, bk2=32), wgmma=True)
    by_name = {b.name: b for b in sized.buffers}
    assert [(by_name[n].offset, by_name[n].alignment, by_name[n].bytes) for n in ("D_s", "E_s")] == [
        (32, 16, 18432),
        (18464, 16, 73728),
    ]
    assert (sized.dynamic_bytes, sized.static_bytes) == (92192, 32)


@pytest.mark.parametrize(
    ("first", "header", "second", "shape", "expected", "total"),
    [
        # TileLang, sm_90a: warp specialisation splits the body from the copying loop on, so the
        # TMA tiles D_s and E_s are live from it and placed first; the loop's wgmma tiles after
        # them at 1,024: 13,312 + 16 B (T.serial and num_stages=0 alike), with 3 stages 21,504 + 48.
        (
            "0",
            "",
            "1",
            {},
            [
                ("A_s", 5120, 1024, 4096),
                ("B_s", 9216, 1024, 4096),
                ("D_s", 256, 256, 2048),
                ("E_s", 3072, 1024, 2048),
            ],
            13328,
        ),
        ("", SERIAL, "1", {}, None, 13328),
        ("0", "", "3", {}, None, 21552),
        ("", SERIAL, "3", {}, None, 21552),
        # mma tiles (32 rows) at 16, the larger first among each group: 31,744 + 32 B.
        (
            "",
            "for k in T.serial(K // 32):",
            "2",
            {"bm": 32, "bn": 128, "bk2": 32},
            [
                ("A_s", 29696, 16, 2048),
                ("B_s", 21504, 16, 8192),
                ("D_s", 17408, 512, 4096),
                ("E_s", 1024, 1024, 16384),
            ],
            31776,
        ),
    ],
)
def test_a_copying_loop_before_the_pipelined_one(first, header, second, shape, expected, total) -> None:
    source = two_pipelines(first, second, header=header, **shape)
    sized = layout(source, wgmma=True)
    assert sized.sized, sized.undecided
    assert sized.total_bytes == total
    if expected is not None:
        assert [p for p in plan(sized) if p[0] in ("A_s", "B_s", "D_s", "E_s")] == expected
    assert not layout(source, wgmma=False).sized  # not measured on sm_100a and sm_120


def test_512_threads_split_n_four_ways_on_sm_90a() -> None:
    # TileLang, sm_90a: 16 warps as 4 x 4, so B_s (32, 128) is swizzled over 32 columns (512,
    # where 128 and 256 threads give 1,024): 49,664 B + 48 B of mbarriers.
    source = kernel(bm=128, bn=128, bk=32, threads=512, epilogue=True, odd=True)
    sized = layout(source, wgmma=True)
    # A_s, B_s, C_s, O_s: (offset, alignment)
    assert [(b.offset, b.alignment) for b in sized.buffers] == [(512, 512), (25088, 512), (0, 1024), (0, 16)]
    assert sized.total_bytes == 49712
    assert layout(source.replace("threads=512", "threads=256"), wgmma=True).total_bytes == 50224
    # TileLang rejects a wgmma whose B would not be swizzled (N = 32 over four warp groups: 8
    # columns, "Not a canonical GMMA_MN layout") and a gemm no warp partition covers (M = N = 32).
    narrow = kernel(bm=64, bn=32, bk=16, threads=512)
    assert layout(narrow, wgmma=True).undecided == [
        "the wgmma tile `B_s` would not be swizzled (TileLang rejects it)"
    ]
    small = kernel(bm=32, bn=32, bk=32, threads=512)
    assert layout(small, wgmma=True).undecided == [
        "no warp partition covers the `T.gemm` (TileLang rejects it)"
    ]


SCALED = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((2048, 2048), "float16"), B: T.Tensor((2048, 2048), "float16"), Sc: T.Tensor((32, 2048), "float32"), C: T.Tensor((2048, 2048), "float16")):
    with T.Kernel(16, 16, threads=128) as (bx, by):
        A_s = T.alloc_shared((128, 64), "float16")
        B_s = T.alloc_shared((64, 128), "float16")
        S_s = T.alloc_shared((128,), "float32")
        C_l = T.alloc_fragment((128, 128), "float32")
        T.clear(C_l)
        for k in T.Pipelined(32, num_stages=3):
            T.copy(A[by * 128, k * 64], A_s)
            T.copy(B[k * 64, bx * 128], B_s)
            T.copy(Sc[k, bx * 128], S_s)
            T.gemm(A_s, B_s, C_l)
            for i, j in T.Parallel(128, 128):
                C_l[i, j] = C_l[i, j] * S_s[j]
        T.copy(C_l, C[by * 128, bx * 128])
"""


def test_a_pipelined_tile_that_is_not_a_tma_tile_is_named_as_such() -> None:
    """A 1-D scale vector copied in the pipeline is not one of its TMA tiles: the reason says so
    (it read "used inside and outside the pipeline", which it is not)."""
    assert layout(SCALED).undecided == [
        "the copy into `S_s` is not a TMA load measured (a 1-D tile)",  # it read "0-byte rows"
        "a pipeline consumer reads global memory (a mixed producer; not measured)",
        "`S_s` is used in the pipeline but is not one of its TMA tiles (not measured)",
    ]
