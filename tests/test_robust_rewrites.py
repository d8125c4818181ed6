"""`--fix`, `--diff` and `--add-ignore` run in the crash-isolated workers within the per-file
budget (issue 12 §1, §2): a file that crashes or stalls its worker costs only itself and is
left as it was; the others are rewritten. Faults are injected as the check tests inject them,
through the function the worker runs (`tilecheck.app.workspace.lint_source`)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

import tilecheck.app.workspace
from tests.test_robust_runner import KERNEL, _segfault
from tilecheck.cli.main import main

UNUSED = "x = 1  # tilecheck: ignore[TL101]\n"  # TL901, with a safe fix that removes the comment
FIXED = "x = 1\n"
NAMES = ("a.py", "bad.py", "c.py", "d.py")


def _inject(monkeypatch, fault):
    real = tilecheck.app.workspace.lint_source
    parent = os.getpid()

    def lint(data, path, settings):
        assert os.getpid() != parent, "a file was checked in the parent process"
        if os.path.basename(path) == "bad.py":
            fault()
        return real(data, path, settings)

    monkeypatch.setattr(tilecheck.app.workspace, "lint_source", lint)


def _tree(tmp_path, text):
    for name in NAMES:
        (tmp_path / name).write_text(text)
    return [str(tmp_path / name) for name in NAMES]


def _found(capsys):
    return [(os.path.basename(d["path"]), d["code"]) for d in json.loads(capsys.readouterr().out)]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_fix_with_a_crashing_file_fixes_the_others_and_leaves_it_alone(tmp_path, capsys, monkeypatch, jobs):
    _inject(monkeypatch, _segfault)
    files = _tree(tmp_path, UNUSED)
    status = main([*files, "--isolated", "--fix", "--jobs", jobs, "--output-format", "json"])
    assert _found(capsys) == [("bad.py", "TL005")]
    assert status == 2  # tilecheck itself failed on a file, after the full report
    assert [Path(path).read_text() for path in files] == [FIXED, UNUSED, FIXED, FIXED]
    assert sorted(os.listdir(tmp_path)) == sorted(NAMES)  # no temporary file left


def test_fix_of_a_file_over_the_time_budget_is_tl004_and_it_is_not_written(tmp_path, capsys, monkeypatch):
    _inject(monkeypatch, lambda: time.sleep(900))
    files = _tree(tmp_path, UNUSED)
    started = time.monotonic()
    status = main([*files, "--isolated", "--fix", "--per-file-timeout", "10", "--output-format", "json"])
    assert time.monotonic() - started < 600  # not the 900 s of the slow file
    capsys_out = capsys.readouterr().out
    [slow] = json.loads(capsys_out)
    assert (os.path.basename(slow["path"]), slow["code"], slow["line"], slow["column"]) == (
        "bad.py",
        "TL004",
        1,
        1,
    )
    assert slow["message"] == (
        "File is too complex to analyze within the budget: checking it took longer than 10 s "
        "(per-file-timeout); no rule was run on it"
    )
    assert status == 1  # a diagnostic for the file, not a failure of tilecheck
    assert [Path(path).read_text() for path in files] == [FIXED, UNUSED, FIXED, FIXED]


def test_add_ignore_with_a_crashing_file_baselines_the_others(tmp_path, capsys, monkeypatch):
    _inject(monkeypatch, _segfault)
    files = _tree(tmp_path, KERNEL)
    status = main([*files, "--isolated", "--add-ignore=legacy"])
    captured = capsys.readouterr()
    assert "Added 3 suppression comments." in captured.err
    assert status == 2
    suppressed = KERNEL.replace("loc[i] = A[i]", "loc[i] = A[i]  # tilecheck: ignore[TL104] legacy")
    assert [Path(path).read_text() for path in files] == [suppressed, KERNEL, suppressed, suppressed]


def test_diff_with_a_crashing_file_shows_the_others(tmp_path, capsys, monkeypatch):
    _inject(monkeypatch, _segfault)
    files = _tree(tmp_path, UNUSED)
    status = main([*files, "--isolated", "--diff"])
    captured = capsys.readouterr()
    assert [line for line in captured.out.splitlines() if line.startswith("-x")] == ["-" + UNUSED.strip()] * 3
    assert "Would fix 3 diagnostics." in captured.err
    assert status == 2
    assert [Path(path).read_text() for path in files] == [UNUSED] * 4


def test_a_file_changed_while_its_fix_was_planned_is_left_alone(tmp_path, capsys, monkeypatch):
    real = tilecheck.app.workspace.lint_source

    def lint(data, path, settings):
        text = data.decode() if isinstance(data, bytes) else data
        if os.path.basename(path) == "bad.py" and text == UNUSED:
            with open(path, "w") as handle:  # someone saves the file meanwhile
                handle.write("y = 2  # tilecheck: ignore[TL101]\n")
        return real(data, path, settings)

    monkeypatch.setattr(tilecheck.app.workspace, "lint_source", lint)
    files = _tree(tmp_path, UNUSED)
    status = main([*files, "--isolated", "--fix", "--output-format", "concise"])
    captured = capsys.readouterr()
    assert "bad.py: not modified: " in captured.err
    assert status == 2
    assert [Path(path).read_text() for path in files] == [
        FIXED,
        "y = 2  # tilecheck: ignore[TL101]\n",
        FIXED,
        FIXED,
    ]
