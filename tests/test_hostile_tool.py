"""`make hostile` (tools/hostile.py) on a tiny case count: each category runs and is counted, its
slowest case is named, a case repeats from its number, and a failure is printed and fails the run."""

from __future__ import annotations

import importlib.util
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _hostile():
    spec = importlib.util.spec_from_file_location("_hostile_tool", os.path.join(ROOT, "tools", "hostile.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SUMMARY = re.compile(r"^(\w+): (\d+) cases, (\d+) failed; slowest: case (\d+), [\d.]+ s \((.+)\)$")


def test_the_new_categories_run_counted_with_their_slowest_case(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # the tool sets its own: restored after
    hostile = _hostile()
    arguments = ["--cases", "1", "--seed", "7"]
    status = hostile.main(
        [*arguments, "--category", "permissions", "--category", "shadowing", "--category", "paths"]
    )
    lines = capsys.readouterr().out.splitlines()
    assert status == 0, lines
    assert lines[0].startswith("hostile: seed 7, 1 cases, ")
    assert " load " in lines[0]
    summaries = [SUMMARY.match(line) for line in lines[1:4]]
    assert [(m.group(1), m.group(2), m.group(3)) for m in summaries if m] == [
        ("permissions", "1", "0"),
        ("shadowing", "1", "0"),
        ("paths", "1", "0"),
    ]
    assert lines[-1].startswith("3 hostile cases, 0 failed (seed 7, load ")


def test_a_case_repeats_from_its_number():
    hostile = _hostile()
    from tools.hostile_fs import unprivileged_prefix

    if unprivileged_prefix() is None:
        pytest.skip("no way to drop root's DAC override here")
    first = hostile.run_case("permissions", 7, 3)
    again = hostile.run_case("permissions", 7, 3)
    assert first[:2] == again[:2]
    assert first[0].startswith("modes ")


def test_a_failure_is_printed_and_fails_the_run(monkeypatch, capsys):
    hostile = _hostile()
    monkeypatch.setitem(
        hostile.CATEGORIES, "paths", (lambda rng, directory: ("tried this", "it broke"), 0.15)
    )
    assert hostile.main(["--cases", "1", "--category", "paths"]) == 1
    out = capsys.readouterr().out
    assert "paths: 1 cases, 1 failed; slowest: case 0, " in out
    assert "paths case 0 (tried this): it broke\n" in out


def test_a_hostile_document_case_is_answered_and_repeats(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    hostile = _hostile()
    first = hostile.run_case("documents", 22, 1)
    assert first[1] is None, first
    assert first[0].startswith("opened ")
    assert hostile.run_case("documents", 22, 1)[0] == first[0]


def _pipe_with(*messages) -> int:
    from tools.hostile_run import frame

    read, write = os.pipe()
    os.write(write, b"".join(frame(message) for message in messages))
    os.close(write)
    return read


def test_the_documents_judge_wants_the_hover_answer_and_the_last_versions_diagnostics():
    import time

    from tools.hostile_documents import _await_answers

    uri = "file:///k.py"
    published = {
        "method": "textDocument/publishDiagnostics",
        "params": {"uri": uri, "version": 2, "diagnostics": []},
    }
    stale = {
        "method": "textDocument/publishDiagnostics",
        "params": {"uri": uri, "version": 1, "diagnostics": []},
    }
    hover = {"id": 2, "result": None}
    failed = {"id": 2, "error": {"code": -32603, "message": "boom"}}
    later = time.monotonic() + 30
    assert _await_answers(_pipe_with(published, hover), uri, later) is None
    assert _await_answers(_pipe_with(published), uri, later) == "no answer to the hover"
    assert (
        _await_answers(_pipe_with(stale, hover), uri, later)
        == "no diagnostics for the document's last version"
    )
    assert _await_answers(_pipe_with(failed), uri, later) == (
        "the hover failed: {'code': -32603, 'message': 'boom'}"
    )
