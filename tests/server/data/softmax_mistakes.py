"""A row softmax with the loop-structure mistakes TileLang's compiler would reject one at a time."""

import tilelang
import tilelang.language as T


@T.macro
def scale_row(S, row, factor):
    for j in T.Parallel(64):
        S[row, j] = S[row, j] * factor


@tilelang.jit
def softmax(M, block_M=64):
    @T.prim_func
    def main(X: T.Tensor((M, 64), "float32"), Y: T.Tensor((M, 64), "float32"), n: T.int32):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            S = T.alloc_fragment((block_M, 64), "float32")
            row_max = T.alloc_local((block_M,), "float32")
            T.copy(X[bx * block_M, 0], S)
            for i in T.Parallel(block_M):
                row_max[i] = S[i, 0]  # expect: TL104:17
                for j in T.Parallel(64):  # expect: TL101:26
                    S[i, j] = T.exp(S[i, j] - row_max[i])  # expect: TL104:47
            for i in T.Parallel(block_M):
                T.fill(S[i, 0:64], 0)  # expect: TL103:17
            for i in T.Parallel(block_M):
                scale_row(S, i * 1 + 0 * bx, 0.5)
            for i in T.Parallel(n):
                for k in T.Pipelined(4, num_stages=2):  # expect: TL102:26
                    S[i, k] = 0  # expect: TL105:21
            T.copy(S, Y[bx * block_M, 0])

    return main
