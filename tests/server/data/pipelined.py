import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for k in T.Pipelined(0, 8, 2):
            A[bx, k] = 0
        for j in T.serial(4):  # tilecheck: ignore[TL104]
            A[bx, j] = 1
