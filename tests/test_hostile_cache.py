"""Hostile state: cache entries are untrusted input (a FIFO, a link to /dev/zero, a huge or
deeply nested or forged entry is a miss, never a hang or a result), a cache directory that
cannot be used costs only the caching (said once), and `clean` removes only a tilecheck cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support import ALL_FINDINGS, KERNEL, run, write
from tilecheck.app import cache_store
from tilecheck.app.cache import CACHE_DIR_ENV
from tilecheck.app.workspace import Options, Workspace

FINDINGS = [("a.py", line, column, code) for line, column, code in ALL_FINDINGS]


@pytest.fixture
def project(tmp_path, monkeypatch):
    write(tmp_path, {"pyproject.toml": "[tool.tilecheck]\n", "a.py": KERNEL})
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(CACHE_DIR_ENV, raising=False)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # the user's MAC key
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # never the real home's key
    monkeypatch.setattr(cache_store, "_password_home", lambda: str(tmp_path / "passwd-home"))
    return tmp_path


def checked(project: Path, **options) -> tuple[list[tuple[str, int, int, str]], int, int, list[str]]:
    warnings: list[str] = []
    workspace = Workspace(Options(cache=True, **options), cwd=str(project), on_warning=warnings.append)
    result = workspace.check_files([str(project / "a.py")], jobs=1)
    cache = workspace.result_cache()
    assert cache is not None
    found = [(os.path.basename(d.path), d.span.line, d.span.column + 1, d.code) for d in result.diagnostics]
    return found, cache.hits, cache.misses, warnings


def entries(project: Path) -> list[Path]:
    return sorted((project / ".tilecheck_cache").rglob("*.json"))


def test_an_entry_is_sealed_with_the_format_and_a_mac(project):
    assert checked(project)[:3] == (FINDINGS, 0, 1)
    (entry,) = entries(project)
    header = entry.read_bytes().split(b"\n", 1)[0].split(b" ")
    assert header[:2] == [b"tilecheck-cache", b"5"]
    assert len(header[2]) == 64
    assert checked(project)[:3] == (FINDINGS, 1, 0)
    key = (project / "user-cache" / "tilecheck" / "cache-key").stat()
    assert (key.st_size, key.st_mode & 0o777) == (32, 0o600)


def key_of(home: Path) -> Path:
    return home / ".cache" / "tilecheck" / "cache-key"


def test_the_key_is_private_and_one_others_can_read_is_not_used(project):
    checked(project)
    key = project / "user-cache" / "tilecheck" / "cache-key"
    status, folder = key.stat(), key.parent.stat()
    assert (status.st_mode & 0o777, folder.st_mode & 0o777, status.st_uid) == (0o600, 0o700, os.geteuid())
    assert checked(project)[:3] == (FINDINGS, 1, 0)
    key.chmod(0o644)  # readable by others: anyone could forge with it
    assert checked(project)[:3] == (FINDINGS, 0, 1)  # sealed with a key of HOME's, made now
    assert key_of(project / "home").stat().st_mode & 0o777 == 0o600
    assert checked(project)[:3] == (FINDINGS, 1, 0)


def test_without_home_the_password_databases_home_holds_the_key(project, monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.delenv("HOME")
    assert checked(project) == (FINDINGS, 0, 1, [])
    assert checked(project) == (FINDINGS, 1, 0, [])
    assert key_of(project / "passwd-home").stat().st_mode & 0o777 == 0o600


def test_relative_homes_are_not_homes(project, monkeypatch):
    """A relative XDG_CACHE_HOME or HOME would put the key in the checked tree."""
    monkeypatch.setenv("XDG_CACHE_HOME", ".")
    monkeypatch.setenv("HOME", "home-in-tree")
    assert checked(project) == (FINDINGS, 0, 1, [])
    assert not (project / "tilecheck").exists()
    assert not (project / "home-in-tree").exists()
    assert key_of(project / "passwd-home").is_file()


def test_without_a_private_place_for_the_key_nothing_is_cached_and_a_forgery_is_a_miss(project, monkeypatch):
    checked(project)
    (entry,) = entries(project)
    payload = json.loads(entry.read_bytes().split(b"\n", 1)[1])
    payload["diagnostics"], payload["text"] = [], None
    forged = json.dumps(payload).encode()
    entry.write_bytes(b"tilecheck-cache 4 " + cache_store._mac(b"", entry.stem, forged) + b"\n" + forged)
    (project / "not-a-directory").write_text("")
    nowhere = project / "not-a-directory" / "home"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(nowhere))
    monkeypatch.setattr(cache_store, "_password_home", lambda: str(nowhere))
    reason = f"no private key to seal its entries with ({key_of(nowhere)}: cannot be read or made)"
    warning = f"result cache {project / '.tilecheck_cache'} not used: {reason}"
    for _ in range(2):
        assert checked(project) == (FINDINGS, 0, 1, [warning])
    assert entries(project) == [entry]  # nothing written without a key


def test_a_forged_entry_without_diagnostics_is_a_miss(project):
    checked(project)
    (entry,) = entries(project)
    payload = entry.read_bytes().split(b"\n", 1)[1]
    forged = json.loads(payload)
    forged["diagnostics"], forged["text"] = [], None
    forged_payload = json.dumps(forged).encode()
    # The MAC an attacker without the user's key can compute: over the key and payload alone.
    mac = cache_store._mac(b"", entry.stem, forged_payload)
    entry.write_bytes(b"tilecheck-cache 4 " + mac + b"\n" + forged_payload)
    assert checked(project)[:3] == (FINDINGS, 0, 1)


def test_an_entry_moved_to_another_key_is_a_miss(project):
    checked(project)
    (of_a,) = entries(project)
    write(project, {"b.py": "x = 1\n"})
    Workspace(Options(cache=True), cwd=str(project)).check_files([str(project / "b.py")], jobs=1)
    (of_b,) = set(entries(project)) - {of_a}
    of_a.write_bytes(of_b.read_bytes())  # b's sealed entry where a's belongs
    assert checked(project)[:3] == (FINDINGS, 0, 1)


@pytest.mark.parametrize(
    "how", ["fifo", "zero", "symlink-to-entry", "huge", "deep", "old-format", "truncated"]
)
def test_a_hostile_entry_is_a_miss(project, how):
    checked(project)
    (entry,) = entries(project)
    data = entry.read_bytes()
    entry.unlink()
    if how == "fifo":
        os.mkfifo(entry)
    elif how == "zero":
        entry.symlink_to("/dev/zero")
    elif how == "symlink-to-entry":  # even a valid entry is not followed through a link
        (project / "elsewhere.json").write_bytes(data)
        entry.symlink_to(project / "elsewhere.json")
    elif how == "huge":
        with open(entry, "wb") as out:
            out.truncate(cache_store.MAX_ENTRY_BYTES + 1)
    elif how == "deep":
        header = data.split(b"\n", 1)[0]
        payload = b"[" * 100_000 + b"]" * 100_000
        mac = cache_store._mac(cache_store.user_secret(), entry.stem, payload)
        entry.write_bytes(header.rsplit(b" ", 1)[0] + b" " + mac + b"\n" + payload)
    elif how == "old-format":
        entry.write_bytes(data.split(b"\n", 1)[1])  # the JSON alone, as format 3 wrote it
    else:
        entry.write_bytes(data[: len(data) // 2])
    found, hits, misses, warnings = checked(project)
    assert (found, hits, misses, warnings) == (FINDINGS, 0, 1, [])


def test_nesting_is_measured_outside_strings():
    assert cache_store._nesting(b'{"a":[1,{"b":"[[[[\\"[["}]}') == 3
    assert cache_store._nesting(b"[" * 65 + b"]" * 65) == 65
    assert cache_store._nesting(b'["\\\\", "[", "]]", ""]') == 1  # an escaped backslash ends no string
    assert cache_store._nesting(b'{"k": "\\\\\\"[[["}') == 1  # a backslash, then an escaped quote
    assert cache_store._nesting(b'[{"a":[]},[[]],{}]') == 3
    assert cache_store._nesting(b"[{]}") == 2  # mismatched: counted as the brackets come
    assert cache_store._nesting(b'[["[[') == 4  # an unterminated string's brackets count


@pytest.mark.parametrize("kind", ["fifo", "file", "unwritable", "someone-elses"])
def test_a_cache_directory_that_cannot_be_used_costs_only_the_caching_said_once(project, kind):
    directory = project / "cachedir"
    if kind == "fifo":
        os.mkfifo(directory)
        reason = "it is not a directory"
    elif kind == "file":
        directory.write_text("not a directory\n")
        reason = "it is not a directory"
    elif kind == "unwritable":
        if os.geteuid() == 0:
            pytest.skip("root can write anywhere")
        directory.mkdir(mode=0o500)
        reason = "cannot write it: Permission denied"
    else:
        directory.mkdir()
        (directory / "notes.txt").write_text("mine\n")
        reason = "it is not empty and has no CACHEDIR.TAG written by tilecheck"
    warnings: list[str] = []
    workspace = Workspace(
        Options(cache=True, cache_dir=str(directory)), cwd=str(project), on_warning=warnings.append
    )
    for _ in range(2):
        result = workspace.check_files([str(project / "a.py")], jobs=1)
        codes = [(d.span.line, d.span.column + 1, d.code) for d in result.diagnostics]
        assert codes == ALL_FINDINGS
    assert warnings == [f"result cache {directory} not used: {reason}"]
    if kind == "someone-elses":
        assert sorted(os.listdir(directory)) == ["notes.txt"]


def test_the_command_line_says_once_that_the_cache_is_not_used(project, capsys):
    (project / "cachedir").write_text("not a directory\n")
    outcome = run(capsys, "check", "--cache-dir", "cachedir", "--output-format", "concise", "a.py")
    assert outcome.status == 1
    assert outcome.err.count("not used") == 1
    assert f"result cache {project / 'cachedir'} not used: it is not a directory" in outcome.err


@pytest.mark.parametrize("kind", ["sources", "symlink", "file", "foreign-tag"])
def test_clean_removes_only_a_tilecheck_cache(project, capsys, monkeypatch, kind):
    source = project / "src"
    write(source, {"kernel.py": KERNEL, "CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n"})
    if kind == "sources":
        target, reason = source, "it has no CACHEDIR.TAG written by tilecheck, so it is not a tilecheck cache"
        (source / "CACHEDIR.TAG").unlink()
    elif kind == "foreign-tag":  # another tool's cache (a tag without tilecheck's text)
        target, reason = source, "it has no CACHEDIR.TAG written by tilecheck, so it is not a tilecheck cache"
    elif kind == "symlink":
        checked(project)
        target = project / "link"
        target.symlink_to(project / ".tilecheck_cache")
        reason = "it is a symbolic link"
    else:
        target, reason = source / "kernel.py", "it is not a directory"
    monkeypatch.setenv(CACHE_DIR_ENV, str(target))
    outcome = run(capsys, "clean")
    assert (outcome.status, outcome.out) == (2, "")
    assert outcome.err == f"tilecheck: error: not removing {os.path.relpath(target)}: {reason}\n"
    assert (source / "kernel.py").read_text() == KERNEL
    if kind == "symlink":
        assert entries(project)


def test_clean_removes_a_cache_tilecheck_made(project, capsys):
    checked(project)
    outcome = run(capsys, "clean")
    assert (outcome.status, outcome.err) == (0, "Removed .tilecheck_cache\n")
    assert not (project / ".tilecheck_cache").exists()


def test_a_full_disk_costs_only_the_caching_said_once(project, monkeypatch):
    checked(project)  # the directory exists and is tagged; now every entry write fails
    for entry in entries(project):
        entry.unlink()

    def full(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache_store, "write_atomic", full)
    warnings: list[str] = []
    workspace = Workspace(Options(cache=True), cwd=str(project), on_warning=warnings.append)
    write(project, {"b.py": KERNEL})
    for _ in range(2):
        result = workspace.check_files([str(project / "a.py"), str(project / "b.py")], jobs=1)
        assert [d.code for d in result.diagnostics] == [code for *_, code in ALL_FINDINGS] * 2
    cache_dir = project / ".tilecheck_cache"
    assert warnings == [f"result cache {cache_dir} not used: cannot write it: No space left on device"]
    assert entries(project) == []
