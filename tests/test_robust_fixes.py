"""`--fix` on read-only and hard-linked files does what ruff does; temporary files a killed run left
behind are removed on the next write of that file (issue 12 §5)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tilecheck.app.files import TEMP_SUFFIX, remove_stale_temporaries, write_atomic

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNUSED = "x = 1  # tilecheck: ignore[TL101]\n"  # TL901, with a safe fix that removes the comment
FIXED = "x = 1\n"


def _tilecheck(*args, cwd, unprivileged=False):
    prefix = []
    if unprivileged and os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("needs setpriv to drop root")
        prefix = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "tilecheck", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": ROOT},
    )


@pytest.fixture
def shared_dir():
    """A directory an unprivileged user can work in (pytest's tmp_path is private to root)."""
    directory = tempfile.mkdtemp(prefix="tilecheck-fix-")
    os.chmod(directory, 0o777)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def test_a_read_only_file_is_not_written_and_the_others_are(shared_dir):
    readonly, writable = os.path.join(shared_dir, "ro.py"), os.path.join(shared_dir, "ok.py")
    for path in (readonly, writable):
        with open(path, "w") as handle:
            handle.write(UNUSED)
    os.chmod(readonly, 0o444)
    os.chmod(writable, 0o666)
    done = _tilecheck("--isolated", "--fix", "ro.py", "ok.py", cwd=shared_dir, unprivileged=True)
    assert done.stderr.splitlines()[0] == "tilecheck: error: ro.py: not modified: Permission denied"
    assert done.returncode == 2
    assert Path(readonly).read_text() == UNUSED and stat.S_IMODE(os.stat(readonly).st_mode) == 0o444
    assert Path(writable).read_text() == FIXED
    assert sorted(os.listdir(shared_dir)) == ["ok.py", "ro.py"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may write a read-only file")
def test_root_fixes_a_read_only_file_as_ruff_does_and_keeps_its_mode(tmp_path):
    path = tmp_path / "ro.py"
    path.write_text(UNUSED)
    path.chmod(0o444)
    done = _tilecheck("--isolated", "--fix", "ro.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert path.read_text() == FIXED and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_hard_links_stay_linked_and_all_see_the_fix(tmp_path):
    first, second = tmp_path / "a.py", tmp_path / "linked.txt"
    first.write_text(UNUSED)
    os.link(first, second)
    inode = first.stat().st_ino
    done = _tilecheck("--isolated", "--fix", "a.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert first.stat().st_ino == second.stat().st_ino == inode
    assert first.stat().st_nlink == 2
    assert second.read_text() == FIXED


def test_in_place_write_of_a_hard_link_still_refuses_a_changed_file(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"new\n")
    os.link(path, tmp_path / "b.py")
    from tilecheck.app.files import WriteError

    with pytest.raises(WriteError, match="changed while it was being checked"):
        write_atomic(str(path), b"fixed\n", expected=b"old\n")
    assert (tmp_path / "b.py").read_bytes() == b"new\n"


def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_run_killed_mid_write_leaves_a_recognisable_temporary_that_the_next_run_removes(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(UNUSED)
    script = (
        "import os, signal, sys\n"
        "from tilecheck.app import files\n"
        "os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n"
        "files.write_atomic(sys.argv[1], b'x = 1\\n', expected=open(sys.argv[1], 'rb').read())\n"
    )
    killed = subprocess.run([sys.executable, "-c", script, str(path)], cwd=ROOT, timeout=60)
    assert killed.returncode == -9
    [stray] = [name for name in os.listdir(tmp_path) if name != "k.py"]
    assert stray.startswith(".k.py.") and stray.endswith(TEMP_SUFFIX)
    assert path.read_text() == UNUSED  # the original, untouched
    done = _tilecheck("--isolated", "--fix", "k.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert os.listdir(tmp_path) == ["k.py"]
    assert path.read_text() == FIXED


def test_only_stale_temporaries_of_that_file_are_removed(tmp_path):
    dead, alive = _dead_pid(), os.getppid()
    names = [
        f".k.py.{dead}.abc_1234{TEMP_SUFFIX}",  # stale: removed
        f".k.py.{alive}.abc_1234{TEMP_SUFFIX}",  # a run in progress: kept
        f".other.py.{dead}.abc_1234{TEMP_SUFFIX}",  # another file's: kept
        f".k.py.{dead}.abc.py.x{TEMP_SUFFIX}",  # not a name tilecheck makes: kept
        "k.py",
    ]
    for name in names:
        (tmp_path / name).write_text("")
    assert remove_stale_temporaries(str(tmp_path / "k.py")) == [names[0]]
    assert sorted(os.listdir(tmp_path)) == sorted(names[1:])
