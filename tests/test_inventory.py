"""`tilecheck inventory`: parent -> child loop pairs and nested pipeline requests (issue 4 §9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixture_expectations import FIXTURES
from tests.support import run, write
from tilecheck.inventory import build

KERNEL = """import tilelang.language as T


@T.macro
def inner(A, ko):
    for ki in T.Pipelined(4, num_stages=2):
        for i in T.Parallel(64):
            A[i, ki] = ko


@T.prim_func
def main(A: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for ko in T.Pipelined(4, num_stages=3):
            inner(A, ko)
        for ko in T.Pipelined(0, 4, 2):
            if bx > 0:
                for ki in T.Pipelined(4, order=[0], stage=[0]):
                    A[ko, ki] = 0
        for r in T.Pipelined(2):
            for ko in T.Pipelined(4, num_stages=2):
                for i, j in T.Parallel(64, 64):
                    A[i, j] = r
        for c in [0, 1]:
            for k in T.serial(4):
                A[c, k] = 0
        k = T.alloc_var("int32", init=0)
        while k < 4:
            for i in T.Parallel(64):
                A[i, 0] = 0
            k = k + 1
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def pairs(inventory) -> dict[tuple[str, str], int]:
    return {(p.parent, p.child): p.count for p in inventory.pairs.values()}


def test_pairs_follow_macros_positional_stages_and_keep_bare_apart(project):
    write(project, {"k.py": KERNEL})
    inventory = build(["k.py"])
    assert (inventory.files, inventory.kernels) == (1, 1)
    found = pairs(inventory)
    assert found[("Pipelined[requested]", "Pipelined[requested]")] == 2
    assert found[("Pipelined[bare]", "Pipelined[requested]")] == 1
    assert found[("Pipelined[requested]", "Parallel")] == 2
    assert found[("While", "Parallel")] == 1
    assert ("Parallel", "Parallel") not in found  # T.Parallel(64, 64) is one loop
    assert ("Serial", "Serial") not in found  # the Python list loop is not a loop; its copies count once


def test_nested_requested_paths_with_locations(project):
    write(project, {"k.py": KERNEL})
    inventory = build(["k.py"])
    paths = [
        [(s.location.line, s.location.column, s.location.via, s.request) for s in p]
        for p in inventory.nested_requested
    ]
    assert paths == [
        [(14, 19, (), "num_stages=3"), (15, 13, ("inner",), "num_stages=2")],
        [(16, 19, (), "num_stages=2"), (18, 27, (), "order=[0], stage=[0]")],
    ]


def test_text_output_and_exit_status(project, capsys):
    write(project, {"k.py": KERNEL, "broken.py": "def (:\n"})
    outcome = run(capsys, "inventory", ".")
    assert outcome.status == 0
    assert "Loop nesting inventory: 1 file, 1 kernel" in outcome.out
    assert "Pipelined[requested] -> Pipelined[requested]" in outcome.out
    assert "k.py:15:13 (via macro `inner`)" in outcome.out
    assert "Paths with nested pipeline-requested loops: 2" in outcome.out
    assert "skipped broken.py" in outcome.out


def test_json_output(project, capsys):
    write(project, {"k.py": KERNEL})
    data = json.loads(run(capsys, "inventory", "k.py", "--output-format", "json", "--examples", "1").out)
    assert data["files"] == 1 and data["kernels"] == 1
    pair = next(p for p in data["pairs"] if p["parent"] == "Pipelined[bare]")
    assert pair == {
        "parent": "Pipelined[bare]",
        "child": "Pipelined[requested]",
        "count": 1,
        "examples": [{"path": "k.py", "line": 21, "column": 23, "via": []}],
    }
    assert [len(p) for p in data["nested_requested"]] == [2, 2]
    assert data["nested_requested"][0][1]["loop"] == "T.Pipelined(4, num_stages=2)"


def test_inventory_of_the_fixtures_is_informational(capsys):
    outcome = run(capsys, "inventory", str(FIXTURES / "backends"), str(FIXTURES / "nonrules"))
    assert outcome.status == 0
    assert "Persistent[requested] -> Pipelined[requested]" in outcome.out


def test_no_kernels_exit_zero_and_a_missing_path_is_a_usage_error(project, capsys):
    write(project, {"plain.py": "x = 1\n"})
    outcome = run(capsys, "inventory", "plain.py")
    assert outcome.status == 0
    assert "0 kernels" in outcome.out
    outcome = run(capsys, "inventory", "plain.py", "missing.py")
    assert (outcome.status, outcome.out) == (2, "")
    assert outcome.err == "tilecheck: error: missing.py: no such file or directory\n"


GOLDEN = Path(__file__).resolve().parent / "inventory_golden"


@pytest.mark.parametrize(
    ("args", "golden"),
    [((), "fixtures.txt"), (("--output-format", "json", "--examples", "5"), "fixtures.json")],
)
def test_the_fixtures_inventory_is_unchanged(capsys, monkeypatch, args, golden):
    """Byte for byte what `tilecheck inventory fixtures` printed before files were scanned in
    worker processes (issue 12): merging the per-file inventories changes nothing."""
    monkeypatch.chdir(FIXTURES.parent)
    outcome = run(capsys, "inventory", "fixtures", *args)
    assert outcome.status == 0
    assert outcome.out == (GOLDEN / golden).read_text()
