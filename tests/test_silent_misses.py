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


# -- several items in one `with`: entered one at a time, as nested `with` statements.

IKET = """import contextlib

import tilelang.language as T
from tilelang.tools.cuda import iket


@T.prim_func
def main(A: T.Tensor((64,), "float32")):
"""


def test_an_iket_range_beside_the_kernel_leaves_its_body_checked() -> None:
    """TileLang: "Nested parallel loops are not allowed" (`iket.range` only evaluates one call
    on entry and one on exit)."""
    source = IKET + (
        "    with T.Kernel(2, threads=128) as bx, iket.range('kernel') as scope:\n"
        "        P = T.alloc_fragment((4,), 'float32')\n"
        "        for i in T.Parallel(4):\n"
        "            P[i] = A[bx]\n"
        "            for q in T.Parallel(4):\n"
        "                P[q] = 0\n"
    )
    assert found(source) == [("TL101", 13, 21)]
    chain = IKET + (
        "    with T.Kernel(1, threads=128) as bx, iket.range('kernel'):\n"
        "        P = T.alloc_fragment((4, 4), 'float32')\n"
        "        for i in T.Parallel(4):\n"
        "            for j in T.Parallel(4):\n"
        "                P[i, j] = 0\n"
    )
    assert found(chain) == []  # TileLang accepts it


def test_an_iket_range_inside_a_parallel_loop_breaks_the_chain() -> None:
    """TileLang: "Nested parallel loops are not allowed" (the range events are statements of
    the outer loop's body)."""
    source = IKET + (
        "    with T.Kernel(1, threads=128) as bx:\n"
        "        P = T.alloc_fragment((4, 4), 'float32')\n"
        "        for i in T.Parallel(4):\n"
        "            with iket.range('row'):\n"
        "                for j in T.Parallel(4):\n"
        "                    P[i, j] = 0\n"
    )
    (finding,) = check_source(source, "k.py").diagnostics
    assert (finding.code, finding.span.line, finding.span.column) == ("TL101", 13, 25)
    assert "because the outer body also contains `iket.range('row')` (line 12), which emits a statement" in (
        finding.message
    )


def test_an_unknown_context_manager_beside_the_kernel_is_not_proven() -> None:
    """TileLang rejects this one too, but an unknown context manager may open frames or emit
    statements around its body (it runs arbitrary Python), so nothing under it is proven."""
    source = IKET + (
        "    with T.Kernel(1, threads=128) as bx, contextlib.nullcontext():\n"
        "        P = T.alloc_fragment((4,), 'float32')\n"
        "        for i in T.Parallel(4):\n"
        "            P[i] = 0\n"
        "            for q in T.Parallel(4):\n"
        "                P[q] = 0\n"
    )
    assert found(source) == []


# -- `T.PersistentTileScheduler`: `valid()` and the state properties load its `T.alloc_var`
# state (runtime values), `init()` / `next_tile()` store into it. TileLang 0.1.15 was run with
# `driver.get_num_sms` returning 132 (the default worker count needs a GPU's properties).

SCHEDULER = PREFIX + (
    "        sched = T.PersistentTileScheduler(8, 8, name='sched')\n        sched.init(bx)\n"
)


def test_a_persistent_scheduler_loop_is_a_runtime_while() -> None:
    """TileLang: "Nested parallel loops are not allowed"."""
    source = SCHEDULER + (
        "        while sched.valid():\n"
        "            row = sched.m_idx\n"
        "            for i in T.Parallel(4):\n"
        "                P[i] = A[row, i]\n"
        "                for q in T.Parallel(4):\n"
        "                    P[q] = 0\n"
        "            sched.next_tile()\n"
    )
    assert found(source) == [("TL101", 14, 25)]
    chain = SCHEDULER.replace("(4,)", "(4, 4)") + (
        "        while sched.valid():\n"
        "            for i in T.Parallel(4):\n"
        "                for q in T.Parallel(4):\n"
        "                    P[i, q] = A[sched.m_idx, q]\n"
        "            sched.next_tile()\n"
    )
    assert found(chain) == []  # TileLang accepts it


def test_a_scheduler_method_that_stores_breaks_a_chain() -> None:
    """TileLang: "Nested parallel loops are not allowed" (`init` is inlined as stores)."""
    source = PREFIX.replace("(4,)", "(4, 4)") + (
        "        sched = T.PersistentTileScheduler(8, 8)\n"
        "        for i in T.Parallel(4):\n"
        "            sched.init(bx)\n"
        "            for q in T.Parallel(4):\n"
        "                P[i, q] = 0\n"
    )
    assert found(source) == [("TL101", 11, 21)]


def test_a_stateless_scheduler_has_no_runtime_state() -> None:
    """TileLang fails to build `valid()` on it (AttributeError: no `_linear_idx`): not checked."""
    source = PREFIX + (
        "        sched = T.PersistentTileScheduler(8, 8, stateful=False)\n"
        "        while sched.valid():\n"
        "            for i in T.Parallel(4):\n"
        "                P[i] = 0\n"
        "                for q in T.Parallel(4):\n"
        "                    P[q] = 0\n"
    )
    assert found(source) == []


# -- a TileLang operation chosen by an undecided Python condition.

CHOICE = """import tilelang.language as T


def make(op):
    emit = T.atomic_max if op == "max" else T.atomic_min

    @T.prim_func
    def main(A: T.Tensor((64,), "float32"), B: T.Tensor((1,), "float32")):
        with T.Kernel(1):
            P = T.alloc_fragment((4,), "float32")
            for i in T.Parallel(64):
                emit(B[0], A[i])
"""


def test_an_undecided_choice_of_operations_is_a_statement_either_way() -> None:
    """TileLang, for op "max" and for "min": "Nested parallel loops are not allowed"."""
    source = (
        CHOICE + "                for q in T.Parallel(4):\n                    P[q] = 0\n    return main\n"
    )
    (finding,) = check_source(source, "k.py").diagnostics
    assert (finding.code, finding.span.line, finding.span.column) == ("TL101", 13, 25)
    assert "contains `emit(B[0], A[i])` (line 12), which emits a statement" in finding.message
    assert found(CHOICE + "    return main\n") == []  # TileLang accepts both


def test_an_undecided_choice_of_anything_else_stays_unknown() -> None:
    source = CHOICE.replace("T.atomic_min", "T.alloc_fragment") + (
        "                for q in T.Parallel(4):\n                    P[q] = 0\n    return main\n"
    )
    assert found(source) == []
