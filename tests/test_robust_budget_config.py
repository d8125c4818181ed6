"""The per-file budgets as configuration keys (issue 12 §2): `per-file-timeout` and
`per-file-memory` in `tilecheck.toml` or `[tool.tilecheck]`, validated like every key, read from
the working directory's configuration (a run-wide setting), overridden by the flags, shown by
`debug-config`."""

from __future__ import annotations

import json
import os
import time

import pytest

import tilecheck.app.workspace
from tests.test_robust_runner import KERNEL
from tilecheck.app.supervisor import Budget
from tilecheck.app.workspace import Options, Workspace
from tilecheck.cli.main import main


def _slow_lint(monkeypatch, seconds):
    real = tilecheck.app.workspace.lint_source

    def lint(data, path, settings):
        if os.path.basename(path) == "bad.py":
            time.sleep(seconds)
        return real(data, path, settings)

    monkeypatch.setattr(tilecheck.app.workspace, "lint_source", lint)


def _project(tmp_path, monkeypatch, config_name, config_text):
    (tmp_path / config_name).write_text(config_text)
    (tmp_path / "a.py").write_text(KERNEL)
    (tmp_path / "bad.py").write_text(KERNEL)
    monkeypatch.chdir(tmp_path)


def _codes(capsys):
    return [(d["path"], d["code"], d["message"]) for d in json.loads(capsys.readouterr().out)]


def test_configured_timeout_applies(tmp_path, capsys, monkeypatch):
    _slow_lint(monkeypatch, 900)
    _project(tmp_path, monkeypatch, "tilecheck.toml", "per-file-timeout = 10\n")
    started = time.monotonic()
    status = main(["a.py", "bad.py", "--output-format", "json", "--no-cache"])
    assert time.monotonic() - started < 600  # not the 900 s of the slow file
    found = _codes(capsys)
    assert [(path, code) for path, code, _ in found] == [("a.py", "TL104"), ("bad.py", "TL004")]
    assert found[1][2] == (
        "File is too complex to analyze within the budget: checking it took longer than 10 s "
        "(per-file-timeout); no rule was run on it"
    )
    assert status == 1


def test_the_flag_overrides_the_configured_timeout(tmp_path, capsys, monkeypatch):
    _slow_lint(monkeypatch, 900)
    _project(tmp_path, monkeypatch, "pyproject.toml", "[tool.tilecheck]\nper-file-timeout = 600\n")
    status = main(["a.py", "bad.py", "--output-format", "json", "--no-cache", "--per-file-timeout", "10.5"])
    found = _codes(capsys)
    assert [(path, code) for path, code, _ in found] == [("a.py", "TL104"), ("bad.py", "TL004")]
    assert "checking it took longer than 10.5 s (per-file-timeout)" in found[1][2]
    assert status == 1


def test_configured_memory_applies_to_fix_as_well(tmp_path, capsys, monkeypatch):
    real = tilecheck.app.workspace.lint_source

    def heavy(data, path, settings):
        if os.path.basename(path) == "bad.py":
            hoard = bytearray(1024 * 1024 * 1024)  # 1 GiB: beyond the 200 MiB configured
            hoard[0] = 1
        return real(data, path, settings)

    monkeypatch.setattr(tilecheck.app.workspace, "lint_source", heavy)
    _project(tmp_path, monkeypatch, "pyproject.toml", "[tool.tilecheck]\nper-file-memory = 200\n")
    status = main(["a.py", "bad.py", "--output-format", "json", "--fix", "--unsafe-fixes"])
    found = _codes(capsys)
    assert [(path, code) for path, code, _ in found] == [("bad.py", "TL004")]
    assert "checking it needed more than 200 MiB (per-file-memory)" in found[0][2]
    assert status == 1
    assert "alloc_fragment" in (tmp_path / "a.py").read_text()  # TL104's unsafe fix, applied
    assert (tmp_path / "bad.py").read_text() == KERNEL


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("per-file-timeout = -1", "`per-file-timeout` must be a number of seconds, 0 or more (0: no limit), got -1"),
        ('per-file-timeout = "60"', "`per-file-timeout` must be a number of seconds, 0 or more (0: no limit), got `60`"),
        ("per-file-timeout = true", "`per-file-timeout` must be a number of seconds, 0 or more (0: no limit), got a boolean"),
        ("per-file-memory = 1.5", "`per-file-memory` must be a whole number of MiB, 0 or more (0: no limit), got 1.5"),
        ("per-file-memory = [1]", "`per-file-memory` must be a whole number of MiB, 0 or more (0: no limit), got an array"),
        ("per-file-memroy = 1", "unknown key `per-file-memroy` (did you mean `per-file-memory`?)"),
    ],
)  # fmt: skip
def test_bad_values_are_configuration_errors(tmp_path, capsys, monkeypatch, line, expected):
    _project(tmp_path, monkeypatch, "tilecheck.toml", line + "\n")
    assert main(["a.py"]) == 2
    assert capsys.readouterr().err.startswith(f"tilecheck: error: tilecheck.toml: {expected}")


def test_debug_config_shows_the_budgets_and_where_they_come_from(tmp_path, capsys, monkeypatch):
    _project(tmp_path, monkeypatch, "tilecheck.toml", "per-file-timeout = 2.5\n")
    assert main(["debug-config", "a.py"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  per-file-timeout        = 2.5  # tilecheck.toml" in lines
    assert "  per-file-memory         = 2048  # default" in lines
    assert main(["debug-config", "a.py", "--output-format", "json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert settings["per-file-timeout"] == {"value": 2.5, "origin": "tilecheck.toml"}
    assert settings["per-file-memory"] == {"value": 2048, "origin": "default"}


def test_workspace_budget_options_then_configuration_then_defaults(tmp_path):
    (tmp_path / "tilecheck.toml").write_text("per-file-timeout = 5\nper-file-memory = 0\n")
    configured = Workspace(Options(), cwd=str(tmp_path))
    assert configured.budget() == Budget(5, None)  # 0: no limit
    assert Workspace(Options(per_file_timeout=0, per_file_memory=100), cwd=str(tmp_path)).budget() == Budget(
        None, 100
    )
    assert Workspace(Options(isolated=True), cwd=str(tmp_path)).budget() == Budget(60, 2048)


def _tl004(capsys, path):
    status = main(
        [str(path), "--isolated", "--no-cache", "--output-format", "json", "--per-file-memory", "300"]
    )
    [finding] = json.loads(capsys.readouterr().out)
    return status, (finding["code"], finding["line"], finding["column"]), finding["message"]


def test_many_kernels_beyond_the_memory_budget_are_tl004_not_a_crash(tmp_path, capsys):
    # Issue 12 §2's 100,000 kernels in 10 MB, scaled to the budget: libcst's native parser
    # aborts when an allocation fails, and the parent, watching the worker, calls it what it is.
    kernel = '@T.prim_func\ndef k{0}(A: T.Tensor((64,), "float32")):\n    A[0] = 0\n\n'
    path = tmp_path / "kernels.py"
    path.write_text("import tilelang.language as T\n\n" + "".join(kernel.format(i) for i in range(30_000)))
    status, where, message = _tl004(capsys, path)
    assert status == 1  # a diagnostic for the file: no exit 2
    assert where == ("TL004", 1, 1)
    assert message == (
        "File is too complex to analyze within the budget: checking it needed more than 300 MiB "
        "(per-file-memory); no rule was run on it"
    )


def test_a_valid_9_mb_list_literal_is_tl004_within_the_memory_budget(tmp_path, capsys):
    path = tmp_path / "big.py"
    path.write_text("import tilelang.language as T\nx = [" + "0, " * 3_000_000 + "]\n")
    status, where, message = _tl004(capsys, path)
    assert status == 1
    assert where == ("TL004", 1, 1)
    assert message == (
        "File is too complex to parse: CPython's parser runs out of memory on it (too deep or too large)"
    )
