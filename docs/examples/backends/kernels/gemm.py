import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((256, 256), "float16"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_shared = T.alloc_shared((64, 64), "float16")
        acc = T.alloc_fragment((64, 64), "float32")
        T.clear(acc)
        for ko in T.Pipelined(4, num_stages=3):
            for ki in T.Pipelined(4, num_stages=2):
                T.copy(A[ko * 64, ki * 64], A_shared)
                T.gemm(A_shared, A_shared, acc)
        T.copy(acc, C)
