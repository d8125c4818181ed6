"""Bad input becomes one clear diagnostic per file; nothing raises and other files go on."""

import json
import os
import sys

import pytest

from tilecheck.cli.main import main
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade
from tilecheck.lint.engine import check_file, check_source

KERNEL = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        loc = T.alloc_local((64,), "float32")
        for i in T.Parallel(64):
            loc[i] = A[i]
"""


def codes(result):
    return [(d.code, d.span.line, d.span.column + 1) for d in result.diagnostics]


def test_syntax_error_is_located_exactly():
    assert codes(check_source("def f(:\n    pass\n")) == [("TL001", 1, 7)]


def test_syntax_error_message_is_cpythons():
    [diagnostic] = check_source("x = (1,\n").diagnostics
    assert diagnostic.code == "TL001"
    assert diagnostic.message.startswith("Syntax error: ")


def test_undecodable_bytes_point_at_the_bad_byte():
    result = check_source(b'x = 1\ny = "\xff"\n')
    assert codes(result) == [("TL002", 2, 6)]
    assert "utf-8" in result.diagnostics[0].message


def test_declared_encoding_is_honoured():
    data = '# -*- coding: latin-1 -*-\nx = "\xe9"\n'.encode("latin-1")
    assert codes(check_source(data)) == []


def test_unknown_encoding_cookie():
    assert codes(check_source(b"# -*- coding: klingon -*-\nx = 1\n")) == [("TL002", 1, 1)]


def test_nul_byte_is_a_syntax_error():
    assert [c for c, _, _ in codes(check_source(b"x = 1\x00\n"))] == ["TL001"]


def test_long_operator_chain_is_refused_quickly():
    source = "x = " + "+".join(["1"] * 20000) + "\n"
    assert codes(check_source(source)) == [("TL004", 1, 1)]


def test_deep_indentation_is_cpythons_syntax_error():
    source = "".join(" " * i + "if x:\n" for i in range(150)) + " " * 150 + "pass\n"
    result = check_source(source)
    assert codes(result) == [("TL004", 101, 1)]
    assert (
        result.diagnostics[0].message == "File is too deeply nested to parse: too many levels of indentation"
    )


def test_missing_file(tmp_path):
    result = check_file(str(tmp_path / "missing.py"))
    assert codes(result) == [("TL003", 1, 1)]
    assert "No such file" in result.diagnostics[0].message


def test_symlink_loop(tmp_path):
    os.symlink(tmp_path / "b.py", tmp_path / "a.py")
    os.symlink(tmp_path / "a.py", tmp_path / "b.py")
    assert codes(check_file(str(tmp_path / "a.py"))) == [("TL003", 1, 1)]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_file(tmp_path):
    path = tmp_path / "k.py"
    path.write_text("x = 1\n")
    path.chmod(0)
    assert codes(check_file(str(path))) == [("TL003", 1, 1)]


def test_oversized_file(tmp_path, monkeypatch):
    import tilecheck.lint.engine

    monkeypatch.setattr(tilecheck.source.reading, "MAX_FILE_BYTES", 10)
    path = tmp_path / "k.py"
    path.write_text("x = 1\n" * 10)
    assert codes(check_file(str(path))) == [("TL003", 1, 1)]


class Crashing(Rule):
    """Crashes."""

    CODE = "TL999"
    NAME = "crashing"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        raise RuntimeError("boom")


def test_crashing_rule_is_reported_and_others_still_run():
    from tilecheck.core.registry import by_code

    result = check_source(KERNEL, "k.py", [Crashing, by_code("TL104")])
    assert codes(result) == [("TL005", 1, 1), ("TL104", 9, 13)]
    assert "TL999 (crashing) crashed: RuntimeError: boom" in result.diagnostics[0].message
    assert result.internal_error


def test_one_bad_file_does_not_stop_the_others(tmp_path, capsys):
    (tmp_path / "a_broken.py").write_text("def f(:\n")
    (tmp_path / "b_bytes.py").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "c_kernel.py").write_text(KERNEL)
    status = main([str(tmp_path), "--output-format", "json"])
    found = [
        (d["path"].rsplit("/", 1)[-1], d["code"], d["line"], d["column"])
        for d in json.loads(capsys.readouterr().out)
    ]
    assert found == [
        ("a_broken.py", "TL001", 1, 7),
        ("b_bytes.py", "TL002", 1, 1),
        ("c_kernel.py", "TL104", 9, 13),
    ]
    assert status == 1


def test_checked_files_are_never_imported_or_executed(tmp_path):
    marker = tmp_path / "executed"
    kernel = tmp_path / "kernel.py"
    kernel.write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
        + KERNEL.replace("import tilelang", "import tilelang", 1)
    )
    modules_before = set(sys.modules)
    result = check_file(str(kernel))
    assert [d.code for d in result.diagnostics] == ["TL104"]
    assert not marker.exists()
    assert "kernel" not in set(sys.modules) - modules_before
    assert "tilelang" not in sys.modules


def test_a_crash_while_building_the_model_is_reported_once(monkeypatch):
    import tilecheck.lint.context

    def broken(module, imports, kernels=None):
        raise ValueError("model bug")

    monkeypatch.setattr(tilecheck.lint.context, "analyze", broken)
    result = check_source(KERNEL, "k.py")
    assert codes(result) == [("TL005", 1, 1)]
    assert result.diagnostics[0].message == "Building the kernel model crashed: ValueError: model bug"
    assert result.internal_error


def test_runaway_unrolling_is_refused_as_too_complex():
    levels = "".join(f"{'    ' * (3 + n)}for c{n} in {list(range(60))}:\n" for n in range(4))
    source = KERNEL + levels + "    " * 7 + "loc[c3] = 0\n"
    result = check_source(source, "k.py")
    assert codes(result) == [("TL004", 1, 1)]
    assert "Kernel expansion is too large to analyze" in result.diagnostics[0].message


def test_huge_constant_folds_are_not_computed():
    body = '        x = "a" * 10**10\n        y = [0] * 10**9\n        z = 1 << 10**9\n'
    assert codes(check_source(KERNEL + body, "k.py")) == [("TL104", 9, 13)]
