"""Input without bounds: standard input is capped as files are (16 MiB), and ignore files that
are FIFOs or devices neither hang the run nor are read whole."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support import ALL_FINDINGS, KERNEL, run, write
from tilecheck.source.reading import MAX_FILE_BYTES

DEADLINE = 300  # seconds; only a run that hangs gets near it


def test_stdin_beyond_the_file_limit_is_a_file_too_large(tmp_path):
    # `yes | tilecheck check -`: an endless input, read only up to the limit.
    yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tilecheck", "check", "--isolated", "--output-format", "concise", "-"],
            stdin=yes.stdout,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=DEADLINE,
        )
    finally:
        yes.kill()
        yes.wait()
        assert yes.stdout is not None
        yes.stdout.close()
    assert done.stdout == (
        f"-:1:1: error: TL003 [meta] File is too large to check (more than {MAX_FILE_BYTES} bytes)\n"
        "Found 1 error in 1 file.\n"
    )
    assert done.returncode == 1


def test_stdin_at_the_limit_is_checked(tmp_path):
    data = KERNEL.encode() + b"#" * (MAX_FILE_BYTES - len(KERNEL.encode()))
    done = subprocess.run(
        [sys.executable, "-m", "tilecheck", "check", "--isolated", "--output-format", "concise", "-"],
        input=data,
        capture_output=True,
        cwd=tmp_path,
        timeout=DEADLINE,
    )
    codes = [line.split(b" [")[0] for line in done.stdout.splitlines() if b": error: " in line]
    assert codes == [
        b"-:%d:%d: error: %s" % (line, column, code.encode()) for line, column, code in ALL_FINDINGS
    ]


@pytest.mark.parametrize("name", [".gitignore", ".ignore", ".git/info/exclude"])
@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_an_ignore_file_that_is_a_fifo_or_a_device_is_no_ignore_file(
    tmp_path, monkeypatch, capsys, name, kind
):
    write(tmp_path, {"pyproject.toml": "[tool.tilecheck]\n", "a.py": KERNEL, ".git/info/.keep": ""})
    if kind == "fifo":
        os.mkfifo(tmp_path / name)
    else:
        (tmp_path / name).symlink_to("/dev/zero")
    monkeypatch.chdir(tmp_path)
    outcome = run(capsys, "check", "--no-cache", "--output-format", "concise", ".")
    assert [line.split(" [")[0] for line in outcome.out.splitlines() if ": error: " in line] == [
        f"a.py:{line}:{column}: error: {code}" for line, column, code in ALL_FINDINGS
    ]
    assert outcome.status == 1


def test_an_ignore_file_past_its_limit_is_not_read(tmp_path, monkeypatch, capsys):
    from tilecheck.app.discover import MAX_IGNORE_FILE_BYTES

    write(tmp_path, {"a.py": KERNEL, "b.py": KERNEL})
    (tmp_path / ".ignore").write_text("b.py\n" + "#" * MAX_IGNORE_FILE_BYTES)
    monkeypatch.chdir(tmp_path)
    outcome = run(capsys, "check", "--no-cache", "--isolated", "--output-format", "concise", ".")
    assert {line.split(":")[0] for line in outcome.out.splitlines() if ": error: " in line} == {
        "a.py",
        "b.py",
    }
