"""Shared prologue for the rules' VALID/INVALID examples (not a rule module)."""

KERNEL = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
"""
