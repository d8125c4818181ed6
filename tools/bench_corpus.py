"""The generated corpus `make bench` measures when the shared TileLang corpus is absent: seeded,
realistic kernel files (GEMM, softmax and reduction factories with macros, pipelines and
parallel nests, one file in five with a violation), and the small clean file the per-file
figures check.
"""

from __future__ import annotations

import random
from pathlib import Path

SMALL_CLEAN = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i, j in T.Parallel(64, 64):
            B[i, j] = A[i, j]
"""

GEMM = """
@tilelang.jit
def matmul_{n}(M, N, K, block_M={bm}, block_N={bn}, block_K=32, dtype="float16", accum="float"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages={stages}):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = T.max(C_local[i, j], 0)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
"""

SOFTMAX = """
@T.macro
def row_scale_{n}(S, row, factor):
    for j in T.Parallel({cols}):
        S[row, j] = S[row, j] * factor


@tilelang.jit
def softmax_{n}(M, block_M={bm}):
    @T.prim_func
    def main(X: T.Tensor((M, {cols}), "float32"), Y: T.Tensor((M, {cols}), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            S = T.alloc_fragment((block_M, {cols}), "float32")
            m = T.alloc_fragment((block_M,), "float32")
            s = T.alloc_fragment((block_M,), "float32")
            scratch = T.alloc_local((4,), "float32")
            T.copy(X[bx * block_M, 0], S)
            T.reduce_max(S, m, dim=1)
            for i, j in T.Parallel(block_M, {cols}):
                S[i, j] = T.exp(S[i, j] - m[i])
            T.reduce_sum(S, s, dim=1)
            for i in T.Parallel(block_M):
                for k in T.serial(4):
                    scratch[k] = S[i, k]
                {body}
            for i, j in T.Parallel(block_M, {cols}):
                S[i, j] = S[i, j] / s[i]
            T.copy(S, Y[bx * block_M, 0])

    return main
"""

REDUCE = """
def reduce_{n}(N, block={bm}):
    S = T.dynamic("S")

    @T.prim_func
    def main(A: T.Tensor((S, N), "float32"), out: T.Tensor((S,), "float32")):
        with T.Kernel(T.ceildiv(S, block), threads=256) as bx:
            acc = T.alloc_fragment((block,), "float32")
            T.clear(acc)
            for k in range(T.ceildiv(N, 32)):
                for i in T.Parallel(block):
                    for kk in T.serial(32):
                        acc[i] += A[bx * block + i, k * 32 + kk]
            for i in T.Parallel({extent}):
                out[bx * block + i] = acc[i]

    return main
"""

VIOLATIONS = [
    "row_scale_{n}(S, i * 1, 0.5)",
    "S[i, 0] = scratch[0]",
    "scratch[0] = S[i, 1]\n                for j in T.Parallel({cols}):\n                    S[i, j] = scratch[0]",
    "T.fill(S[i, 0:4], 0)",
]


def generate(out: Path, files: int, seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    total = 0
    for index in range(files):
        parts = ['"""Generated benchmark kernels."""\n\nimport tilelang\nimport tilelang.language as T\n']
        for n in range(rng.randint(7, 11)):
            name = f"{index}_{n}"
            bm = rng.choice([32, 64, 128])
            kind = rng.choice(["gemm", "softmax", "reduce"])
            if kind == "gemm":
                parts.append(
                    GEMM.format(n=name, bm=bm, bn=rng.choice([64, 128]), stages=rng.choice([0, 2, 3]))
                )
            elif kind == "softmax":
                cols = rng.choice([64, 128])
                body = rng.choice(VIOLATIONS) if rng.random() < 0.05 else "S[i, 0] = S[i, 0] + scratch[0]"
                parts.append(SOFTMAX.format(n=name, bm=bm, cols=cols, body=body.format(n=name, cols=cols)))
            else:
                extent = "block" if rng.random() < 0.9 else "S - bx * block"
                parts.append(REDUCE.format(n=name, bm=bm, extent=extent))
        text = "\n".join(parts)
        (out / f"kernels_{index:04d}.py").write_text(text)
        total += text.count("\n")
    return files, total
