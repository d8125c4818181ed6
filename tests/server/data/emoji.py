import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        loc = T.alloc_local((64,), "float32")
        for i in T.Parallel(64):
            s = "😀中"; loc[i] = A[i, 0]
