"""Fixes: applying edits, re-parsing, iterating, and writing files without losing anything."""

import os
import stat

import pytest

from tests.support import KERNEL, run, write
from tilecheck.app.files import WriteError, encode_like, write_atomic
from tilecheck.core.registry import by_code
from tilecheck.core.rule import Rule
from tilecheck.core.types import Edit, Fix, Grade, Span
from tilecheck.lint.engine import check_source
from tilecheck.lint.fixes import apply_fixes, apply_parsing, fix_text

FIXED_KERNEL = KERNEL.replace("T.alloc_local", "T.alloc_fragment")


def edit(line, column, end_line, end_column, text):
    return Edit(Span(line, column, end_line, end_column), text)


def test_apply_fixes_in_position_order():
    source = "abc\ndef\n"
    fixes = [Fix("b", (edit(2, 0, 2, 1, "D"),)), Fix("a", (edit(1, 1, 1, 2, "B"),))]
    assert apply_fixes(source, fixes) == "aBc\nDef\n"


def test_overlapping_fix_is_left_for_the_next_round():
    source = "abcdef\n"
    first = Fix("1", (edit(1, 1, 1, 4, "X"),))
    second = Fix("2", (edit(1, 3, 1, 5, "Y"),))
    assert apply_fixes(source, [first, second]) == "aXef\n"
    assert apply_fixes(source, [second, first]) == "aXef\n"  # position order, not list order


def test_identical_fixes_apply_once_and_count_for_each():
    fix = Fix("t", (edit(1, 0, 1, 1, "Z"),))
    text, applied = apply_parsing("a = 1\n", [fix, Fix("t", fix.edits)])
    assert (text, applied) == ("Z = 1\n", [0, 1])


def test_multi_edit_fix_is_all_or_nothing():
    source = "a = 1\nb = 2\n"
    blocker = Fix("x", (edit(1, 0, 1, 5, "a = 7"),))
    both = Fix("y", (edit(1, 4, 1, 5, "9"), edit(2, 0, 2, 1, "r")))
    assert apply_fixes(source, [both, blocker]) == "a = 7\nb = 2\n"


def test_two_insertions_at_one_place_conflict():
    source = "x\n"
    assert (
        apply_fixes(source, [Fix("1", (edit(1, 1, 1, 1, "1"),)), Fix("2", (edit(1, 1, 1, 1, "2"),))])
        == "x1\n"
    )


def test_line_removal_and_crlf_replacements():
    source = "a\r\nb\r\nc\r\n"
    assert apply_fixes(source, [Fix("rm", (edit(2, 0, 3, 0, ""),))]) == "a\r\nc\r\n"
    assert apply_fixes(source, [Fix("add", (edit(1, 1, 1, 1, "\nz"),))]) == "a\r\nz\r\nb\r\nc\r\n"
    assert apply_fixes("a\nb", [Fix("rm", (edit(2, 0, 3, 0, ""),))]) == "a\n"  # past the end: clamped


def test_a_fix_that_would_not_parse_is_dropped():
    good = Fix("good", (edit(1, 0, 1, 1, "y"),))
    bad = Fix("bad", (edit(2, 4, 2, 5, "("),))
    text, applied = apply_parsing("x = 1\nz = 2\n", [good, bad])
    assert (text, applied) == ("y = 1\nz = 2\n", [0])


class BreaksSyntax(Rule):
    """Offers a fix that breaks the file."""

    CODE = "XX100"
    NAME = "breaks-syntax"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        ctx.report_at(Span(1, 0, 1, 1), "bad", fix=Fix("break", (Edit(Span(1, 0, 1, 1), "("),)))


def test_fix_loop_never_applies_a_fix_that_breaks_the_file():
    outcome = fix_text("x = 1\n", lambda text: check_source(text, "k.py", [BreaksSyntax]))
    assert (outcome.text, outcome.fixed) == ("x = 1\n", [])
    assert [d.code for d in outcome.result.diagnostics] == ["XX100"]


def test_fix_loop_iterates_until_nothing_applies():
    # TL902 and TL901 both edit the same comment: two rounds.
    source = "x = 1  # tilecheck: ignore[TL014, TL101]\n"
    # Dropping an unknown code throws away what the user meant: never a safe fix (TL902).
    assert (
        fix_text(source, lambda text: check_source(text, "k.py")).text
        == "x = 1  # tilecheck: ignore[TL014]\n"
    )
    outcome = fix_text(source, lambda text: check_source(text, "k.py"), unsafe=True)
    assert outcome.text == "x = 1\n"
    assert sorted(d.code for d in outcome.fixed) == ["TL901", "TL902"]
    assert outcome.result.diagnostics == []


def test_tl104_fix_is_unsafe_and_rechecked():
    rules = [by_code("TL104")]
    safe = fix_text(KERNEL, lambda text: check_source(text, "k.py", rules))
    assert safe.text == KERNEL
    unsafe = fix_text(KERNEL, lambda text: check_source(text, "k.py", rules), unsafe=True)
    assert unsafe.text == FIXED_KERNEL
    assert [d.code for d in unsafe.fixed] == ["TL104"]
    assert unsafe.result.diagnostics == []


def test_tl104_fix_is_not_offered_for_a_bare_name_import():
    source = KERNEL.replace(
        "import tilelang.language as T\n",
        "import tilelang.language as T\nfrom tilelang.language import alloc_local\n",
    )
    source = source.replace("T.alloc_local(", "alloc_local(")
    [diagnostic] = [d for d in check_source(source, "k.py").diagnostics if d.code == "TL104"]
    assert diagnostic.fix is None


# -- the CLI -------------------------------------------------------------------------------------


@pytest.fixture
def kernel(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": KERNEL})
    return tmp_path / "k.py"


def test_fix_applies_only_safe_fixes_by_default(kernel, capsys):
    outcome = run(capsys, "k.py", "--fix", "--output-format", "concise")
    assert kernel.read_text() == KERNEL
    assert outcome.status == 1
    assert outcome.out.splitlines()[-2:] == [
        "Found 3 errors in 1 file.",
        "1 unsafe fix available with `--unsafe-fixes`.",  # kept after --fix, as ruff does
    ]


def test_unsafe_fixes(kernel, capsys):
    outcome = run(capsys, "k.py", "--fix", "--unsafe-fixes", "--output-format", "concise")
    assert kernel.read_text() == FIXED_KERNEL
    assert outcome.out.splitlines() == [
        "k.py:12:13: error: TL105 [contract] Fragment `frag` is indexed by `i`, the variable of a T.Parallel loop "
        "with symbolic range `n` (line 11); fragment layouts need a constant parallel range",
        "k.py:15:22: error: TL101 [semantic] Nested `T.Parallel` loop: it does not form a strict chain with the "
        "enclosing `T.Parallel` at line 13, because the outer body also contains the statement `B[i, 0] = 0` (line 14)",
        "Fixed 1 diagnostic.",
        "Found 2 errors in 1 file.",
    ]
    assert outcome.status == 1


def test_fix_hint_without_fix(kernel, capsys):
    outcome = run(capsys, "k.py")
    assert outcome.out.splitlines()[-2:] == [
        "Found 3 errors in 1 file.",
        "No fixes available (1 unsafe fix available with `--fix --unsafe-fixes`).",
    ]
    assert "  = fix: Allocate `loc` with `T.alloc_fragment` (unsafe)" in outcome.out.splitlines()
    outcome = run(capsys, "k.py", "--unsafe-fixes")
    assert outcome.out.splitlines()[-1] == "[*] 1 fixable with `--fix --unsafe-fixes`."


def test_diff_changes_nothing(kernel, capsys):
    outcome = run(capsys, "k.py", "--diff", "--unsafe-fixes")
    assert kernel.read_text() == KERNEL
    assert outcome.status == 1
    assert outcome.out.splitlines() == [
        "--- a/k.py",
        "+++ b/k.py",
        "@@ -4,7 +4,7 @@",
        " @T.prim_func",
        ' def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32"), n: T.int32):',
        "     with T.Kernel(1, threads=128) as bx:",
        '-        loc = T.alloc_local((64,), "float32")',
        '+        loc = T.alloc_fragment((64,), "float32")',
        '         frag = T.alloc_fragment((64,), "float32")',
        "         for i in T.Parallel(64):",
        "             loc[i] = A[i, 0]",
    ]
    assert outcome.err == "Would fix 1 diagnostic.\n"
    outcome = run(capsys, "k.py", "--diff")  # nothing safe to fix: the unsafe one is named
    assert (outcome.status, outcome.out, outcome.err) == (
        0,
        "",
        "No diagnostics would be fixed (1 fix available with `--unsafe-fixes`).\n",
    )


def test_exit_non_zero_on_fix(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": "x = 1  # tilecheck: ignore[TL101]\n"})
    outcome = run(capsys, "k.py", "--fix", "--exit-non-zero-on-fix")
    assert (outcome.status, (tmp_path / "k.py").read_text()) == (1, "x = 1\n")
    outcome = run(capsys, "k.py", "--fix", "--exit-non-zero-on-fix")
    assert outcome.status == 0


def test_exit_zero(kernel, capsys):
    assert run(capsys, "k.py", "--exit-zero").status == 0


# -- writing ----------------------------------------------------------------------------------------


def test_fix_keeps_permissions_encoding_bom_and_line_endings(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    latin = ("# -*- coding: latin-1 -*-\n# café\n" + KERNEL).replace("\n", "\r\n").encode("latin-1")
    (tmp_path / "latin.py").write_bytes(latin)
    bom = b"\xef\xbb\xbf" + KERNEL.encode()
    (tmp_path / "bom.py").write_bytes(bom)
    os.chmod(tmp_path / "latin.py", 0o640)
    os.chmod(tmp_path / "bom.py", 0o755)
    run(capsys, ".", "--fix", "--unsafe-fixes")
    assert (tmp_path / "latin.py").read_bytes() == latin.replace(b"alloc_local", b"alloc_fragment")
    assert (tmp_path / "bom.py").read_bytes() == bom.replace(b"alloc_local", b"alloc_fragment")
    assert stat.S_IMODE(os.stat(tmp_path / "latin.py").st_mode) == 0o640
    assert stat.S_IMODE(os.stat(tmp_path / "bom.py").st_mode) == 0o755
    assert sorted(os.listdir(tmp_path)) == ["bom.py", "latin.py"]  # no temporary files left


def test_fix_writes_through_a_symlink(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"real/k.py": KERNEL})
    os.symlink("real/k.py", tmp_path / "link.py")
    run(capsys, "link.py", "--fix", "--unsafe-fixes")
    assert os.path.islink(tmp_path / "link.py")
    assert (tmp_path / "real" / "k.py").read_text() == FIXED_KERNEL


def test_unencodable_fix_is_not_written(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = ("# -*- coding: latin-1 -*-\n" + KERNEL).encode("latin-1")
    (tmp_path / "k.py").write_bytes(data)
    outcome = run(capsys, "k.py", "--add-ignore=→ later")
    assert outcome.status == 2
    assert (
        "tilecheck: error: k.py: not modified: the fixed text cannot be encoded as iso-8859-1" in outcome.err
    )
    assert (tmp_path / "k.py").read_bytes() == data


def test_write_atomic_refuses_a_file_changed_meanwhile(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"new contents\n")
    with pytest.raises(WriteError, match="changed while it was being checked"):
        write_atomic(str(path), b"fixed\n", expected=b"old contents\n")
    assert path.read_bytes() == b"new contents\n"
    assert os.listdir(tmp_path) == ["k.py"]


def test_write_atomic_reports_a_missing_directory(tmp_path):
    with pytest.raises(WriteError):
        write_atomic(str(tmp_path / "missing" / "k.py"), b"x\n")


def test_encode_like_keeps_the_declared_encoding():
    original = "# coding: latin-1\nx = 'é'\n".encode("latin-1")
    assert encode_like(original, "# coding: latin-1\nx = 'è'\n") == "# coding: latin-1\nx = 'è'\n".encode(
        "latin-1"
    )
    with pytest.raises(WriteError):
        encode_like(original, "# coding: latin-1\nx = '→'\n")
