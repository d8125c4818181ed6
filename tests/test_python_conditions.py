"""A Python-level `if` is decided where its truth is known although its value is not (`other and
flag` with `flag` false), and `is`/`in` tests on constants fold as Python evaluates them; what
is still undecided keeps its "(when ...)" note."""

from __future__ import annotations

import pytest

from tests.support import run, write

STEP = "TL205 [semantic] `T.serial` with a step of 0: TileLang fails to build the loop (ValueError: Invalid stepped serial: step must be non-zero)"

FACTORY = """import tilelang.language as T


def make(flag, other, block=None, mode="fast"):
    @T.prim_func
    def main(B: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as bx:
            if TEST:
                for k in T.serial(0, 8, 0):
                    B[k, 0] = 0
    return main


def run(o):
    return CALL
"""


@pytest.mark.parametrize(
    ("test", "call", "expected"),
    [
        ("other and flag", "make(False, o)", []),  # never true, whatever `other` is
        ("other or flag", "make(True, o)", [f"k.py:9:26: error: {STEP}"]),  # always true: no note
        ("other and flag", "make(True, o)", [f"k.py:9:26: error: {STEP} (when `other and flag` is true)"]),
        ("block is not None", 'make(True, o, mode="slow")', []),
        ("block is not None", "make(True, o, block=64)", [f"k.py:9:26: error: {STEP}"]),
        ('mode in ("a", "b")', 'make(True, o, mode="slow")', []),
        ('mode in ("a", "b")', 'make(True, o, mode="a")', [f"k.py:9:26: error: {STEP}"]),
        ('mode not in ("a", "b")', 'make(True, o, mode="a")', []),
        # a Python operand beside a runtime one: a falsy `flag` drops the branch as it is built
        ("flag and bx < 4", "make(o, o)", [f"k.py:9:26: error: {STEP} (when `flag` is true)"]),
        ("flag and bx < 4", "make(True, o)", [f"k.py:9:26: error: {STEP}"]),
        ("flag and bx < 4", "make(False, o)", []),
    ],
)
def test_a_python_level_if_is_decided_by_what_is_known(tmp_path, monkeypatch, capsys, test, call, expected):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    write(
        tmp_path,
        {"pyproject.toml": "[tool.tilecheck]\n", "k.py": FACTORY.replace("TEST", test).replace("CALL", call)},
    )
    outcome = run(capsys, "check", "--no-cache", "--output-format", "concise", "--select", "TL205", "k.py")
    assert [line for line in outcome.out.splitlines() if line.startswith("k.py")] == expected
