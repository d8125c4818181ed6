"""What a kernel author reads: severities, summaries, secondary locations, tailored help, fix reports."""

from __future__ import annotations

import json
import textwrap

import pytest

from tests.support import KERNEL, run, write
from tilecheck.core.types import Diagnostic, Grade, Related, Severity, Span
from tilecheck.report import Run, summary


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    return tmp_path


def kernel(body: str, params: str = "") -> str:
    return (
        "import tilelang.language as T\n\n\n@T.prim_func\n"
        f'def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32"){params}):\n'
        "    with T.Kernel(1, threads=128) as bx:\n" + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


def diagnostic(severity: Severity, line: int = 1, path: str = "k.py") -> Diagnostic:
    grade = Grade.OPTIMIZATION if severity is Severity.INFO else Grade.SEMANTIC
    return Diagnostic(path, Span(line, 0, line, 1), "TL999", "x", grade, severity, "m")


def json_of(capsys, *args):
    return json.loads(run(capsys, *args, "--output-format", "json").out)


# -- severities and summaries --------------------------------------------------------------------


def test_summary_counts_each_severity():
    found = [diagnostic(Severity.ERROR, 1), diagnostic(Severity.ERROR, 2), diagnostic(Severity.WARNING)]
    found += [diagnostic(Severity.INFO, n, "j.py") for n in (1, 2, 3)]
    assert summary(Run(found, {}, 2)) == "Found 2 errors, 1 warning, 3 notes in 2 files."
    assert summary(Run([diagnostic(Severity.INFO)], {}, 1)) == "Found 1 note in 1 file."
    assert summary(Run([], {}, 1)) == "All checks passed!"


def test_full_and_concise_show_the_severity(project, capsys):
    write(project, {"k.py": KERNEL, "u.py": "x = 1  # tilecheck: ignore[TL101]\n"})
    concise = run(capsys, ".", "--output-format", "concise").out.splitlines()
    assert [line.split(": ")[1] for line in concise[:-2]] == ["error", "error", "error", "warning"]
    assert concise[0].startswith("k.py:10:13: error: TL104 [semantic] Local buffer `loc`")
    assert concise[-2] == "Found 3 errors, 1 warning in 2 files."
    full = run(capsys, ".").out.splitlines()
    assert "u.py:1:8: warning: TL901 [meta] Unused suppression: no `TL101` diagnostic to suppress" in full


def test_clean_concise_run_says_so(project, capsys):
    write(project, {"k.py": "x = 1\n"})
    assert run(capsys, "k.py", "--output-format", "concise").out == "All checks passed!\n"
    assert run(capsys, "k.py").out == "All checks passed!\n"


# -- secondary locations -----------------------------------------------------------------------------


def test_full_output_draws_each_secondary_location(project, capsys):
    write(project, {"k.py": KERNEL})
    lines = run(capsys, "k.py", "--select", "TL101").out.splitlines()
    assert (
        lines[:14]
        == [
            "k.py:15:22: error: TL101 [semantic] Nested `T.Parallel` loop: it does not form a strict chain with the "
            "enclosing `T.Parallel` at line 13, because the outer body also contains the statement `B[i, 0] = 0` "
            "(line 14)",
            "   |",
            "15 |             for j in T.Parallel(64):",
            "   |                      ^^^^^^^^^^^^^^",
            "  ::: k.py:13:18",
            "   |",
            "13 |         for i in T.Parallel(64):",
            "   |                  -------------- the enclosing `T.Parallel` loop",
            "  ::: k.py:14:13",
            "   |",
            "14 |             B[i, 0] = 0",
            "   |             ----------- this breaks the chain",
            "  = help: Move `B[i, 0] = 0` into a `T.Parallel` loop of its own, then fuse the remaining pair into "
            "one `T.Parallel(M, N)`.",
            "",
        ][:14]
    )


def related_of(found: dict) -> list[tuple[int, int, str]]:
    return [(r["line"], r["column"], r["message"]) for r in found["related"]]


def test_serial_wrapper_gets_its_own_rewrite(project, capsys):
    write(
        project,
        {
            "k.py": kernel(
                """\
                for i in T.Parallel(64):
                    for k in T.serial(2):
                        for j in T.Parallel(32):
                            B[i, j + k * 32] = 0
                """
            )
        },
    )
    [found] = json_of(capsys, "k.py")
    assert (found["line"], found["column"], found["code"]) == (9, 26, "TL101")
    assert related_of(found) == [
        (7, 18, "the enclosing `T.Parallel` loop"),
        (8, 22, "this wraps the inner `T.Parallel` loop"),
    ]
    assert found["help"] == (
        "Hoist the `T.serial(2)` loop above the outer `T.Parallel`, so that the two `T.Parallel` loops form "
        "a chain (or fuse into one `T.Parallel(M, N)`); or make the outer loop `T.serial`."
    )
    assert "inner loop `T.serial`" not in found["help"]


def test_bind_statement_and_runtime_if_rewrites(project, capsys):
    write(
        project,
        {
            "k.py": kernel(
                """\
                for i in T.Parallel(64):
                    t = i * 2
                    for j in T.Parallel(32):
                        B[t, j] = 0
                for i in T.Parallel(64):
                    if bx > 0:
                        for j in T.Parallel(32):
                            B[i, j] = 0
                """
            )
        },
    )
    bind, runtime_if = json_of(capsys, "k.py")
    assert bind["help"].startswith("Inline `t = i * 2` into its uses, or move it into the inner loop's body")
    assert related_of(bind)[1] == (8, 13, "this breaks the chain")
    assert runtime_if["help"].startswith("Move the condition into the inner loop's body")
    assert related_of(runtime_if)[1] == (12, 13, "this wraps the inner `T.Parallel` loop")


def test_tile_op_help_names_the_operator(project, capsys):
    write(
        project,
        {
            "k.py": kernel(
                """\
                A_s = T.alloc_shared((64, 64), "float16")
                C_l = T.alloc_fragment((64, 64), "float32")
                for i in T.Parallel(64):
                    T.gemm(A_s, A_s, C_l)
                for i in T.Parallel(64):
                    T.fill(C_l[i, 0:64], 0)
                """
            )
        },
    )
    gemm, fill = json_of(capsys, "k.py")
    assert (gemm["line"], gemm["column"], gemm["code"]) == (10, 13, "TL103")
    assert gemm["help"] == (
        "Call `T.gemm` once, outside the `T.Parallel` loop at line 9: it already spreads the whole tile "
        "product over the block's threads (inside a `T.Pipelined` loop over K when it accumulates)."
    )
    assert "element" not in gemm["help"]
    assert related_of(gemm) == [(9, 18, "the enclosing `T.Parallel` loop")]
    assert fill["help"].startswith("Assign element by element in the loop (`S[i, j] = 0`)")


def test_macro_call_site_points_at_the_definition(project, capsys):
    source = kernel(
        """\
        for i in T.Parallel(64):
            clear_row(B, i)
        """
    ).replace(
        "@T.prim_func", "@T.macro\ndef clear_row(S, row):\n    T.fill(S[row, 0:64], 0)\n\n\n@T.prim_func"
    )
    write(project, {"k.py": source})
    [found] = json_of(capsys, "k.py")
    assert (found["line"], found["column"], found["code"]) == (13, 13, "TL103")
    assert related_of(found) == [(12, 18, "the enclosing `T.Parallel` loop"), (6, 5, "in macro `clear_row`")]
    full = run(capsys, "k.py").out.splitlines()
    assert full[full.index("  ::: k.py:6:5") + 1 : full.index("  ::: k.py:6:5") + 4] == [
        "   |",
        " 6 |     T.fill(S[row, 0:64], 0)",
        "   |     ----------------------- in macro `clear_row`",
    ]


def test_pipeline_rules_point_at_the_loops(project, capsys):
    source = kernel(
        """\
        for ko in T.Pipelined(4, num_stages=3):
            for ki in T.Pipelined(4, num_stages=2):
                B[ko, ki] = A[ko, ki]
        for i in T.Parallel(64):
            for k in T.Pipelined(4, num_stages=2):
                B[i, k] = 0
        """
    )
    write(project, {"k.py": source})
    nested, in_parallel = json_of(capsys, "k.py", "--backend", "cuda-sm80")
    assert (nested["code"], in_parallel["code"]) == ("TL201", "TL102")
    assert related_of(nested) == [(7, 19, "the outer pipelined loop")]
    assert nested["help"].startswith(
        "Make one level bare: drop num_stages=3 from `T.Pipelined(4, num_stages=3)`"
    )
    assert related_of(in_parallel) == [(10, 18, "the enclosing `T.Parallel` loop")]
    assert in_parallel["help"].startswith(
        "Make `T.Pipelined(4, num_stages=2)` the outer loop and put the `T.Parallel` loop of line 10 inside it"
    )


def test_symbolic_fragment_points_at_the_loop_and_the_allocation(project, capsys):
    write(project, {"k.py": KERNEL})
    found = json_of(capsys, "k.py", "--select", "TL105")[0]
    assert related_of(found) == [
        (11, 18, "this `T.Parallel` loop has the symbolic range `n`"),
        (8, 16, "`frag` is allocated with `T.alloc_fragment`"),
    ]
    assert found["help"] == (
        "Give the loop a constant extent that covers `n` (the tile size) and guard the tail: "
        "`for i in T.Parallel(TILE): if i < n: ...`; or make it `T.serial(n)`."
    )


def test_checker_gaps_point_at_the_loop_too(project, capsys):
    source = kernel(
        """\
        loc = T.alloc_local((64,), "float32")
        C_l = T.alloc_fragment((64, 64), "float32")
        for i in T.Parallel(64):
            idx = i + 1
            B[i, 0] = loc[idx - 1]
        for i in T.Parallel(64):
            T.call_extern("handle", "f", T.gemm(C_l, C_l, C_l))
        """
    )
    write(project, {"k.py": source})
    hidden, nested = json_of(capsys, "k.py")
    assert (hidden["code"], nested["code"]) == ("TL208", "TL209")
    assert related_of(hidden) == [
        (9, 18, "`i` is the variable of this `T.Parallel` loop"),
        (7, 15, "`loc` is allocated with `T.alloc_local`"),
    ]
    assert related_of(nested) == [(12, 18, "the enclosing `T.Parallel` loop")]
    assert nested["help"].startswith("Call `T.gemm` once, outside the `T.Parallel` loop at line 12")


def test_related_location_outside_the_excerpt_source_is_named():
    from io import StringIO

    from tilecheck.report import full

    item = Diagnostic(
        "k.py",
        Span(2, 0, 2, 1),
        "TL999",
        "x",
        Grade.SEMANTIC,
        Severity.ERROR,
        "m",
        related=(Related(Span(1, 0, 1, 3), "defined here", path="other.py"),),
    )
    out = StringIO()
    full.render(Run([item], {"k.py": "a\nb\n"}, 1), out)
    assert out.getvalue().splitlines()[4] == " ::: other.py:1:1: defined here"


# -- fixes and statistics ------------------------------------------------------------------------------


def test_statistics_marks_safe_and_unsafe_fixes_and_totals(project, capsys):
    write(project, {"k.py": KERNEL, "u.py": "x = 1  # tilecheck: ignore[TL101]\n"})
    outcome = run(capsys, ".", "--statistics")
    assert outcome.out.splitlines() == [
        "1  TL101      nested-parallel",
        "1  TL104  [-] parallel-indexed-local",
        "1  TL105      symbolic-parallel-fragment",
        "1  TL901  [*] unused-suppression",
        "Found 3 errors, 1 warning in 2 files.",
        "",
        "Modeled: 1 kernel, 4 loops in 1 of 2 files",
        "  kernels  loops  file",
        "        1      4  k.py",
    ]
    diff = run(capsys, ".", "--statistics", "--diff")
    assert diff.out == outcome.out and diff.status == 1
    assert diff.err == "Would fix 1 diagnostic (1 more fix available with `--unsafe-fixes`).\n"
    assert (project / "u.py").read_text() == "x = 1  # tilecheck: ignore[TL101]\n"  # --diff changes nothing


def test_show_fixes_lists_files_and_rules(project, capsys):
    write(
        project,
        {"u.py": "x = 1  # tilecheck: ignore[TL101]\n", "v.py": "y = 2  # tilecheck: ignore[TL104]\n"},
    )
    outcome = run(capsys, ".", "--fix", "--show-fixes")
    assert outcome.out.splitlines() == [
        "Fixed 2 diagnostics:",
        "- u.py:",
        "    1 x TL901 (unused-suppression)",
        "- v.py:",
        "    1 x TL901 (unused-suppression)",
        "All checks passed!",
    ]
    write(project, {"u.py": "x = 1  # tilecheck: ignore[TL101]\n"})
    assert run(capsys, ".", "--fix").out.splitlines() == ["Fixed 1 diagnostic.", "All checks passed!"]
