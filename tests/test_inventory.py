"""`tilecheck inventory`: parent -> child loop pairs and nested pipeline requests (issue 4 §9)."""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import time
from pathlib import Path

import pytest

import tilecheck.app.inventory
from tests.fixture_expectations import FIXTURES
from tests.support import run, write
from tilecheck.app.inventory import build

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


SMALL = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for k in T.serial(4):
            for i in T.Parallel(64):
                A[i, k] = 0
"""


def _fault_on_bad(fault):
    """`scan_file` with `fault()` for `bad.py`: the workers are forked after the patch, so it is theirs."""
    real = tilecheck.app.inventory.scan_file

    def scan(path, inventory):
        if os.path.basename(path) == "bad.py":
            fault()
        real(path, inventory)

    return scan


def _raise():
    raise RuntimeError("boom")


def _segfault():
    faulthandler.disable()  # pytest's, inherited by the worker: keep the test output clean
    os.kill(os.getpid(), signal.SIGSEGV)


def _sleep():
    time.sleep(900)


def _expected(skipped: str) -> str:
    return (
        "Loop nesting inventory: 3 files, 3 kernels\n"
        "\n"
        "Parent -> child loop pairs (direct nesting):\n"
        "  Serial -> Parallel  3  e.g. a.py:8:22, c.py:8:22, d.py:8:22\n"
        "\n"
        "Paths with nested pipeline-requested loops: 0\n"
        f"skipped bad.py: {skipped}\n"
    )


CRASHED = "Checking this file crashed: RuntimeError: boom"
SEGFAULT = (
    "The worker process checking this file died: it was killed by signal 11 (SIGSEGV); its memory "
    "limit was 2048 MiB (per-file-memory)"
)
TIMED_OUT = (
    "File is too complex to analyze within the budget: checking it took longer than 10 s "
    "(per-file-timeout); no rule was run on it"
)


@pytest.mark.parametrize(("fault", "skipped"), [(_raise, CRASHED), (_segfault, SEGFAULT)])
def test_a_file_whose_worker_fails_is_skipped_and_the_others_are_counted(
    project, capsys, monkeypatch, fault, skipped
):
    monkeypatch.setattr(tilecheck.app.inventory, "scan_file", _fault_on_bad(fault))
    write(project, {name: SMALL for name in ("a.py", "bad.py", "c.py", "d.py")})
    outcome = run(capsys, "inventory", ".")
    assert (outcome.status, outcome.out) == (0, _expected(skipped))


def test_a_file_over_the_configured_time_budget_is_skipped(project, capsys, monkeypatch):
    monkeypatch.setattr(tilecheck.app.inventory, "scan_file", _fault_on_bad(_sleep))
    write(project, {"tilecheck.toml": "per-file-timeout = 10\n"})
    write(project, {name: SMALL for name in ("a.py", "bad.py", "c.py", "d.py")})
    started = time.monotonic()
    outcome = run(capsys, "inventory", ".")
    assert (outcome.status, outcome.out) == (0, _expected(TIMED_OUT))
    assert time.monotonic() - started < 600  # not the 900 s of the slow file
    data = json.loads(run(capsys, "inventory", ".", "--output-format", "json").out)
    assert (data["files"], data["kernels"], data["unreadable"]) == (3, 3, [f"bad.py: {TIMED_OUT}"])
    assert [(p["parent"], p["child"], p["count"]) for p in data["pairs"]] == [("Serial", "Parallel", 3)]


def test_merging_per_file_inventories_keeps_the_first_examples_in_file_order(project):
    write(project, {name: SMALL for name in ("a.py", "b.py", "c.py", "d.py")})
    inventory = build(["."], examples=2, jobs=2)
    (pair,) = inventory.pairs.values()
    assert (pair.count, [str(e) for e in pair.examples]) == (4, ["a.py:8:22", "b.py:8:22"])
