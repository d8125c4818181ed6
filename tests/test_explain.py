"""`tilecheck explain FILE[:LINE]`: the loop nest as a tree with its diagnostics (issue 4 §10)."""

from __future__ import annotations

import json

import pytest

from tests.support import run, write
from tilecheck.explain import split_target

KERNEL = """import tilelang.language as T


@T.macro
def inner(A, ko):
    for ki in T.Pipelined(4, num_stages=2):
        for i in T.Parallel(64):
            A[i, ki] = ko


@T.prim_func
def main(A: T.Tensor((64, 64), "float32"), n: T.int32):
    with T.Kernel(1, threads=128) as bx:
        for ko in T.Pipelined(4, num_stages=3):
            inner(A, ko)
        for i, j in T.Parallel(64, n):
            A[i, j] = 0
        if bx > 0:
            for v in T.vectorized(8):
                for k in T.serial(4):
                    A[v, k] = 0
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": KERNEL})
    return tmp_path


def tree(capsys, *args):
    outcome = run(capsys, "explain", *args, "--output-format", "json", "--isolated")
    assert outcome.status == 0, outcome.err
    return json.loads(outcome.out)


def test_split_target():
    assert split_target("k.py:12") == ("k.py", 12)
    assert split_target("k.py") == ("k.py", None)
    assert split_target("C:/x/k.py") == ("C:/x/k.py", None)


def test_the_tree_shows_kinds_extents_requests_and_macros(project, capsys):
    data = tree(capsys, "k.py")
    assert data["backend"] is None
    (kernel,) = data["kernels"]
    assert kernel["title"] == "kernel main"
    outer, parallel, runtime_if = kernel["children"]
    assert outer["title"] == "for ko in T.Pipelined(4, num_stages=3)"
    assert outer["details"][0] == "pipelined; extent 4 (constant)"
    assert outer["details"][1] == "pipeline: requested: num_stages=3, depth 3"
    (inner,) = outer["children"]
    assert (inner["line"], inner["column"]) == (15, 13)  # reported at the macro's call site
    assert any(
        "inlined from macro `inner` (called at line 15); written at k.py:6" in d for d in inner["details"]
    )
    assert parallel["details"][0] == "parallel; extents 64 (constant) x `n` (symbolic: n)"
    assert runtime_if["kind"] == "if" and runtime_if["children"][0]["title"] == "for v in T.vectorized(8)"


def test_diagnostics_hang_on_their_loops(project, capsys):
    data = tree(capsys, "k.py", "--backend", "cuda-sm80")
    assert data["backend"] == "cuda-sm80"
    outer, _, runtime_if = data["kernels"][0]["children"]
    (inner,) = outer["children"]
    assert [d["code"] for d in inner["diagnostics"]] == ["TL201"]
    vectorized = runtime_if["children"][0]
    assert [d["code"] for d in vectorized["diagnostics"]] == ["TL303"]
    assert outer["diagnostics"] == []


def test_without_backend_nested_pipelines_are_not_diagnosed(project, capsys):
    outer = tree(capsys, "k.py")["kernels"][0]["children"][0]
    assert outer["children"][0]["diagnostics"] == []


def test_line_selects_and_marks(project, capsys):
    data = tree(capsys, "k.py:20")
    node = data["kernels"][0]["children"][2]["children"][0]["children"][0]
    assert node["title"] == "for k in T.serial(4)" and node["marked"]
    data = tree(capsys, "k.py:2")
    assert data["kernels"] == [] and data["problem"] == "no kernel contains line 2"


def test_text_rendering(project, capsys):
    outcome = run(capsys, "explain", "k.py", "--backend", "cpu", "--isolated")
    assert outcome.status == 0
    lines = outcome.out.splitlines()
    assert lines[0] == "k.py  (backend: cpu)"
    assert "kernel main  (line 12)" in lines
    assert "├── for ko in T.Pipelined(4, num_stages=3)  [line 14]" in lines
    assert any(
        "note: TL301 [optimization] 14:19 num_stages=3 is ignored by the cpu backend" in line
        for line in lines
    )
    assert any(line.startswith("│   └── for ki in T.Pipelined(4, num_stages=2)  [line 15]") for line in lines)


def test_missing_file_is_a_usage_error(project, capsys):
    outcome = run(capsys, "explain", "nope.py")
    assert outcome.status == 2 and "no such file" in outcome.err


def test_files_without_kernels(project, capsys):
    write(project, {"plain.py": "x = 1\n"})
    outcome = run(capsys, "explain", "plain.py", "--isolated")
    assert outcome.status == 0 and "no TileLang kernels" in outcome.out
