"""Generate GEMM-like TileLang kernels whose shared-memory size TileLang is the judge of.

Each kernel varies what decides the size: tile shapes, dtypes, `num_stages`, manual
`order=`/`stage=` schedules, an epilogue tile after the pipeline, never-used buffers,
`scope="shared"` buffers, odd-sized buffers (alignment) and a second pipelined loop.
Every file is a module with one `KERNEL` (a PrimFunc); the seed fixes the output.

`--family tma` writes only kernels of the warp-specialised shape tilecheck sizes for sm_90a;
`--family plain` the same kernels with a loop TileLang does not warp-specialise.

Usage: python tools/oracle/smem/generate.py --seed 7 --count 200 --out build/oracle/smem/kernels
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
from pathlib import Path

DTYPES = ["float16", "bfloat16"]
COPY_DTYPES = ["float16", "bfloat16", "float32", "int8"]
STAGES = ["none", "0", "1", "2", "3", "4"]
SCHEDULES = [
    ("[0, 1, 2]", "[0, 0, 1]"),
    ("[0, 1, 2]", "[0, 0, 2]"),
    ("[1, 0, 2]", "[0, 0, 1]"),
    ("[0, 1, 2]", "[0, 0, 0]"),
]


def kernel_source(rng: random.Random) -> str:
    mode = rng.choice(["gemm", "gemm", "gemm", "copy", "parallel-producer"])
    dtype = rng.choice(DTYPES if mode != "copy" else COPY_DTYPES)
    bm, bn = rng.choice([32, 64, 128]), rng.choice([32, 64, 128, 256])
    bk = rng.choice([16, 32, 64]) if mode != "copy" else rng.choice([8, 16, 32, 64])
    stages = rng.choice(STAGES)
    schedule = rng.choice(SCHEDULES) if mode == "gemm" and rng.random() < 0.2 else None
    epilogue = rng.random() < 0.35
    unused = rng.random() < 0.2
    static = rng.choice(["none", "none", "none", "pipeline", "extra"])
    odd = rng.random() < 0.3
    second = rng.random() < 0.2 and mode == "gemm"
    acc = "float32" if dtype != "int8" else "int32"
    header = f"for k in T.Pipelined(K // {bk}, num_stages={stages}):"
    if stages == "none":
        header = f"for k in T.serial(K // {bk}):"
    if schedule is not None:
        order, stage = schedule
        header = f"for k in T.Pipelined(K // {bk}, num_stages={max(int(stages), 1) if stages != 'none' else 2}, order={order}, stage={stage}):"
    a_scope = ', scope="shared"' if static == "pipeline" else ""
    lines = [
        "import tilelang.language as T",
        "",
        "M, N, K = 512, 512, 512",
        "",
        "",
        "@T.prim_func",
        f'def main(A: T.Tensor((M, K), "{dtype}"), B: T.Tensor((K, N), "{dtype}"), C: T.Tensor((M, N), "{dtype}")):',
        f"    with T.Kernel(N // {bn}, M // {bm}, threads=128) as (bx, by):",
        f'        A_s = T.alloc_shared(({bm}, {bk}), "{dtype}"{a_scope})',
    ]
    if mode == "gemm":
        lines.append(f'        B_s = T.alloc_shared(({bk}, {bn}), "{dtype}")')
    lines.append(f'        C_l = T.alloc_fragment(({bm}, {bn}), "{acc}")')
    if unused:
        lines.append(f'        U_s = T.alloc_shared(({rng.choice([16, 64, 128])}, 64), "{dtype}")')
    if epilogue:
        lines.append(f'        C_s = T.alloc_shared(({bm}, {bn}), "{dtype}")')
    if static == "extra":
        lines.append(f'        X_s = T.alloc_shared((4, {bn}), "{dtype}", scope="shared")')
    if odd:
        r, c = rng.choice([(3, 5), (1, 7), (5, 9), (2, 3)])
        lines.append(f'        O_s = T.alloc_shared(({r}, {c}), "{dtype}")')
    if second:
        bk2 = rng.choice([16, 32])
        lines.append(f'        D_s = T.alloc_shared(({bm}, {bk2}), "{dtype}")')
        lines.append(f'        E_s = T.alloc_shared(({bk2}, {bn}), "{dtype}")')
    lines.append("        T.clear(C_l)")
    if static == "extra":
        lines.append(f"        T.copy(B[0, bx * {bn}], X_s)")
    if odd:
        lines.append(f"        T.copy(A[by * {bm}, 0], O_s)")
    lines.append(f"        {header}")
    if mode == "parallel-producer":
        lines += [
            f"            for i, j in T.Parallel({bm}, {bk}):",
            f"                A_s[i, j] = A[by * {bm} + i, k * {bk} + j]",
            f"            for i, j in T.Parallel({bm}, {bn}):",
            "                C_l[i, j] += A_s[i, j % " + str(bk) + "]",
        ]
    elif mode == "copy":
        lines += [
            f"            T.copy(A[by * {bm}, k * {bk}], A_s)",
            f"            for i, j in T.Parallel({bm}, {bn}):",
            "                C_l[i, j] += A_s[i, j % " + str(bk) + "]",
        ]
    else:
        lines += [
            f"            T.copy(A[by * {bm}, k * {bk}], A_s)",
            f"            T.copy(B[k * {bk}, bx * {bn}], B_s)",
            "            T.gemm(A_s, B_s, C_l)",
        ]
    if second:
        s2 = rng.choice(["1", "2", "3"])
        lines += [
            f"        for k in T.Pipelined(K // {bk2}, num_stages={s2}):",
            f"            T.copy(A[by * {bm}, k * {bk2}], D_s)",
            f"            T.copy(B[k * {bk2}, bx * {bn}], E_s)",
            "            T.gemm(D_s, E_s, C_l)",
        ]
    if static == "extra":
        lines += [f"        for i, j in T.Parallel({bm}, {bn}):", "            C_l[i, j] += X_s[i % 4, j]"]
    if odd:
        lines += [f"        for i, j in T.Parallel({bm}, {bn}):", "            C_l[i, j] += O_s[0, 0]"]
    if epilogue:
        lines += [
            "        T.copy(C_l, C_s)",
            f"        T.copy(C_s, C[by * {bm}, bx * {bn}])",
        ]
    else:
        lines.append(f"        T.copy(C_l, C[by * {bm}, bx * {bn}])")
    lines += ["", "", "KERNEL = main", ""]
    return "\n".join(lines)


def tma_kernel_source(rng: random.Random, plain: bool = False) -> str:
    """A kernel of the shape tilecheck sizes for the warp-specialised class (one `T.Pipelined`
    loop fed by TMA copies), varying what decides its layout: tile shapes and
    dtypes (swizzle atoms), transposed gemm operands, `num_stages` 1-4 (versions, mbarriers), an epilogue tile, plain
    and never-used buffers, static arrays, a buffer filled before the loop, and a copy-only
    pipeline of one or two tiles read by a `T.Parallel`; one in ten uses 256 threads.

    `plain` (`--family plain`): the same kernels with a loop TileLang does not warp-specialise
    (`T.serial`, or `num_stages=0`), 128 or 256 threads, and a `T.Parallel` producer too."""
    modes = ["gemm", "gemm", "gemm", "copy", "copy2"] + (
        ["parallel-producer", "parallel-gemm"] if plain else []
    )
    mode = rng.choice(modes)
    dtype = rng.choice(DTYPES if mode in ("gemm", "parallel-gemm") else COPY_DTYPES)
    element = {"float16": 2, "bfloat16": 2, "float32": 4, "int8": 1}[dtype]
    bm, bn = rng.choice([32, 64, 128]), rng.choice([32, 64, 128, 256])
    bk = rng.choice([b for b in (8, 16, 32, 64) if b * element >= 16 or (plain and "gemm" not in mode)])
    stages = rng.choice(["none", "0"] if plain else ["1", "2", "3", "4"])
    threads = rng.choice([128, 256]) if plain else 256 if rng.random() < 0.1 else 128
    epilogue, unused, odd, prelude = (rng.random() < p for p in (0.35, 0.2, 0.3, 0.15))
    static = rng.choice(["none", "none", "none", "pipeline", "extra"])
    acc = "int32" if dtype == "int8" else "float32"
    ta, tb = (mode == "gemm" and rng.random() < p for p in (0.25, 0.35))
    a_shape, a_tile, a_at = (
        ("(K, M)", f"({bk}, {bm})", f"k * {bk}, by * {bm}")
        if ta
        else ("(M, K)", f"({bm}, {bk})", f"by * {bm}, k * {bk}")
    )
    b_shape, b_tile, b_at = (
        ("(N, K)", f"({bn}, {bk})", f"bx * {bn}, k * {bk}")
        if tb
        else ("(K, N)", f"({bk}, {bn})", f"k * {bk}, bx * {bn}")
    )
    lines = [
        "import tilelang.language as T",
        "",
        "M, N, K = 512, 512, 512",
        "",
        "",
        "@T.prim_func",
        f'def main(A: T.Tensor({a_shape}, "{dtype}"), B: T.Tensor({b_shape}, "{dtype}"), C: T.Tensor((M, N), "{dtype}")):',
        f"    with T.Kernel(N // {bn}, M // {bm}, threads={threads}) as (bx, by):",
        f'        A_s = T.alloc_shared({a_tile}, "{dtype}"{", scope=" + repr("shared") if static == "pipeline" else ""})',
    ]
    if mode not in ("copy", "parallel-producer"):
        lines.append(f'        B_s = T.alloc_shared({b_tile}, "{dtype}")')
    lines.append(f'        C_l = T.alloc_fragment(({bm}, {bn}), "{acc}")')
    if unused:
        lines.append(f'        U_s = T.alloc_shared(({rng.choice([16, 64, 128])}, 64), "{dtype}")')
    if epilogue:
        lines.append(f'        C_s = T.alloc_shared(({bm}, {bn}), "{dtype}")')
    if static == "extra":
        lines.append(f'        X_s = T.alloc_shared((4, {bn}), "{dtype}", scope="shared")')
    if prelude:
        lines.append(f'        P_s = T.alloc_shared((4, {bn}), "{dtype}")')
    if odd:
        r, c = rng.choice([(3, 5), (1, 7), (5, 9), (2, 3)])
        lines.append(f'        O_s = T.alloc_shared(({r}, {c}), "{dtype}")')
    lines.append("        T.clear(C_l)")
    for name, used in (("X_s", static == "extra"), ("P_s", prelude)):
        if used:
            lines.append(f"        T.copy(B[0, bx * {bn}], {name})")
    if odd:
        lines.append(f"        T.copy(A[by * {bm}, 0], O_s)")
    if stages == "none":
        lines.append(f"        for k in T.serial(K // {bk}):")
    else:
        lines.append(f"        for k in T.Pipelined(K // {bk}, num_stages={stages}):")
    if mode.startswith("parallel"):
        lines += [
            f"            for i, j in T.Parallel({bm}, {bk}):",
            f"                A_s[i, j] = A[by * {bm} + i, k * {bk} + j]",
        ]
    else:
        lines.append(f"            T.copy(A[{a_at}], A_s)")
    if mode == "parallel-gemm":
        lines += [f"            T.copy(B[{b_at}], B_s)", "            T.gemm(A_s, B_s, C_l)"]
    elif mode == "gemm":
        transposes = "".join(f", transpose_{n}=True" for n, t in (("A", ta), ("B", tb)) if t)
        lines += [f"            T.copy(B[{b_at}], B_s)", f"            T.gemm(A_s, B_s, C_l{transposes})"]
    else:
        if mode == "copy2":
            lines.append(f"            T.copy(B[k * {bk}, bx * {bn}], B_s)")
        extra = f" + B_s[i % {bk}, j]" if mode == "copy2" else ""
        lines += [
            f"            for i, j in T.Parallel({bm}, {bn}):",
            f"                C_l[i, j] += A_s[i, j % {bk}]{extra}",
        ]
    for name, used in (("X_s", static == "extra"), ("P_s", prelude)):
        if used:
            lines += [
                f"        for i, j in T.Parallel({bm}, {bn}):",
                f"            C_l[i, j] += {name}[i % 4, j]",
            ]
    if odd:
        lines += [f"        for i, j in T.Parallel({bm}, {bn}):", "            C_l[i, j] += O_s[0, 0]"]
    if epilogue:
        lines += ["        T.copy(C_l, C_s)", f"        T.copy(C_s, C[by * {bm}, bx * {bn}])"]
    else:
        lines.append(f"        T.copy(C_l, C[by * {bm}, bx * {bn}])")
    lines += ["", "", "KERNEL = main", ""]
    return "\n".join(lines)


def plain_kernel_source(rng: random.Random) -> str:
    return tma_kernel_source(rng, plain=True)


FAMILIES = {"mixed": kernel_source, "tma": tma_kernel_source, "plain": plain_kernel_source}


def write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("build/oracle/smem/kernels"))
    parser.add_argument("--family", choices=sorted(FAMILIES), default="mixed")
    options = parser.parse_args()
    source = FAMILIES[options.family]
    rng = random.Random(options.seed)
    options.out.mkdir(parents=True, exist_ok=True)
    for number in range(options.count):
        write_atomic(options.out / f"smem_{number:04d}.py", source(rng))
    print(f"[smem] wrote {options.count} kernels to {options.out}")


if __name__ == "__main__":
    main()
