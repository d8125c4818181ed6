"""`tilecheck lower` as `check` behaves: `--diff` exits 1, a file with nothing to lower says so
and gets its findings, and stdout carries the file in its own encoding."""

from __future__ import annotations

import subprocess
import sys

from tests.pypto.helpers import program, run_lower_command
from tests.support import KERNEL

GOOD = program("for i in pl.pipeline(0, 2, 1, stage=2):\n    x = i\n")
LOWERED = program("for i in pl.pipeline(0, 2, 2, stage=1):\n    x = i\n    x_1 = i + 1\n")


def test_a_tilelang_file_says_nothing_was_lowered_and_reports_its_findings(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    code, out, err = run_lower_command(["lower", str(path), "--output-format", "concise"])
    assert (code, out) == (1, KERNEL)
    lines = err.splitlines()
    assert (
        lines[0]
        == f"tilecheck lower: {path}: no `pl.pipeline(..., stage=F)` loop to lower; the file is unchanged"
    )
    assert [line.split(": ")[2].split()[0] for line in lines[1:4]] == ["TL104", "TL105", "TL101"]
    assert lines[3].startswith(f"{path}:15:22: error: TL101 [semantic] Nested `T.Parallel` loop")
    assert lines[4:] == ["Found 3 errors in 1 file."]
    code, _, err = run_lower_command(["lower", str(path), "--output-format", "json", "--select", "TL101"])
    assert code == 1 and err.startswith("[\n")  # machine formats stay parseable: no note
    clean = tmp_path / "c.py"
    clean.write_text("x = 1\n")
    assert run_lower_command(["lower", str(clean)]) == (
        0, "x = 1\n", f"tilecheck lower: {clean}: no `pl.pipeline(..., stage=F)` loop to lower; the file is unchanged\n")  # fmt: skip


def test_a_lowered_file_says_nothing_more(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    assert run_lower_command(["lower", str(path)]) == (0, LOWERED, "")
    assert run_lower_command(["lower", "--diff", str(path)])[0] == 1


def test_stdout_carries_the_file_in_its_coding_cookies_encoding(tmp_path):
    source = "# -*- coding: latin-1 -*-\n" + GOOD.replace("x = i", "x = i  # café", 1)
    path = tmp_path / "k.py"
    path.write_bytes(source.encode("latin-1"))
    done = subprocess.run(
        [sys.executable, "-m", "tilecheck", "lower", str(path)], capture_output=True, check=False, timeout=300
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert run_lower_command(["lower", str(path), "-o", str(tmp_path / "out.py")])[0] == 0
    assert done.stdout == (tmp_path / "out.py").read_bytes()  # `> out.py` is `-o out.py`
    assert done.stdout.decode("latin-1").startswith("# -*- coding: latin-1 -*-\n")
    assert b"caf\xe9" in done.stdout and "café".encode() not in done.stdout
    assert "x_1 = i + 1" in done.stdout.decode("latin-1")
