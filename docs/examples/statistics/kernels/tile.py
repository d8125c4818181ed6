import tilelang.language as T


def make(M):
    @T.macro
    def clear(A):
        for i in T.Parallel(M):
            A[i] = 0
        for i in T.serial(M):
            A[i] = 1

    @T.prim_func
    def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64, 64), "float32")):
        with T.Kernel(1) as bx:
            for i, j in T.Parallel(64, 64):
                B[i, j] = 0
            clear(A)
            clear(A)
            for s in [0, 1]:
                for k in T.serial(4):
                    A[k] = s

    return main


small = make(32)
large = make(64)
