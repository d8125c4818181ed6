import tilelang.language as T
from mylib import my_wrap


@my_wrap
def main(A):
    with T.Kernel(1) as bx:
        for i in T.Parallel(8):
            A[i] = 0
