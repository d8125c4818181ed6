"""Workers die with their parent: after `kill -9` of tilecheck (the command line, or the editor's
server), none of its worker processes stays behind."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from tests.server.raw_client import RawServer

DEADLINE = 120.0  # seconds; only a broken implementation ever waits this long
RULE = """
import os
import threading

from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class Hangs(Rule):
    \"\"\"Says which process checks the file, then never returns.\"\"\"

    CODE = "XK950"
    NAME = "hangs"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        with open({report!r}, "w") as out:
            out.write(str(os.getpid()))
        threading.Event().wait()
"""


def project(root: pathlib.Path, report: pathlib.Path) -> pathlib.Path:
    (root / "pyproject.toml").write_text('[tool.tilecheck]\nplugins = ["hanging_rules"]\n')
    (root / "hanging_rules.py").write_text(RULE.format(report=str(report)))
    kernel = root / "k.py"
    kernel.write_text("x = 1\n")
    return kernel


def wait_for_pid(report: pathlib.Path, process: subprocess.Popen[bytes]) -> int:
    started = time.monotonic()
    while not (report.exists() and report.read_text()):
        assert process.poll() is None, "tilecheck ended before its worker checked the file"
        assert time.monotonic() - started < DEADLINE * 5
        time.sleep(0.1)
    return int(report.read_text())


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper that may never come is not)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def assert_ends(pid: int) -> None:
    started = time.monotonic()
    while alive(pid):
        if time.monotonic() - started > DEADLINE:
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"worker {pid} outlived its parent by {DEADLINE:g} s")
        time.sleep(0.1)


pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc to watch processes")


def test_the_command_lines_workers_die_with_it(tmp_path):
    report = tmp_path / "worker.pid"
    project(tmp_path, report)
    process = subprocess.Popen(
        [sys.executable, "-m", "tilecheck", "check", "--no-cache", "--per-file-timeout", "0", "k.py"],
        cwd=tmp_path,
        env={**os.environ, "TILECHECK_ALLOW_PLUGINS": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        worker = wait_for_pid(report, process)
        assert worker != process.pid
        process.kill()
        process.wait()
        assert_ends(worker)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_servers_worker_dies_with_it(tmp_path):
    report = tmp_path / "worker.pid"
    kernel = project(tmp_path, report)
    server = RawServer(str(tmp_path), env={"TILECHECK_ALLOW_PLUGINS": "1"})
    try:
        server.initialize(str(tmp_path))
        server.open(str(kernel), kernel.read_text())
        worker = wait_for_pid(report, server.process)  # type: ignore[arg-type]
        assert worker != server.process.pid
        server.process.kill()
        server.process.wait()
        assert_ends(worker)
    finally:
        server.kill()
