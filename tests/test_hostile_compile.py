"""What CPython's compiler refuses is TL001 (not only what its parser refuses), found without
running anything; and a fix, safe or not, is applied only when its result still compiles."""

from __future__ import annotations

import pytest

from tests.support import run, write

KERNEL_IMPORT = "import tilelang.language as T\n"
REFUSED = [
    ("for i in range(3):\n    pass\nbreak\n", 3, 1, "'break' outside loop"),
    ("continue\n", 1, 1, "'continue' not properly in loop"),
    ("f(a=1, a=2)\n", 1, 8, "keyword argument repeated: a"),
    ("x = 1  # a\0b\n", 1, 11, "source code string cannot contain null bytes"),
    ("def f():\n    x = 1\n    global x\n", 3, 5, "name 'x' is assigned to before global declaration"),
    ("return 5\n", 1, 1, "'return' outside function"),
    ("nonlocal x\n", 1, 1, "nonlocal declaration not allowed at module level"),
    ("await x\n", 1, 1, "'await' outside function"),
    ("def f(a, a):\n    pass\n", 1, 10, "duplicate argument 'a' in function definition"),
    ("def f():\n    yield 1\n    return 2\nclass C:\n    yield 3\n", 5, 5, "'yield' outside function"),
]


@pytest.mark.parametrize("kernel", [False, True], ids=["plain", "kernel"])
@pytest.mark.parametrize(("text", "line", "column", "message"), REFUSED)
def test_what_the_compiler_refuses_is_a_syntax_error(
    tmp_path, monkeypatch, capsys, kernel, text, line, column, message
):
    monkeypatch.chdir(tmp_path)
    prefix = KERNEL_IMPORT if kernel else ""
    (tmp_path / "f.py").write_bytes((prefix + text).encode())
    outcome = run(capsys, "check", "--no-cache", "--isolated", "--output-format", "concise", "f.py")
    line += prefix.count("\n")
    assert outcome.out == (
        f"f.py:{line}:{column}: error: TL001 [meta] Syntax error: {message}\nFound 1 error in 1 file.\n"
    )
    assert outcome.status == 1


PIPELINED = """import tilelang
import tilelang.language as T


@tilelang.jit
def kernel(n: int):
    @T.prim_func
    def main(A: T.Tensor((128,), "float16")):
        with T.Kernel(1, threads=128) as bx:
            for k in T.Pipelined(0, n, 3, num_stages=2):
                pass

    return main
"""


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_a_fix_whose_result_would_not_compile_is_not_applied(tmp_path, monkeypatch, capsys, unsafe):
    """TL302's fix writes `num_stages=3`: beside an explicit `num_stages=` that is a repeated
    keyword argument, which CPython refuses (libcst parses it)."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": PIPELINED})
    flags = ["--fix", "--unsafe-fixes"] if unsafe else ["--fix"]
    outcome = run(capsys, "check", "--no-cache", "--isolated", "--output-format", "concise", *flags, "k.py")
    assert (tmp_path / "k.py").read_text() == PIPELINED
    assert outcome.out.splitlines()[0] == (
        "k.py:10:22: note: TL302 [optimization] The third positional argument of `T.Pipelined` is "
        "`num_stages`, not a step: write `num_stages=3`"
    )
    assert "TL001" not in outcome.out


def test_a_fix_that_compiles_is_still_applied(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": PIPELINED.replace(", num_stages=2", "")})
    run(capsys, "check", "--no-cache", "--isolated", "--fix", "k.py")
    assert "T.Pipelined(0, n, num_stages=3)" in (tmp_path / "k.py").read_text()


@pytest.mark.parametrize("text", [text for text, *_ in REFUSED])
def test_a_text_the_compiler_refuses_is_no_fix_result(text):
    """The guard every fix goes through (`apply_parsing`): libcst parsing the result is not enough."""
    from tilecheck.core.types import Edit, Fix, Span
    from tilecheck.lint.fixes import apply_parsing, parses

    assert parses(text) is False
    source = "x = 1\n"
    fix = Fix("Replace", (Edit(Span(1, 0, 1, 5), text.rstrip("\n")),), safe=True)
    assert apply_parsing(source, [fix]) == (source, [])
