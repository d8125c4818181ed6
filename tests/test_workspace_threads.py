"""No process-wide state: two threads checking two files at once, through one Workspace or two,
find exactly what checking them one after the other finds."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.support import ALL_FINDINGS, KERNEL
from tilecheck.app.workspace import Options, Workspace

ROOT = Path(__file__).resolve().parent.parent
SOFTMAX = ROOT / "fixtures" / "examples" / "softmax_mistakes.py"
SOFTMAX_FINDINGS = [
    (21, 17, "TL104"),
    (22, 26, "TL101"),
    (23, 47, "TL104"),
    (26, 30, "TL101"),
    (29, 17, "TL103"),
    (31, 26, "TL102"),
    (32, 21, "TL105"),
]
ROUNDS = 6


def findings(analysis):
    return [(d.span.line, d.span.column + 1, d.code, d.message) for d in analysis.diagnostics]


@pytest.fixture
def files(tmp_path):
    kernel = tmp_path / "kernel.py"
    kernel.write_text(KERNEL)
    softmax = tmp_path / "softmax_mistakes.py"
    softmax.write_text(SOFTMAX.read_text())
    return [str(kernel), str(softmax)]


def workspace(tmp_path) -> Workspace:
    return Workspace(Options(isolated=True), cwd=str(tmp_path))


def test_sequential_baseline_has_the_expected_findings(tmp_path, files):
    one = workspace(tmp_path)
    kernel, softmax = (findings(one.check_file(path)) for path in files)
    assert [f[:3] for f in kernel] == [(line, column, code) for line, column, code in ALL_FINDINGS]
    assert [f[:3] for f in softmax] == SOFTMAX_FINDINGS


@pytest.mark.parametrize("shared", [True, False], ids=["one workspace", "two workspaces"])
@pytest.mark.parametrize("how", ["check_file", "check_text"])
def test_two_threads_find_what_one_after_the_other_finds(tmp_path, files, shared, how):
    sequential = workspace(tmp_path)
    expected = [findings(sequential.check_file(path)) for path in files]
    workspaces = [workspace(tmp_path)] * 2 if shared else [workspace(tmp_path), workspace(tmp_path)]
    texts = [Path(path).read_text() for path in files]
    barrier = threading.Barrier(2)
    results: list[list[list[tuple]]] = [[], []]
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            for _ in range(ROUNDS):
                barrier.wait(timeout=60)  # both threads start each round together
                space, path = workspaces[index], files[index]
                if how == "check_file":
                    analysis = space.check_file(path)
                else:
                    analysis = space.check_text(texts[index], path)
                results[index].append(findings(analysis))
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(index,)) for index in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert errors == []
    for index, rounds in enumerate(results):
        for number, found in enumerate(rounds):
            missing = [f for f in expected[index] if f not in found]
            extra = [f for f in found if f not in expected[index]]
            assert (missing, extra) == ([], []), f"thread {index}, round {number}"
        assert len(rounds) == ROUNDS
