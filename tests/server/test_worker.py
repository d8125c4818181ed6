"""The analysis worker answers the lowering preview too: within the per-file budget, and a
lowering that overruns it costs a worker restart, not the server's analysis thread."""

from __future__ import annotations

from tests.server.support import DATA
from tilecheck.app.workspace import Options, Workspace
from tilecheck.server.worker import AnalysisWorker
from tilecheck.server.worker_answers import Request

PIPELINE = (DATA / "pypto_pipeline.py").read_text()
FUNCTION = "@pl.function\ndef f{0}(a, out):\n    for i in pl.pipeline(0, 8, 1, stage=2):\n        out[i] = i + {0}\n\n\n"
LARGE = "import pypto.language as pl\n\n\n" + "".join(FUNCTION.format(index) for index in range(2000))
BUDGET = (
    "File is too complex to analyze within the budget: checking it took longer than 0.2 s "
    "(per-file-timeout); no rule was run on it"  # as `tilecheck lower --per-file-timeout 0.2` says
)


def request(kind: str, tmp_path, text: str) -> Request:
    path = tmp_path / "k.py"
    return Request(kind, path.as_uri(), str(tmp_path), Options(), str(path), text)


def test_the_worker_lowers_as_the_workspace_does_and_survives_an_overrun(tmp_path):
    worker = AnalysisWorker(None)
    try:
        expected = Workspace(cwd=str(tmp_path)).lower_text(PIPELINE, str(tmp_path / "k.py"))
        lowered = worker.lower(request("lower", tmp_path, PIPELINE), None)
        assert (lowered.source, lowered.changed, lowered.diagnostics) == (expected.source, True, [])
        first = worker.pid
        # two thousand pipelines take seconds to lower: past the budget, the worker is replaced
        overrun = worker.lower(request("lower", tmp_path, LARGE), 0.2)
        assert (overrun.source, overrun.changed, overrun.blocked) == (LARGE, False, True)
        assert [(d.code, d.span.line, d.message) for d in overrun.diagnostics] == [("TL004", 1, BUDGET)]
        assert worker.restarts == 1
        again = worker.lower(request("lower", tmp_path, PIPELINE), None)
        assert again.source == expected.source and worker.pid not in (None, first)
    finally:
        worker.close()


def test_a_worker_that_cannot_start_is_a_crash_diagnostic_naming_why(tmp_path):
    # 1 MiB of address space is not enough to import libcst: the worker dies while starting.
    worker = AnalysisWorker(1)
    try:
        answer = worker.check(request("check", tmp_path, PIPELINE), 10)
        (died,) = answer.analysis.diagnostics
        assert died.code == "TL005"
        assert died.message.startswith("The worker process died while starting: it ")
        assert died.message.endswith("its memory limit was 1 MiB (per-file-memory); no rule was run")
    finally:
        worker.close()
