"""Crash-isolated workers and per-file budgets (issue 12 §1, §2): faults are injected into the
worker through the function it runs, never through a hook in tilecheck itself."""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import time

import pytest

import tilecheck.app.workspace
from tilecheck.app.supervisor import Budget, run_isolated
from tilecheck.app.workspace import Options, Workspace
from tilecheck.cli.main import main
from tilecheck.lint.analysis import FileAnalysis

KERNEL = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        loc = T.alloc_local((64,), "float32")
        for i in T.Parallel(64):
            loc[i] = A[i]
"""

OVER_200_MIB = (
    "File is too complex to analyze within the budget: checking it needed more than 200 MiB "
    "(per-file-memory); no rule was run on it"
)


def _pid_of(path: str) -> FileAnalysis:
    return FileAnalysis(path, text=str(os.getpid()))


def _faulty(fault):
    def work(path: str) -> FileAnalysis:
        if os.path.basename(path) == "bad.py":
            fault()
        return _pid_of(path)

    return work


def _segfault():
    faulthandler.disable()  # pytest's, inherited by the worker: keep the test output clean
    os.kill(os.getpid(), signal.SIGSEGV)


def _abort():
    faulthandler.disable()
    os.abort()


def _run(files, work, jobs=1, budget=None):
    return run_isolated(files, work, str, jobs=jobs, budget=budget or Budget())


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_segfault_costs_only_its_file(jobs):
    files = ["a.py", "b.py", "bad.py", "c.py", "d.py"]
    results = _run(files, _faulty(_segfault), jobs=jobs)
    assert [r.path for r in results] == files
    [crash] = results[2].diagnostics
    assert (crash.code, crash.span.line, crash.span.column) == ("TL005", 1, 0)
    assert crash.message == (
        "The worker process checking this file died: it was killed by signal 11 (SIGSEGV); its memory "
        "limit was 2048 MiB (per-file-memory)"
    )
    assert results[2].internal_error
    assert all(not r.diagnostics and not r.internal_error for i, r in enumerate(results) if i != 2)
    assert os.getpid() not in {int(r.text) for i, r in enumerate(results) if i != 2}


def test_abort_and_exit_codes_are_named():
    results = _run(["bad.py", "ok.py"], _faulty(_abort))
    assert "killed by signal 6 (SIGABRT)" in results[0].diagnostics[0].message
    results = _run(["bad.py", "ok.py"], _faulty(lambda: os._exit(3)))
    assert "it exited with code 3;" in results[0].diagnostics[0].message
    results = _run(["bad.py", "ok.py"], _faulty(lambda: os.kill(os.getpid(), signal.SIGKILL)))
    assert (
        "signal 9 (SIGKILL), possibly by the kernel's out-of-memory killer"
        in results[0].diagnostics[0].message
    )
    assert results[1].diagnostics == []


def test_workers_are_forked_once_and_reused():
    files = [f"f{i}.py" for i in range(12)]
    results = _run(files, _pid_of, jobs=2)
    assert len({r.text for r in results}) == 2


def test_a_file_over_the_time_budget_is_stopped_and_reported_too_complex():
    started = time.monotonic()
    results = _run(["a.py", "bad.py", "c.py"], _faulty(lambda: time.sleep(900)), budget=Budget(seconds=10))
    assert time.monotonic() - started < 600  # not the 900 s of the slow file
    [slow] = results[1].diagnostics
    assert (slow.code, slow.span.line) == ("TL004", 1)
    assert slow.message == (
        "File is too complex to analyze within the budget: checking it took longer than 10 s "
        "(per-file-timeout); no rule was run on it"
    )
    assert not results[1].internal_error
    assert results[0].diagnostics == results[2].diagnostics == []


def _allocate():
    hoard = bytearray(1024 * 1024 * 1024)  # 1 GiB: beyond the 200 MiB budget below
    hoard[0] = 1


def test_a_file_over_the_memory_budget_fails_inside_its_worker():
    results = _run(["bad.py", "b.py", "c.py"], _faulty(_allocate), budget=Budget(memory=200))
    [heavy] = results[0].diagnostics
    assert heavy.code == "TL004"
    assert heavy.message == OVER_200_MIB
    assert [r.diagnostics for r in results[1:]] == [[], []]


def _null_without_exception():
    """What a C extension's failed allocation looks like when it sets no MemoryError."""
    raise SystemError("error return without exception set")


def _directory_read_refused():
    import errno

    raise OSError(errno.ENOMEM, "Cannot allocate memory", "/site-packages/libcst")


def _library_not_mapped():
    raise ImportError("native.so: failed to map segment from shared object")


@pytest.mark.parametrize("fault", [_null_without_exception, _directory_read_refused, _library_not_mapped])
def test_what_a_failed_allocation_looks_like_under_the_limit_is_over_the_budget(fault):
    results = _run(["bad.py", "b.py"], _faulty(fault), budget=Budget(memory=200))
    [heavy] = results[0].diagnostics
    assert (heavy.code, heavy.span.line, heavy.span.column) == ("TL004", 1, 0)
    assert heavy.message == OVER_200_MIB
    assert not results[0].internal_error and results[1].diagnostics == []
    # Without a memory limit the same error is a bug of tilecheck's: TL005, exit status 2.
    results = _run(["bad.py", "b.py"], _faulty(fault), budget=Budget(memory=None))
    [crash] = results[0].diagnostics
    assert crash.code == "TL005" and crash.message.startswith("Checking this file crashed: ")
    assert results[0].internal_error and results[1].diagnostics == []


def test_a_failed_allocation_where_no_answer_can_be_sent_is_over_the_budget(monkeypatch):
    """Outside a file's own check (here as the worker limits itself), the exit code says so."""
    import tilecheck.app.supervisor

    def limit_fails(memory):
        raise SystemError("error return without exception set")

    monkeypatch.setattr(tilecheck.app.supervisor, "limit_memory", limit_fails)
    [result] = _run(["a.py"], _pid_of, budget=Budget(memory=200))
    assert [(d.code, d.message) for d in result.diagnostics] == [("TL004", OVER_200_MIB)]


def _allocate_then_abort():
    """What libcst's native parser does when an allocation fails: abort, near the limit."""
    hoard = bytearray(180 * 1024 * 1024)  # of the 200 MiB budget below
    hoard[0] = 1
    time.sleep(1)  # the parent looks at its workers' sizes every 0.1 s
    _abort()


def test_a_native_abort_near_the_memory_limit_is_over_the_budget_not_a_crash():
    results = _run(["bad.py", "b.py"], _faulty(_allocate_then_abort), budget=Budget(memory=200))
    [heavy] = results[0].diagnostics
    assert (heavy.code, heavy.span.line, heavy.span.column) == ("TL004", 1, 0)
    assert heavy.message == OVER_200_MIB
    assert not results[0].internal_error and results[1].diagnostics == []
    # Far from the limit, an abort stays a crash (TL005, exit status 2).
    results = _run(["bad.py", "b.py"], _faulty(_abort), budget=Budget(memory=200))
    assert results[0].diagnostics[0].code == "TL005" and results[0].internal_error


def _abort_in_libcst():
    """As libcst's native parser aborts (a failed allocation, however far from the limit): with
    a frame of libcst's innermost on the Python stack (its `_parse` calls the native parser)."""
    import libcst

    where = os.path.join(os.path.dirname(libcst.__file__), "_parser", "entrypoints.py")
    exec(compile("import os; os.abort()", where, "exec"))


def test_an_abort_in_libcsts_parser_is_named_as_such_not_as_a_crash(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the workers' fatal reports go
    results = _run(["bad.py", "b.py"], _faulty(_abort_in_libcst), budget=Budget(memory=2048))
    [aborted] = results[0].diagnostics
    assert (aborted.code, aborted.span.line, aborted.span.column) == ("TL004", 1, 0)
    assert aborted.message == (
        "File is too complex to parse: libcst's parser aborted on it (signal 6, SIGABRT), as it does "
        "when an allocation fails or its stack overflows; no rule was run on it"
    )
    assert not results[0].internal_error and results[1].diagnostics == []
    assert os.listdir(tmp_path) == []  # each worker's report file is removed with it


def test_an_exception_outside_the_engine_is_an_internal_error_for_that_file():
    def broken():
        raise KeyError("boom")

    results = _run(["bad.py", "ok.py"], _faulty(broken))
    assert results[0].diagnostics[0].message == "Checking this file crashed: KeyError: 'boom'"
    assert results[0].internal_error and results[1].diagnostics == []


def _crash_on_bad(real):
    def lint(data, path, settings):
        if os.path.basename(path) == "bad.py":
            _segfault()
        return real(data, path, settings)

    return lint


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_reports_every_other_file_and_exits_2(tmp_path, capsys, monkeypatch, jobs):
    monkeypatch.setattr(
        tilecheck.app.workspace, "lint_source", _crash_on_bad(tilecheck.app.workspace.lint_source)
    )
    for name in ("a.py", "bad.py", "c.py", "d.py", "e.py", "f.py", "g.py", "h.py", "i.py"):
        (tmp_path / name).write_text(KERNEL)
    status = main([str(tmp_path), "--output-format", "json", "--jobs", jobs])
    found = [(os.path.basename(d["path"]), d["code"]) for d in json.loads(capsys.readouterr().out)]
    expected = [(name, "TL104") for name in ("a.py", "c.py", "d.py", "e.py", "f.py", "g.py", "h.py", "i.py")]
    assert found == [*expected[:1], ("bad.py", "TL005"), *expected[1:]]
    assert status == 2


def test_workspace_results_are_detached_and_budget_options_apply(tmp_path, monkeypatch):
    real = tilecheck.app.workspace.lint_source

    def slow(data, path, settings):
        if os.path.basename(path) == "bad.py":
            time.sleep(900)
        return real(data, path, settings)

    monkeypatch.setattr(tilecheck.app.workspace, "lint_source", slow)
    (tmp_path / "a.py").write_text(KERNEL)
    (tmp_path / "bad.py").write_text(KERNEL)
    # 10 s: what the healthy a.py never approaches, even on a loaded machine
    workspace = Workspace(Options(isolated=True, per_file_timeout=10), cwd=str(tmp_path))
    run = workspace.check_paths([str(tmp_path)], jobs=1)
    first, second = (run.analyses[path] for path in run.files)
    assert [d.code for d in first.diagnostics] == ["TL104"]
    assert first.module is None and first.context is None and first.text == KERNEL
    assert [d.code for d in second.diagnostics] == ["TL004"]
    assert not run.internal_error


def test_cli_budget_options(tmp_path, capsys, monkeypatch):
    real = tilecheck.app.workspace.lint_source

    def slow(data, path, settings):
        time.sleep(3)
        return real(data, path, settings)

    monkeypatch.setattr(tilecheck.app.workspace, "lint_source", slow)
    (tmp_path / "k.py").write_text(KERNEL)
    status = main([str(tmp_path / "k.py"), "--output-format", "concise", "--per-file-timeout", "0.5"])
    out = capsys.readouterr().out
    assert "k.py:1:1: error: TL004 [meta] File is too complex to analyze within the budget" in out
    assert status == 1
    assert main([str(tmp_path / "k.py"), "--per-file-timeout", "-1"]) == 2
    assert "must be 0 (no limit) or more" in capsys.readouterr().err
