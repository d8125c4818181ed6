"""One mistake, one error (issue 10 §4): findings that the root finding's rewrite removes are its notes."""

from tilecheck.core.registry import by_code
from tilecheck.core.types import Span
from tilecheck.lint.engine import check_source

PREFIX = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        S = T.alloc_shared((64, 64), "float32")
"""
PIPELINE_IN_PARALLEL = PREFIX + (
    "        for i in T.Parallel(64):\n"
    "            for k in T.Pipelined(4, num_stages=2):\n"
    "                T.copy(A, S)\n"
    "                for j in T.Parallel(64):\n"
    "                    B[i, j] = S[i, j]\n"
)


def found(source: str, codes: tuple[str, ...] = ("TL101", "TL102", "TL103", "TL209")):
    rules = [by_code(code) for code in codes]
    return check_source(source, "k.py", rules).diagnostics


def test_a_pipeline_in_a_parallel_loop_is_one_error_with_its_consequences_as_notes():
    (root,) = found(PIPELINE_IN_PARALLEL)
    assert (root.code, root.span.line, root.span.column) == ("TL102", 9, 21)
    assert [(r.span.line, r.span.column, r.message.split(" ", 1)[0]) for r in root.related] == [
        (8, 17, "the"),  # the enclosing `T.Parallel` loop (TL102's own secondary location)
        (10, 16, "TL103"),
        (11, 25, "TL101"),
    ]
    assert root.related[1].message.startswith("TL103 Tile operator `T.copy`")


def test_without_the_root_rule_the_consequences_are_errors_of_their_own():
    assert [(d.code, d.span.line) for d in found(PIPELINE_IN_PARALLEL, ("TL101", "TL103"))] == [
        ("TL103", 10),
        ("TL101", 11),
    ]


def test_independent_mistakes_keep_one_error_each():
    source = PREFIX + (
        "        for i in T.Parallel(64):\n"
        "            T.copy(A, S)\n"
        "        for i in T.Parallel(64):\n"
        "            for k in T.Pipelined(4, num_stages=2):\n"
        "                B[i, k] = 0\n"
    )
    assert [(d.code, d.span.line, [r.message for r in d.related]) for d in found(source)] == [
        ("TL103", 9, ["the enclosing `T.Parallel` loop"]),
        ("TL102", 11, ["the enclosing `T.Parallel` loop"]),
    ]


def test_a_suppressed_consequence_counts_as_used_and_the_root_still_reports():
    source = PIPELINE_IN_PARALLEL.replace("T.copy(A, S)", "T.copy(A, S)  # tilecheck: ignore[TL103]")
    rules = [by_code(code) for code in ("TL101", "TL102", "TL103", "TL901")]
    diagnostics = check_source(source, "k.py", rules).diagnostics
    assert [(d.code, d.span.line) for d in diagnostics] == [("TL102", 9)]
    assert [r.span for r in diagnostics[0].related] == [Span(8, 17, 8, 31), Span(11, 25, 11, 39)]
