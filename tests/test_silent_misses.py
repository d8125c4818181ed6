"""Kernels whose violations the model used to miss (`tools/probe_misses.py`), each with what
TileLang 0.1.15 does with it on the CPU (building the PrimFunc, then its NestedLoopChecker)."""

from __future__ import annotations

from tilecheck.lint.engine import check_source

PREFIX = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        P = T.alloc_fragment((4,), "float32")
"""


def found(source: str) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.column) for d in check_source(source, "k.py").diagnostics]


# -- one target over several `T.Parallel` extents: the nest is built, the target is the list of
# its loop variables (`A[i]` stores `A[v0, v1]`).


def test_one_target_over_two_extents_builds_a_nest_checked_like_two_targets() -> None:
    """TileLang: "Nested parallel loops are not allowed" (the store beside the inner loop)."""
    source = PREFIX + (
        "        for i in T.Parallel(2, 8):\n"
        "            for q in T.Parallel(4):\n"
        "                P[q] = 0\n"
        "            A[i] = 0\n"
    )
    assert found(source) == [("TL101", 9, 21)]
    unused = source.replace("A[i] = 0", "A[0, 0] = 0")
    assert found(unused) == [("TL101", 9, 21)]


def test_one_target_over_two_extents_with_a_chain_is_accepted() -> None:
    """TileLang accepts it: the inner loop alone in the body forms a chain (2 -> 8 -> 4)."""
    source = PREFIX + (
        "        for i in T.Parallel(2, 8):\n            for q in T.Parallel(4):\n                P[q] = 0\n"
    )
    assert found(source) == []


def test_a_list_target_used_as_one_index_among_others_is_only_the_build_failure() -> None:
    """TileLang fails to build it (TypeError calling BufferStore): no checker runs, so the
    nested loop in its body is not reported."""
    source = PREFIX + (
        "        for i in T.Parallel(2, 8):\n"
        "            for q in T.Parallel(4):\n"
        "                P[q] = 0\n"
        "            A[i, 0] = 0\n"
    )
    assert found(source) == [("TL204", 8, 17)]
