"""`tilecheck check -`: source from stdin, named by --stdin-filename; --fix prints the fixed source."""

from __future__ import annotations

import io
import json
import sys

import pytest

from tests.support import KERNEL, run


class FakeStdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


class FakeStdout(io.StringIO):
    """A text stdout with a binary buffer, like the real one."""

    def __init__(self) -> None:
        super().__init__()
        self.buffer = io.BytesIO()


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    return tmp_path


def feed(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", FakeStdin(data))


def test_stdin_is_checked_under_the_given_name(project, capsys, monkeypatch):
    feed(monkeypatch, KERNEL.encode())
    outcome = run(capsys, "check", "-", "--stdin-filename", "kernels/k.py", "--output-format", "json")
    assert outcome.status == 1
    assert outcome.findings() == [
        ("k.py", 10, 13, "TL104"),
        ("k.py", 12, 13, "TL105"),
        ("k.py", 15, 22, "TL101"),
    ]
    assert {d["path"] for d in json.loads(outcome.out)} == {"kernels/k.py"}
    assert not (project / "kernels").exists()  # nothing is written


def test_stdin_without_a_name_is_called_dash(project, capsys, monkeypatch):
    feed(monkeypatch, KERNEL.encode())
    outcome = run(capsys, "-", "--output-format", "concise")
    assert outcome.status == 1
    assert outcome.out.splitlines()[0].startswith("-:10:13: error: TL104 ")


def test_the_stdin_filename_selects_per_file_ignores(project, capsys, monkeypatch):
    (project / "pyproject.toml").write_text(
        '[tool.tilecheck.per-file-ignores]\n"legacy/*.py" = ["TL104", "TL105"]\n'
    )
    feed(monkeypatch, KERNEL.encode())
    outcome = run(capsys, "check", "-", "--stdin-filename", "legacy/k.py", "--output-format", "json")
    assert [f[3] for f in outcome.findings()] == ["TL101"]


def test_fix_prints_the_fixed_source_and_reports_on_stderr(project, capsys, monkeypatch):
    feed(monkeypatch, KERNEL.encode())
    stdout = FakeStdout()
    monkeypatch.setattr(sys, "stdout", stdout)
    from tilecheck.cli.main import main

    status = main(
        ["check", "-", "--fix", "--unsafe-fixes", "--stdin-filename", "k.py", "--output-format", "concise"]
    )
    fixed = stdout.buffer.getvalue().decode()
    assert fixed == KERNEL.replace(
        'loc = T.alloc_local((64,), "float32")', 'loc = T.alloc_fragment((64,), "float32")'
    )
    assert stdout.getvalue() == ""  # the report is not mixed into the source
    err = capsys.readouterr().err
    assert "k.py:12:13: error: TL105" in err and "TL104" not in err
    assert status == 1


def test_fix_with_nothing_to_fix_echoes_the_source_unchanged(project, capsys, monkeypatch):
    source = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n".encode("latin-1")
    feed(monkeypatch, source)
    stdout = FakeStdout()
    monkeypatch.setattr(sys, "stdout", stdout)
    from tilecheck.cli.main import main

    assert main(["check", "-", "--fix"]) == 0
    assert stdout.buffer.getvalue() == source


def test_diff_on_stdin(project, capsys, monkeypatch):
    feed(monkeypatch, KERNEL.encode())
    outcome = run(capsys, "check", "-", "--diff", "--unsafe-fixes", "--stdin-filename", "k.py")
    assert outcome.status == 1
    assert outcome.out.splitlines()[:2] == ["--- a/k.py", "+++ b/k.py"]
    assert '+        loc = T.alloc_fragment((64,), "float32")' in outcome.out.splitlines()
    assert outcome.err == "Would fix 1 diagnostic.\n"


def test_a_syntax_error_on_stdin_is_a_diagnostic(project, capsys, monkeypatch):
    feed(monkeypatch, b"def f(:\n")
    outcome = run(capsys, "check", "-", "--output-format", "json")
    assert outcome.status == 1
    assert outcome.findings() == [("-", 1, 7, "TL001")]


def test_dash_with_other_paths_is_a_usage_error(project, capsys, monkeypatch):
    feed(monkeypatch, b"")
    outcome = run(capsys, "check", "-", "a.py")
    assert outcome.status == 2
    assert outcome.err == "tilecheck: error: `-` (standard input) cannot be combined with other paths\n"


def test_statistics_on_stdin(project, capsys, monkeypatch):
    feed(monkeypatch, KERNEL.encode())
    outcome = run(capsys, "check", "-", "--statistics", "--output-format", "json")
    assert outcome.status == 1
    assert sorted(row["code"] for row in json.loads(outcome.out)) == ["TL101", "TL104", "TL105"]
