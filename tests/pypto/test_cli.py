"""`tilecheck lower` through `run_lower` and `python -m tilecheck.commands.lower`."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys

import pytest

from tests.pypto.helpers import program
from tilecheck.commands.lower import add_lower_parser, main, run_lower

GOOD = program("for i in pl.pipeline(0, 2, 1, stage=2):\n    x = i\n")
LOWERED = program("for i in pl.pipeline(0, 2, 2, stage=1):\n    x = i\n    x_1 = i + 1\n")
BAD = program("for i in pl.pipeline(8):\n    x = i\n")


def _run(argv: list[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="tilecheck")
    add_lower_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    code = run_lower(args, out, err)
    return code, out.getvalue(), err.getvalue()


def test_default_prints_the_lowered_file(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    assert _run(["lower", str(path)]) == (0, LOWERED, "")
    assert path.read_text() == GOOD


def test_diff_prints_a_unified_diff(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    code, out, _ = _run(["lower", "--diff", str(path)])
    assert code == 0
    assert out.splitlines()[2:] == [
        "@@ -3,5 +3,6 @@",
        " ",
        " @pl.function",
        " def f(a, b, n, s, s0, t0, out):",
        "-    for i in pl.pipeline(0, 2, 1, stage=2):",
        "+    for i in pl.pipeline(0, 2, 2, stage=1):",
        "         x = i",
        "+        x_1 = i + 1",
    ]


def test_write_is_atomic_and_keeps_the_mode(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    os.chmod(path, 0o640)
    assert _run(["lower", "--write", str(path)]) == (0, "", "")
    assert path.read_text() == LOWERED
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["k.py"]


def test_output_file(tmp_path):
    path, target = tmp_path / "k.py", tmp_path / "lowered.py"
    path.write_text(GOOD)
    assert _run(["lower", str(path), "-o", str(target)]) == (0, "", "")
    assert target.read_text() == LOWERED and path.read_text() == GOOD


def test_diagnostics_prevent_lowering_with_exit_1_and_leave_the_file(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(BAD)
    code, out, err = _run(["lower", "--write", str(path)])
    assert (code, out) == (1, "")
    assert err == (
        f"{path}:6:14: TL401 pl.pipeline() requires stage= (positive integer)\n"
        "  help: Use pl.pipeline(stop, stage=F).\n"
    )
    assert path.read_text() == BAD


def test_backend_gate_exit_1(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(
        program("for i in pl.pipeline(4, stage=2):\n    for j in pl.pipeline(4, stage=2):\n        x = j\n")
    )
    assert _run(["lower", "--backend", "cuda-sm80", str(path)])[0] == 1
    assert _run(["lower", "--backend", "ascend", str(path)])[0] == 0
    assert _run(["lower", str(path)])[0] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["lower", "--backend", "nope", "{path}"], "unknown backend 'nope'"),
        (["lower", "{path}", "{path}", "-o", "x.py"], "-o/--output takes exactly one FILE"),
        (["lower", "{missing}"], "cannot read"),
    ],
)
def test_usage_errors_exit_2(tmp_path, argv, message):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    argv = [arg.format(path=path, missing=tmp_path / "missing.py") for arg in argv]
    code, out, err = _run(argv)
    assert code == 2 and out == "" and message in err


def test_unparsable_file_exit_1_without_traceback(tmp_path):
    path = tmp_path / "k.py"
    path.write_text("def f(:\n")
    code, _, err = _run(["lower", str(path)])
    assert code == 1 and err.startswith(f"{path}:1:") and "TL400" in err and "Traceback" not in err


def test_non_utf8_file_is_a_usage_error(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"x = '\xff'\n")
    assert _run(["lower", str(path)])[0] == 2


def test_main_and_module_entry_point(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    assert main(["--diff", "--write", str(path)]) == 2
    completed = subprocess.run(
        [sys.executable, "-m", "tilecheck.commands.lower", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0 and completed.stdout == LOWERED
