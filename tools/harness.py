"""What `tools/fuzz.py` and `tools/sweep.py` share: running `check` and `lower` on files in
tilecheck's crash-isolated workers (so a crash or a hang is a finding, never the end of the run),
timing each file, and classifying the outcomes."""

from __future__ import annotations

import io
import json
import os
import re
import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tilecheck.app.supervisor import Budget, run_isolated
from tilecheck.app.workspace import Options, Workspace, check_task
from tilecheck.cli.lower import run as run_lower
from tilecheck.cli.main import build_parser
from tilecheck.lint.analysis import FileAnalysis

LOWER_CAP = 2_000_000  # characters: the README's promise for `lower` output
# How the command line reports its own failure (a diagnostic's message may quote PyPTO's
# "Internal error: ..." texts, as TL417 does: that is a finding, not a failure).
_CLI_INTERNAL_ERROR = re.compile(r"^tilecheck(?: lower)?: internal error", re.MULTILINE)
_DSL = re.compile(r"^\s*(?:import|from)\s+(?:tilelang|pypto)\b", re.MULTILINE)


def uses_dsl(text: str | None) -> bool:
    return bool(text and (_DSL.search(text) or "tilelang" in text or "pypto" in text))


@dataclass
class Outcome:
    """One file's result, with what the harness measured around it."""

    path: str
    analysis: FileAnalysis
    seconds: float = 0.0
    peak_kib: int = 0  # the worker's peak resident size after this file
    lower: dict[str, Any] = field(default_factory=dict)  # status, stdout, stderr of `tilecheck lower`


_Task = TypeVar("_Task")
# The attribute of a worker's result that carries its measurements (seconds, peak KiB) back with it.
_MEASURED = "harness"


def _timed(work: Callable[[_Task], FileAnalysis]) -> Callable[[_Task], FileAnalysis]:
    def run(task: _Task) -> FileAnalysis:
        started = time.perf_counter()
        result = work(task)
        measured = (time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        setattr(result, _MEASURED, measured)
        return result

    return run


def _lower(path: str) -> FileAnalysis:
    """`tilecheck lower PATH` (printing the lowered source), captured."""
    out, err = io.StringIO(), io.StringIO()
    args = build_parser("lower").parse_args(["lower", "--isolated", path])  # the command's own defaults
    status = run_lower(args, stdout=out, stderr=err)
    report = {"status": status, "stdout": out.getvalue(), "stderr": err.getvalue()}
    return FileAnalysis(path, text=json.dumps(report))


def _outcomes(paths: Sequence[str], results: list[FileAnalysis]) -> list[Outcome]:
    outcomes = []
    for path, result in zip(paths, results, strict=True):
        seconds, peak = getattr(result, _MEASURED, (0.0, 0))
        outcomes.append(Outcome(path, result, seconds, peak))
    return outcomes


def check_files(paths: Sequence[str], *, jobs: int, budget: Budget) -> list[Outcome]:
    workspace = Workspace(
        Options(isolated=True, per_file_timeout=budget.seconds or 0, per_file_memory=budget.memory or 0),
        cwd=os.getcwd(),
    )
    tasks = [(path, workspace.file_settings(path), None) for path in paths]  # as check_tasks takes them
    results = run_isolated(tasks, _timed(check_task), lambda task: task[0], jobs=jobs, budget=budget)
    return _outcomes(paths, results)


def lower_files(paths: Sequence[str], *, jobs: int, budget: Budget) -> list[Outcome]:
    results = run_isolated(list(paths), _timed(_lower), str, jobs=jobs, budget=budget)
    outcomes = _outcomes(paths, results)
    for outcome in outcomes:
        text = outcome.analysis.text
        outcome.lower = json.loads(text) if text and text.startswith("{") else {}
    return outcomes


def internal_errors(outcome: Outcome) -> list[str]:
    """What says tilecheck itself failed on this file: TL005, a budget overrun, a crashed worker."""
    problems = []
    for diagnostic in outcome.analysis.diagnostics:
        if diagnostic.code == "TL005":
            problems.append(f"TL005 {diagnostic.message}")
        elif diagnostic.code == "TL004" and "within the budget" in diagnostic.message:
            problems.append(f"budget: {diagnostic.message}")
    return problems


def lower_problems(outcome: Outcome) -> list[str]:
    problems = internal_errors(outcome)
    report = outcome.lower
    if not report:
        return problems or ["lower produced no report"]
    if report["status"] == 2:
        problems.append(f"lower exit 2: {report['stderr'].strip()[:300]}")
    if "Traceback" in report["stderr"] or _CLI_INTERNAL_ERROR.search(report["stderr"]):
        problems.append(f"lower traceback: {report['stderr'].strip()[-300:]}")
    if len(report["stdout"]) > LOWER_CAP:
        problems.append(f"lower printed {len(report['stdout'])} characters (cap {LOWER_CAP})")
    return problems
