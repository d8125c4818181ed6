"""`Workspace.lower_text` skips the CST for files the check's prefilter proves clean: the same
result as the full lowering on every fixture and on tilecheck's own sources, without libcst."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilecheck.app.lowering import lower_configured
from tilecheck.app.workspace import Options, Workspace
from tilecheck.pypto import api

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "fixtures").rglob("*.py")) + sorted((ROOT / "tilecheck").rglob("*.py"))


@pytest.fixture(scope="module")
def workspace():
    return Workspace(Options(isolated=True), cwd=str(ROOT))


def test_the_fast_path_changes_no_result(workspace):
    differing = []
    for path in FILES:
        data = path.read_bytes()
        fast = workspace.lower_text(data, str(path))
        full = lower_configured(data, str(path), workspace.file_settings(str(path)))
        if fast != full:
            differing.append(str(path.relative_to(ROOT)))
    assert differing == []


def test_a_file_without_pypto_is_not_parsed(workspace, monkeypatch, tmp_path):
    def no_parse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(api, "parse", no_parse)
    path = tmp_path / "plain.py"
    result = workspace.lower_text(b"def f(x):\n    return x + 1\n", str(path))
    assert (result.source, result.diagnostics, result.changed, result.original) == (
        "def f(x):\n    return x + 1\n",
        [],
        False,
        "def f(x):\n    return x + 1\n",
    )
    with pytest.raises(AssertionError, match="parsed"):  # a PyPTO file takes the full path
        workspace.lower_text(b"import pypto.language as pl\n", str(path))
