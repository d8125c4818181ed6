"""`tilecheck explain FILE[:LINE]`: the loop nest as a tree with its diagnostics (issue 4 §10)."""

from __future__ import annotations

import json

import pytest

from tests.support import run, write
from tilecheck.explain.attach import split_target

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


def test_a_file_that_does_not_parse_or_decode_fails_with_its_diagnostic(project, capsys):
    (project / "bad.py").write_text("def f(:\n    pass\n")
    (project / "bin.py").write_bytes(b"\xff\xfe\x00abc")
    (project / "bad.ipynb").write_text("{not json")
    outcome = run(capsys, "explain", "bad.py", "--isolated")
    assert outcome.status == 1
    assert outcome.out.splitlines()[-1] == "  error: TL001 [meta] 1:7 Syntax error: invalid syntax"
    outcome = run(capsys, "explain", "bin.py", "--isolated", "--output-format", "json")
    assert outcome.status == 1
    assert [(d["line"], d["column"], d["code"]) for d in json.loads(outcome.out)["other_diagnostics"]] == [
        (1, 1, "TL002")
    ]
    outcome = run(capsys, "explain", "bad.ipynb", "--isolated")
    assert (
        outcome.status == 1 and "error: TL001 [meta] 1:1 Cannot read notebook: not valid JSON" in outcome.out
    )
    # a file that parses but has no kernel, or only findings, is a picture: exit 0
    (project / "plain.py").write_text("x = 1\n")
    assert run(capsys, "explain", "plain.py", "--isolated").status == 0
    assert run(capsys, "explain", "k.py", "--isolated").status == 0


# -- undecided Python-level conditions, sibling macro loops, several builds (issue 10 §2) ----------

UNDECIDED = """import tilelang.language as T


def make(flag, wide, M=64):
    @T.macro
    def clear(A):
        for i in T.Parallel(M):
            A[i] = 0
        for i in T.Parallel(M):
            A[i] = 1

    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        with T.Kernel(1) as bx:
            if flag:
                for i in T.Parallel(M):
                    A[i] = 0
                if wide:
                    for k in T.serial(M):
                        A[k] = 2
            else:
                clear(A)
            for s in [0, 1]:
                clear(A)

    return main
"""

UNDECIDED_TREE = """u.py  (backend: none selected)

kernel main  (line 13)
├── ?if flag  [line 15]
│     undecided Python-level condition: both branches are checked
│   ├── then  [line 16]
│   │   ├── ?for i in T.Parallel(M)  [line 16]
│   │   │     parallel; extent `M` (constant: a Python int)
│   │   │     under an undecided condition: `if flag` (line 15)
│   │   └── ?if wide  [line 18]
│   │         undecided Python-level condition: both branches are checked
│   │       └── then  [line 19]
│   │           └── ?for k in T.serial(M)  [line 19]
│   │                 serial; extent `M` (constant: a Python int)
│   │                 under an undecided condition: `if wide` (line 18)
│   └── else  [line 21]
│       ├── ?for i in T.Parallel(M)  [line 22]
│       │     parallel; extent `M` (constant: a Python int)
│       │     inlined from macro `clear` (called at line 22); written at u.py:7
│       │     under an undecided condition: `if flag` (line 15)
│       └── ?for i in T.Parallel(M)  [line 22]
│             parallel; extent `M` (constant: a Python int)
│             inlined from macro `clear` (called at line 22); written at u.py:9
│             under an undecided condition: `if flag` (line 15)
├── for i in T.Parallel(M)  [line 24]  (x2, Python-level unrolling)
│     parallel; extent `M` (constant: a Python int)
│     inlined from macro `clear` (called at line 24); written at u.py:7
└── for i in T.Parallel(M)  [line 24]  (x2, Python-level unrolling)
      parallel; extent `M` (constant: a Python int)
      inlined from macro `clear` (called at line 24); written at u.py:9
"""


def test_loops_under_an_undecided_condition_and_sibling_macro_loops_are_drawn(tmp_path, monkeypatch, capsys):
    """The `if` whose condition is a factory parameter is drawn with both branches (nested
    ones too); the two same-titled loops of one macro call are two nodes, while the copies
    of a Python-level `for` still fold into one node (x2)."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"u.py": UNDECIDED})
    outcome = run(capsys, "explain", "u.py", "--isolated")
    assert outcome.status == 0
    assert outcome.out.split("\n\nlegend:")[0] + "\n" == UNDECIDED_TREE
    data = tree(capsys, "u.py")
    condition = data["kernels"][0]["children"][0]
    assert (condition["kind"], condition["title"], condition["line"], condition["column"]) == (
        "if",
        "if flag",
        15,
        13,
    )
    assert condition["certain"] is False
    then, orelse = condition["children"]
    assert [(b["kind"], b["title"], b["line"], b["column"]) for b in (then, orelse)] == [
        ("branch", "then", 16, 17),
        ("branch", "else", 21, 13),
    ]
    assert [(c["title"], c["line"], c["source_line"]) for c in then["children"] + orelse["children"]] == [
        ("for i in T.Parallel(M)", 16, None),
        ("if wide", 18, None),
        ("for i in T.Parallel(M)", 22, 7),
        ("for i in T.Parallel(M)", 22, 9),
    ]
    marked = tree(capsys, "u.py:19")["kernels"][0]
    wide = marked["children"][0]["children"][0]["children"][1]
    assert wide["children"][0]["children"][0]["marked"] is True
    assert not any(branch["marked"] for branch in (marked["children"][0]["children"] + wide["children"]))


ELIF = """import tilelang.language as T


def make(flag, causal, M=64):
    @T.macro
    def clear(A):
        for i in T.Parallel(M):
            A[i] = 0

    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        with T.Kernel(1) as bx:
            if flag:
                clear(A)
            elif causal:
                for j in T.serial(M):
                    A[j] = 1
            else:
                for c in T.Parallel(4):
                    A[c] = 1

    return main
"""

ELIF_TREE = """e.py  (backend: none selected)

kernel main  (line 11)
└── ?if flag  [line 13]
      undecided Python-level condition: both branches are checked
    ├── then  [line 14]
    │   └── ?for i in T.Parallel(M)  [line 14]
    │         parallel; extent `M` (constant: a Python int)
    │         inlined from macro `clear` (called at line 14); written at e.py:7
    │         under an undecided condition: `if flag` (line 13)
    └── else  [line 15]
          the next `if` is an `elif`
        └── ?if causal  [line 15]
              undecided Python-level condition: both branches are checked
            ├── then  [line 16]
            │   └── ?for j in T.serial(M)  [line 16]
            │         serial; extent `M` (constant: a Python int)
            │         under an undecided condition: `if causal` (line 15)
            └── else  [line 18]
                └── ?for c in T.Parallel(4)  [line 19]
                      parallel; extent 4 (constant)
                      under an undecided condition: `if causal` (line 15)
"""


def test_explain_says_which_branch_a_loop_is_in_and_draws_elif_as_a_nested_else_if(
    tmp_path, monkeypatch, capsys
):
    """A macro called in the then branch counts as the then branch (its call is there), and an
    `elif` is the else branch of the first `if`, holding the second one."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"e.py": ELIF})
    outcome = run(capsys, "explain", "e.py", "--isolated")
    assert outcome.status == 0
    assert outcome.out.split("\n\nlegend:")[0] + "\n" == ELIF_TREE


BUILDS = """import tilelang.language as T


def make(flag, M):
    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        with T.Kernel(1) as bx:
            if flag:
                for i in T.Parallel(M):
                    A[i] = 0
            else:
                for k in T.serial(M):
                    for j in T.Parallel(M):
                        T.copy(A, A)
            for t in T.serial(4):
                A[t] = 1

    return main


a = make(True, 32)
b = make(False, 64)
"""


def test_a_kernel_built_twice_draws_what_either_build_has(tmp_path, monkeypatch, capsys):
    """Each call decides the condition its own way: both branches are drawn, marked as in only
    some builds, and the TL103 of the second build hangs on its loop, not on the kernel."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"b.py": BUILDS})
    (kernel,) = tree(capsys, "b.py")["kernels"]
    assert kernel["diagnostics"] == []
    first, second, common = kernel["children"]
    partial = "only in some of the kernel's 2 builds: under a Python-level condition whose value differs between the factory's calls"
    assert (first["title"], first["certain"], first["details"]) == (
        "for i in T.Parallel(M)",
        False,
        ["parallel; extent `M` = 32 (constant)  [make(flag=True, M=32)]", partial],
    )
    assert kernel["details"] == ["built by 2 factory calls: make(flag=True, M=32); make(flag=False, M=64)"]
    assert (second["title"], second["certain"], second["details"][1]) == (
        "for k in T.serial(M)",
        False,
        partial,
    )
    (inner,) = second["children"]
    assert (inner["title"], inner["certain"], len(inner["details"])) == ("for j in T.Parallel(M)", False, 1)
    assert [(d["code"], d["line"], d["column"]) for d in inner["diagnostics"]] == [("TL103", 14, 25)]
    assert (common["title"], common["certain"]) == ("for t in T.serial(4)", True)
    assert common["details"] == ["serial; extent 4 (constant)"]


TWO_SIZES = """import tilelang.language as T


def make(block_M, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((128,), dtype)):
        with T.Kernel(1) as bx:
            for i in T.Parallel(block_M):
                A[i] = 0

    return main


a = make(128)
b = make(64)
c = make(64, dtype="float16")
"""


def test_each_build_of_a_factory_is_labelled_by_its_arguments(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"f.py": TWO_SIZES})
    assert run(capsys, "explain", "f.py").out.splitlines()[2:7] == [
        "kernel main  (line 6)",
        "  built by 3 factory calls: make(block_M=128, dtype='float32'); make(block_M=64, dtype='float32'); "
        "make(block_M=64, dtype='float16')",
        "└── for i in T.Parallel(block_M)  [line 8]",
        "      parallel; extent `block_M` = 128 (constant)  [make(block_M=128, dtype='float32')]",
        "      parallel; extent `block_M` = 64 (constant)  [make(block_M=64, dtype='float32'), "
        "make(block_M=64, dtype='float16')]",
    ]
    write(tmp_path, {"f.py": TWO_SIZES.replace('b = make(64)\nc = make(64, dtype="float16")\n', "")})
    # one build: nothing to tell apart
    assert run(capsys, "explain", "f.py").out.splitlines()[2:5] == [
        "kernel main  (line 6)",
        "└── for i in T.Parallel(block_M)  [line 8]",
        "      parallel; extent `block_M` = 128 (constant)",
    ]


FACTORY_IF = """import tilelang.language as T


def make(flag, M=64):
    if flag:
        @T.prim_func
        def main(A: T.Tensor((64,), "float32")):
            with T.Kernel(1) as bx:
                for i in T.Parallel(M):
                    A[i] = 0
    else:
        @T.prim_func
        def main(A: T.Tensor((64,), "float32")):
            with T.Kernel(1) as bx:
                for i in T.serial(M):
                    A[i] = 0
    return main
"""


def test_kernels_defined_under_an_undecided_factory_condition_say_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"f.py": FACTORY_IF})
    kernels = tree(capsys, "f.py")["kernels"]
    assert [(k["line"], k["details"]) for k in kernels] == [
        (7, ["defined under an undecided condition: `if flag` (line 5)"]),
        (13, ["defined under an undecided condition: `if flag` (line 5)"]),
    ]
    text = run(capsys, "explain", "f.py", "--isolated").out
    assert "kernel main  (line 7)\n  defined under an undecided condition: `if flag` (line 5)\n└── " in text


def test_html_and_svg_draw_undecided_conditions_and_kernel_details(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"u.py": UNDECIDED, "f.py": FACTORY_IF})
    page = run(capsys, "explain", "u.py", "--output-format", "html", "--isolated").out
    assert '<li class="node if uncertain"' in page
    assert "undecided Python-level condition: both branches are checked" in page
    kernel = run(capsys, "explain", "f.py", "--output-format", "html", "--isolated").out
    assert (
        '<div class="details">defined under an undecided condition: <code>if flag</code> (line 5)</div>'
        in kernel
    )
    picture = run(capsys, "explain", "u.py", "--output-format", "svg", "--isolated").out
    assert "?if flag  [line 15]" in picture


SIBLINGS = """import tilelang.language as T


@T.macro
def two(A, B):
    for i in T.Parallel(64):
        A[i] = 0
    for i in T.Parallel(64):
        T.copy(A, A)
    for i in T.Parallel(64):
        B[i, 0] = 0
        for j in T.Parallel(64):
            B[i, j] = 1


@T.prim_func
def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64, 64), "float32")):
    with T.Kernel(1) as bx:
        two(A, B)
"""


def test_diagnostics_inside_a_macro_hang_on_the_loop_they_are_about(tmp_path, monkeypatch, capsys):
    """All the loops a macro call inlines are reported at the call site: each diagnostic goes to
    the innermost loop written around its item in the macro, not to the first of them."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"s.py": SIBLINGS})
    nodes = tree(capsys, "s.py")["kernels"][0]["children"]
    assert [(n["source_line"], [d["code"] for d in n["diagnostics"]]) for n in nodes] == [
        (6, []),
        (8, ["TL103"]),
        (10, []),
    ]
    (inner,) = nodes[2]["children"]
    assert (inner["source_line"], [d["code"] for d in inner["diagnostics"]]) == (12, ["TL101"])


def test_a_macro_from_another_module_keeps_its_file_in_conditions_and_diagnostics(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/common.py": "import tilelang.language as T\n\n\n@T.macro\ndef two(A, flag):\n"
            "    for i in T.Parallel(64):\n        A[i] = 0\n    if flag:\n"
            "        for i in T.Parallel(64):\n            T.copy(A, A)\n",
            "pkg/kernel.py": "import tilelang.language as T\n\nfrom .common import two\n\n\ndef make(flag):\n"
            '    @T.prim_func\n    def main(A: T.Tensor((64,), "float32")):\n        with T.Kernel(1) as bx:\n'
            "            two(A, flag)\n\n    return main\n",
        },
    )
    first, condition = tree(capsys, "pkg/kernel.py")["kernels"][0]["children"]
    assert (first["source_line"], first["diagnostics"]) == (6, [])
    assert (condition["title"], condition["source_line"], condition["certain"]) == ("if flag", 8, False)
    (then,) = condition["children"]
    assert (then["kind"], then["title"], then["line"], then["source_line"]) == ("branch", "then", 10, 9)
    (loop,) = then["children"]
    assert loop["details"][-1] == "under an undecided condition: `if flag` (common.py, line 8)"
    assert [(d["code"], d["line"], d["column"]) for d in loop["diagnostics"]] == [("TL103", 10, 13)]


def test_kernels_are_drawn_in_source_order(tmp_path, monkeypatch, capsys):
    # The factory's kernel is built after the module is read, the module-level one on the way.
    source = (
        "import tilelang.language as T\n\n\n"
        "def make(n):\n"
        "    @T.prim_func\n"
        '    def first(A: T.Tensor((n,), "float32")):\n'
        "        with T.Kernel(1, threads=128) as bx:\n"
        "            for i in T.Parallel(n):\n"
        "                A[i] = 0\n\n"
        "    return first\n\n\n"
        "@T.prim_func\n"
        'def second(A: T.Tensor((64,), "float32")):\n'
        "    with T.Kernel(1, threads=128) as bx:\n"
        "        for i in T.Parallel(64):\n"
        "            A[i] = 1\n\n\n"
        "kernel = make(64)\n"
    )
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": source})
    outcome = run(capsys, "explain", "k.py", "--isolated")
    heads = [line for line in outcome.out.splitlines() if line.startswith("kernel ")]
    assert heads == ["kernel first  (line 6)", "kernel second  (line 15)"]
