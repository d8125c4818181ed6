"""Hostile input (issue 12 §1, §5): deep nesting never reaches libcst, only regular files are read,
valid Python that libcst rejects is called what it is. Every input is generated here."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from tilecheck.lint.engine import check_file, check_source
from tilecheck.source import guards as nesting
from tilecheck.source.reading import read_source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def codes(result):
    return [(d.code, d.span.line, d.span.column + 1) for d in result.diagnostics]


def test_1300_nested_parentheses_on_one_line_get_cpythons_error_at_cpythons_position():
    source = "X = " + "(" * 1300 + "0" + ")" * 1300 + "\n"
    result = check_source(source, "deep.py")
    assert codes(result) == [("TL004", 1, 205)]
    assert result.diagnostics[0].message == "File is too deeply nested to parse: too many nested parentheses"


def test_one_parenthesis_per_line():
    source = "X = " + "(\n" * 1300 + "0" + ")" * 1300 + "\n"
    assert codes(check_source(source, "deep.py")) == [("TL004", 201, 1)]


@pytest.mark.parametrize(
    "source",
    [
        "X = " + "(" * 1300 + "0" + ")" * 1300 + "\n",
        "x = " + "[" * 1300 + "]" * 1300 + "\n",
        "x = " + "T.max(" * 1300 + "0" + ")" * 1300 + "\n",
        "x = " + "not " * 9000 + "y\n",
        "x = y" + "()" * 3000 + "\n",
        "x = (" + "+\n".join(["1"] * 20000) + ")\n",
    ],
    ids=["parens", "lists", "calls", "not-chain", "call-chain", "multiline-sum"],
)
def test_inputs_that_crash_or_stall_libcst_are_decided_by_cpython_in_a_subprocess(tmp_path, source):
    """Run where a segfault would show: in a fresh interpreter, with a time limit."""
    path = tmp_path / "hostile.py"
    path.write_text(source)
    script = (
        "import sys; from tilecheck.lint.engine import check_file; "
        "print(*[d.code for d in check_file(sys.argv[1]).diagnostics])"
    )
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() in (["TL001"], ["TL004"])
    assert time.monotonic() - started < 60


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # CPython stops at the first error without a tree: libcst would need minutes on the chain.
        ("x = y" + "()" * 9000 + "\n" + "def f(:\n    pass\n", [("TL001", 2, 7)]),
        ("def f(:\n    pass\n" + "x = y" + "()" * 9000 + "\n", [("TL001", 1, 7)]),
        # A decimal literal past CPython's digit limit is read (libcst folds it as unknown)...
        ("x = " + "9" * 4301 + "\n" + "y = 1\n", []),
        # ...and does not hide what follows it from CPython.
        ("x = " + "9" * 4301 + "\n" + "def f(:\n    pass\n", [("TL001", 2, 7)]),
        ("x = " + "9" * 4301 + "\n" + "x = " + "-" * 2500 + "y\n", [("TL004", 2, 1004)]),  # the 1,001st level
    ],
    ids=[
        "chain-then-error",
        "error-then-chain",
        "long-literal",
        "long-literal-then-error",
        "long-literal-then-deep",
    ],
)
def test_a_syntax_error_in_a_suspicious_file_is_cpythons_and_libcst_never_sees_it(source, expected):
    started = time.monotonic()
    assert codes(check_source(source, "k.py")) == expected
    assert time.monotonic() - started < 60  # libcst on the 9,000-call chain: many minutes


def test_deep_but_valid_tree_is_too_complex_at_the_deep_node():
    # 2,500 levels of unary minus: CPython accepts it, but it is beyond what tilecheck hands to libcst
    source = "\n" + "x = " + "-" * 2500 + "y\n"
    result = check_source(source, "deep.py")
    assert [d.code for d in result.diagnostics] == ["TL004"]
    assert result.diagnostics[0].span.line == 2
    assert "more than 1000 levels" in result.diagnostics[0].message


def test_a_deep_statement_is_found_however_far_from_what_made_the_file_suspicious():
    # Only module-level statements that are suspicious on their own are walked for depth: the
    # long line at the top makes the file suspicious, the deep one further down is still found,
    # and of two deep statements the first is reported.
    long_line = "names = [" + ", ".join(f"n{i}" for i in range(500)) + "]\n"
    ordinary = "def f(a):\n    return (a + 1) * 2\n\n" * 40
    deep = "x = " + "-" * 2500 + "y\n"
    source = long_line + ordinary + deep + ordinary + "z = " + "-" * 2500 + "y\n"
    assert nesting.suspicious(long_line) and not nesting.suspicious(ordinary)
    result = check_source(source, "deep.py")
    assert codes(result) == [("TL004", 2 + 120, 4 + 1000)]
    assert codes(check_source(long_line + ordinary, "fine.py")) == []


def test_the_pre_check_passes_ordinary_code_without_work():
    kernel = "for i in range(3):\n    x = (i + 1) * [i, {i: (i,)}]\n" * 50
    assert not nesting.suspicious(kernel)
    assert nesting.suspicious("x = " + "(" * 101 + ")" * 101)
    assert nesting.suspicious("x = 1 + \\\n" * 300 + "1\n")
    # a bracket inside a string may raise a false alarm: CPython then decides, and the file is fine
    unbalanced = "x = '" + "(" * 60 + "'\n" + "y = 1\n" * 1000
    assert nesting.suspicious(unbalanced)
    assert codes(check_source(unbalanced)) == []


def test_valid_python_libcst_rejects_is_a_parser_limitation_not_a_syntax_error():
    result = check_source("x = 1\n(pars): bool = True\n", "k.py")
    assert codes(result) == [("TL007", 2, 9)]
    message = result.diagnostics[0].message
    assert message.startswith("File could not be analyzed: it is valid Python, but libcst ")
    assert "cannot parse it (its parser stops at line 2, column 9); no rule was run on it" in message
    assert not result.internal_error


def test_invalid_python_stays_a_syntax_error():
    assert codes(check_source("x = 1\n(pars): bool = \n", "k.py")) == [("TL001", 2, 16)]


def test_fifo_is_reported_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.update(result=check_file(str(fifo))), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert codes(outcome["result"]) == [("TL003", 1, 1)]
    assert outcome["result"].diagnostics[0].message == (
        "Cannot read file: it is a named pipe, not a regular file"
    )


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_symlink_to_a_device_is_not_read(tmp_path, device):
    link = tmp_path / "zero.py"
    os.symlink(device, link)
    data, failure = read_source(str(link))
    assert data is None
    assert failure is not None and failure.code == "TL003"
    assert failure.message == "Cannot read file: it is a character device, not a regular file"


def test_directory_named_like_a_file(tmp_path):
    (tmp_path / "pkg.py").mkdir()
    data, failure = read_source(str(tmp_path / "pkg.py"))
    assert data is None and failure.message == "Cannot read file: it is a directory, not a regular file"


def test_size_bound_holds_while_reading(tmp_path):
    path = tmp_path / "big.py"
    path.write_bytes(b"x = 1\n" * 100)
    data, failure = read_source(str(path), limit=599)
    assert data is None and failure.message == "File is too large to check (more than 599 bytes)"
    data, failure = read_source(str(path), limit=600)
    assert failure is None and data == b"x = 1\n" * 100


def test_growing_file_is_cut_at_the_bound_not_at_its_stat_size(tmp_path):
    """/proc files claim size 0 and deliver bytes: the bound counts what is read."""
    data, failure = read_source("/proc/self/status", limit=16)
    assert data is None and "more than 16 bytes" in failure.message


def _hostile_tree(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    os.symlink("/dev/zero", tmp_path / "zero.py")
    (tmp_path / "deep.py").write_text("X = " + "(" * 1300 + "0" + ")" * 1300 + "\n")
    return tmp_path


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("pipe.py", "{}:1:1: error: TL003 [meta] Cannot read file: it is a named pipe, not a regular file"),
        (
            "zero.py",
            "{}:1:1: error: TL003 [meta] Cannot read file: it is a character device, not a regular file",
        ),
        (
            "deep.py",
            "{}:1:205: error: TL004 [meta] File is too deeply nested to parse: too many nested parentheses",
        ),
    ],
)
def test_lower_reads_through_read_source_and_never_hands_deep_input_to_libcst(tmp_path, name, expected):
    path = str(_hostile_tree(tmp_path) / name)
    done = subprocess.run(
        [sys.executable, "-m", "tilecheck", "lower", path],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert expected.format(path) in done.stderr.splitlines()
    assert done.returncode in (1, 2)


def _tilecheck(*args):
    return subprocess.run(
        [sys.executable, "-m", "tilecheck", *args], capture_output=True, text=True, timeout=60, cwd=ROOT
    )


def test_check_and_inventory_of_a_hostile_tree_finish_with_one_diagnostic_per_file(tmp_path):
    """zero.py, a link to /dev/zero, leaves the tree: a walk does not follow it (as ruff)."""
    tree = str(_hostile_tree(tmp_path))
    check = _tilecheck("check", "--output-format", "concise", tree)
    assert [line.replace(tree + "/", "") for line in check.stdout.splitlines() if ".py:" in line] == [
        "deep.py:1:205: error: TL004 [meta] File is too deeply nested to parse: too many nested parentheses",
        "pipe.py:1:1: error: TL003 [meta] Cannot read file: it is a named pipe, not a regular file",
    ]
    assert check.returncode == 1
    inventory = _tilecheck("inventory", tree)
    assert inventory.returncode == 0, inventory.stderr
    skipped = sorted(
        line.replace(tree + "/", "") for line in inventory.stdout.splitlines() if "skipped" in line
    )
    assert skipped == [
        "skipped deep.py: File is too deeply nested to parse: too many nested parentheses",
        "skipped pipe.py: Cannot read file: it is a named pipe, not a regular file",
    ]


def test_a_large_literal_without_kernel_code_is_clean_without_libcst(monkeypatch):
    # 330,000 elements (1 MB on one line): CPython's parser and the depth check decide; libcst
    # would need a minute and more than a GiB on it.
    import libcst

    from tilecheck.app.workspace import Workspace
    from tilecheck.lint.prefilter import cannot_have_findings

    def refuse(*args, **kwargs):
        raise AssertionError("libcst was asked to parse it")

    monkeypatch.setattr(libcst, "parse_module", refuse)
    source = b"x = [" + b"0, " * 330_000 + b"]\n"
    assert cannot_have_findings(source, Workspace().file_settings("k.py")) == source.decode()


def test_tl006_counts_lines_incrementally_and_right_after_many_kernels():
    # TL006 used to count lines from the start of the file for each construct (quadratic).
    from tilecheck.rules.meta.unmodeled_kernel_code import UnmodeledKernelCode

    kernel = '@T.prim_func\ndef k{0}(A: T.Tensor((64,), "float32")):\n    A[0] = 0\n\n'
    source = "import tilelang.language as T\n\n" + "".join(kernel.format(i) for i in range(300))
    source += "def plain(A):\n    for i in T.Parallel(8):\n        A[i] = 0\n"
    result = check_source(source, "k.py")
    assert codes(result) == [("TL006", 2 + 4 * 300 + 2, 14)]
    assert result.diagnostics[0].code == UnmodeledKernelCode.CODE


def test_tl006_sees_kernels_nested_in_methods_and_factories():
    # TL006 finds the modeled kernels' lines by walking statements only (no expressions): a
    # kernel in a method, and a kernel and the macro it calls in a factory, are covered.
    source = (
        "import tilelang.language as T\n\n\nclass Kernels:\n"
        "    def build(self, n):\n        @T.prim_func\n"
        '        def main(A: T.Tensor((8,), "float32")):\n'
        "            with T.Kernel(1) as bx:\n                for i in T.Parallel(8):\n"
        "                    A[i] = 0\n        return main\n\n\n"
        "def factory(n):\n    @T.macro\n    def fill(A):\n        for i in T.Parallel(8):\n"
        "            A[i] = 0\n\n    @T.prim_func\n"
        '    def main(A: T.Tensor((8,), "float32")):\n'
        "        with T.Kernel(1) as bx:\n            fill(A)\n    return main\n"
    )
    assert codes(check_source(source, "k.py")) == []
    plain = source.replace("    @T.macro\n", "")  # `fill` is then a plain function: not followed
    assert codes(check_source(plain, "k.py")) == [("TL006", 16, 18)]
