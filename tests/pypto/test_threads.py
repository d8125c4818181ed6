"""No process-wide state in the PyPTO checks and lowering: threads give what sequential runs give."""

from __future__ import annotations

import gc
from concurrent.futures import ThreadPoolExecutor

from tests.pypto.helpers import program
from tilecheck.app.workspace import Options, Workspace

SOURCES = {
    "a.py": program("for i in pl.pipeline(0, n, 1, stage=3):\n    x = pl.load(a, [i], [16])\n"),
    "b.py": program(
        "for i in pl.pipeline(4, stage=2):\n    for j in pl.pipeline(4, stage=2):\n        x = j\n"
    ),
    "c.py": program("for i in pl.pipeline(8, stage=2, foo=1):\n    x = i\n"),
    "d.py": program("for i, (x,) in pl.pipeline(5, stage=2, init_values=(s0,)):\n    r = pl.yield_(x)\n"),
}


def _outcome(workspace: Workspace, path: str) -> tuple[object, ...]:
    lowered = workspace.lower_text(SOURCES[path], path)
    checked = workspace.check_text(SOURCES[path], path)
    return lowered.source, tuple(lowered.diagnostics), tuple(checked.diagnostics)


def test_threads_lower_and_check_as_one_after_the_other():
    workspace = Workspace(Options(backend="cuda-sm80", isolated=True))
    sequential = {path: _outcome(workspace, path) for path in SOURCES}
    assert [d.code for d in sequential["b.py"][1]] == ["TL419"]  # the backend applies
    assert [d.code for d in sequential["c.py"][2]] == ["TL405"]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            paths = [*SOURCES, *reversed(SOURCES)]
            futures = [pool.submit(_outcome, workspace, path) for path in paths]
            assert [future.result() for future in futures] == [sequential[path] for path in paths]


def test_lowering_leaves_the_garbage_collector_alone():
    enabled = gc.isenabled()
    Workspace(Options(isolated=True)).lower_text(SOURCES["a.py"], "a.py")
    assert gc.isenabled() == enabled
