"""`tilecheck lower` holds its 2,000,000-character cap for the whole file, predicted before
anything is generated (issue 12 §2): many loops that each fit cannot add up past it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.pypto.helpers import HEADER, run_lower_command
from tilecheck.cli.lower import compiles
from tilecheck.pypto import lower_source

_FILE_CAP = "more than the 2,000,000 `tilecheck lower` writes for one file"


def _nest(depth: int, name: str) -> str:
    """`depth` nested `pl.pipeline(0, 64, 1, stage=8)` loops in the function body (about
    490,000 characters lowered at depth 4: each level makes 8 copies)."""
    lines = [
        f"{'    ' * (level + 1)}for {name}{level} in pl.pipeline(0, 64, 1, stage=8):\n"
        for level in range(depth)
    ]
    return "".join(lines) + "    " * (depth + 1) + f"t = pl.tile.load(a, [{name}0], [16])\n"


def _siblings(count: int) -> str:
    return HEADER + "".join(_nest(4, f"k{index}_") for index in range(count))


def test_sibling_nests_stop_at_the_file_cap_and_the_rest_is_left_as_it_is():
    source = _siblings(10)  # 10 x ~490,000 characters if every nest were lowered
    started = time.monotonic()
    result = lower_source(source, "k.py")
    seconds = time.monotonic() - started
    assert result.changed and compiles(result.source)
    assert len(result.source) < 2_000_000
    assert seconds < 60  # generous: the point is that 5 MB are never generated
    refused = [(d.code, d.span.line, d.span.column + 1) for d in result.diagnostics]
    # Three nests fit; the fourth would pass the cap, so its outer level is refused and its inner
    # three levels (about 60,000 characters) are lowered; so for the remaining nests.
    first_refused = 6 + 3 * 5
    assert refused[0] == ("TL491", first_refused, 17)
    assert all(d.code == "TL491" and _FILE_CAP in d.message for d in result.diagnostics)
    assert result.diagnostics[0].message.startswith(
        "this pipeline loop was left as it is: the lowered file would be up to about "
    )
    # The nests before the refused one are lowered in full: 1 + 8 + 64 + 512 `stage=1` loops each.
    head = result.source[: result.source.index("for k3_0 in pl.pipeline(0, 64, 1, stage=8):")]
    assert head.count("stage=1)") == 3 * (1 + 8 + 64 + 512)


def test_one_nest_below_the_cap_is_lowered_in_full():
    result = lower_source(_siblings(1), "k.py")
    assert result.diagnostics == [] and result.changed
    assert result.source.count("stage=1)") == 1 + 8 + 64 + 512


def test_the_command_warns_and_exits_1_not_2(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(_siblings(6))
    status, out, err = run_lower_command(["lower", "--isolated", "--output-format", "concise", str(path)])
    assert status == 1
    assert 0 < len(out) < 2_000_000 and compiles(out)
    lines = err.splitlines()
    assert lines[0].startswith(f"{path}:21:17: warning: TL491 [meta] this pipeline loop was left as it is: ")
    assert lines[0].endswith(_FILE_CAP)
    assert lines[-1].startswith("Found ") and lines[-1].endswith(" warnings in 1 file.")


_PROGRAM = HEADER + "    for i in pl.pipeline(0, 8, 1, stage=2):\n        x = pl.load(a, [i], [16])\n"


def _faulty_lowering(monkeypatch, fault):
    from tilecheck.app.workspace import Workspace

    real = Workspace.lower_text

    def lower_text(self, text, path):
        import os

        if os.path.basename(path) == "bad.py":
            fault()
        return real(self, text, path)

    monkeypatch.setattr(Workspace, "lower_text", lower_text)


def _three_files(tmp_path):
    paths = [tmp_path / name for name in ("a.py", "bad.py", "c.py")]
    for path in paths:
        path.write_text(_PROGRAM)
    return [str(path) for path in paths]


def test_a_file_that_crashes_its_worker_costs_only_itself(tmp_path, monkeypatch):
    from tests.test_robust_runner import _segfault

    _faulty_lowering(monkeypatch, _segfault)
    paths = _three_files(tmp_path)
    status, _, err = run_lower_command(
        ["lower", "--isolated", "--write", "--output-format", "concise", *paths]
    )
    assert status == 2
    assert err.splitlines()[0] == (
        f"{paths[1]}:1:1: error: TL005 [meta] The worker process checking this file died: it was killed "
        "by signal 11 (SIGSEGV); its memory limit was 2048 MiB (per-file-memory)"
    )
    texts = [Path(path).read_text() for path in paths]
    assert texts[1] == _PROGRAM
    assert texts[0] == texts[2] != _PROGRAM and "stage=1)" in texts[0]


def test_a_file_over_the_configured_time_budget_is_tl004(tmp_path, monkeypatch):
    import time as clock

    _faulty_lowering(monkeypatch, lambda: clock.sleep(900))
    paths = _three_files(tmp_path)
    (tmp_path / "tilecheck.toml").write_text("per-file-timeout = 10\n")  # a healthy file never approaches it
    monkeypatch.chdir(tmp_path)
    started = time.monotonic()
    status, out, err = run_lower_command(["lower", "--output-format", "concise", *paths])
    assert time.monotonic() - started < 600  # not the 900 s of the slow file
    assert status == 1
    assert err.splitlines()[0] == (
        "bad.py:1:1: error: TL004 [meta] File is too complex to analyze within the budget: checking it "
        "took longer than 10 s (per-file-timeout); no rule was run on it"
    )
    assert out.count("stage=1)") == 2  # a.py and c.py, printed in order


def test_the_time_budget_flag_overrides_the_configuration(tmp_path, monkeypatch):
    import time as clock

    _faulty_lowering(monkeypatch, lambda: clock.sleep(900))
    paths = _three_files(tmp_path)
    (tmp_path / "tilecheck.toml").write_text("per-file-timeout = 1200\n")
    monkeypatch.chdir(tmp_path)
    status, out, err = run_lower_command(
        ["lower", "--per-file-timeout", "10", "--output-format", "concise", *paths]
    )
    assert status == 1
    assert err.splitlines()[0] == (
        "bad.py:1:1: error: TL004 [meta] File is too complex to analyze within the budget: checking it "
        "took longer than 10 s (per-file-timeout); no rule was run on it"
    )
    assert out.count("stage=1)") == 2


@pytest.mark.parametrize(
    ("flag", "value", "problem"),
    [
        ("--per-file-timeout", "-1", "must be 0 (no limit) or more"),
        ("--per-file-memory", "lots", "not a number: 'lots'"),
    ],
)
def test_a_bad_budget_flag_is_a_usage_error(tmp_path, capsys, flag, value, problem):
    from tilecheck.cli.main import main

    assert main(["lower", flag, value, *_three_files(tmp_path)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"tilecheck: error: argument {flag}: {problem}"
