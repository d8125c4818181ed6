"""Permissions: a file, directory, cache or configuration tilecheck may not read or write costs
only that file, directory or cache, with the reason, and the rest of the run goes on.

The suite runs as root, whose DAC override reads everything: the CLI is run in a subprocess
without it (util-linux `setpriv`, dropping CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the
inherited and bounding sets), so mode bits bind it as they bind any user."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

import pytest

from tests.support import ALL_FINDINGS, KERNEL, write

DROP = "-dac_override,-dac_read_search"
SETPRIV = ["setpriv", f"--inh-caps={DROP}", f"--bounding-set={DROP}"]


def _unprivileged_prefix() -> list[str] | None:
    """The command prefix that runs a program bound by mode bits; None when there is none here."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        return None
    with tempfile.TemporaryDirectory() as directory:
        closed = os.path.join(directory, "closed")
        open(closed, "w").close()
        os.chmod(closed, 0)
        probe = subprocess.run([*SETPRIV, "test", "-r", closed], capture_output=True)
    return SETPRIV if probe.returncode == 1 else None  # 1: root lost its override, as wanted


PREFIX = _unprivileged_prefix()
pytestmark = pytest.mark.skipif(PREFIX is None, reason="no way to drop root's DAC override here")


@dataclass
class Outcome:
    status: int
    out: str
    err: str

    def findings(self) -> list[str]:
        """Each finding's `path:line:column: severity: code`."""
        return [line.split(" [")[0] for line in self.out.splitlines() if ": error: " in line]


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    write(root, {"pyproject.toml": "[tool.tilecheck]\n", "a.py": KERNEL})
    (tmp_path / "home").mkdir()
    changed: list[tuple[str, int]] = []
    yield root, changed
    for path, mode in reversed(changed):  # let the temporary tree be removed
        os.chmod(path, mode)


def chmod(changed: list[tuple[str, int]], path, mode: int) -> None:
    changed.append((str(path), os.stat(path).st_mode & 0o7777))
    os.chmod(path, mode)


def tilecheck(root, *arguments: str) -> Outcome:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("TILECHECK_")}
    environment["HOME"] = str(root.parent / "home")
    assert PREFIX is not None
    command = [*PREFIX, sys.executable, "-m", "tilecheck", *arguments]
    result = subprocess.run(command, cwd=root, env=environment, capture_output=True, text=True)
    return Outcome(result.returncode, result.stdout, result.stderr)


def check(root, *arguments: str) -> Outcome:
    return tilecheck(root, "check", "--output-format", "concise", *arguments)


def findings_of(name: str) -> list[str]:
    return [f"{name}:{line}:{column}: error: {code}" for line, column, code in ALL_FINDINGS]


def test_the_subprocess_is_bound_by_mode_bits(tree):
    root, changed = tree
    chmod(changed, root / "a.py", 0)
    assert PREFIX is not None
    assert subprocess.run([*PREFIX, "cat", str(root / "a.py")], capture_output=True).returncode == 1


def test_an_unreadable_file_is_tl003_and_the_others_are_checked(tree):
    root, changed = tree
    write(root, {"secret.py": KERNEL, "z.py": KERNEL})
    chmod(changed, root / "secret.py", 0)
    unreadable = "secret.py:1:1: error: TL003 [meta] Cannot read file: Permission denied"
    for arguments in (["--no-cache", "."], ["--no-cache", "secret.py", "a.py", "z.py"]):
        outcome = check(root, *arguments)
        assert unreadable in outcome.out.splitlines()
        assert outcome.findings() == [
            *findings_of("a.py"),
            "secret.py:1:1: error: TL003",
            *findings_of("z.py"),
        ]
        assert (outcome.status, outcome.err) == (1, "")


def test_an_unlistable_directory_is_tl003_and_the_run_goes_on(tree):
    root, changed = tree
    write(root, {"locked/b.py": KERNEL, "open/c.py": KERNEL})
    chmod(changed, root / "locked", 0)
    outcome = check(root, "--no-cache", ".")
    assert (
        "locked:1:1: error: TL003 [meta] Cannot read directory: Permission denied" in outcome.out.splitlines()
    )
    assert outcome.findings() == [*findings_of("a.py"), "locked:1:1: error: TL003", *findings_of("open/c.py")]
    assert (outcome.status, outcome.err) == (1, "")


def test_an_untraversable_directory_has_no_configuration_and_costs_only_its_files(tree):
    """Listable but not searchable (mode 0600): its names are seen, nothing in it can be
    looked up, its own configuration file included, which is then no configuration error."""
    root, changed = tree
    write(
        root,
        {
            "noexec/b.py": KERNEL,
            "noexec/inner/c.py": KERNEL,
            "noexec/.tilecheck.toml": 'select = ["TL104"]\n',
            "z.py": KERNEL,
        },
    )
    chmod(changed, root / "noexec", 0o600)
    unreadable = "noexec/b.py:1:1: error: TL003 [meta] Cannot read file: Permission denied"
    unlisted = "noexec/inner:1:1: error: TL003 [meta] Cannot read directory: Permission denied"
    walked = check(root, "--no-cache", ".")
    assert walked.findings() == [
        *findings_of("a.py"),
        "noexec/b.py:1:1: error: TL003",
        "noexec/inner:1:1: error: TL003",
        *findings_of("z.py"),
    ]
    assert unreadable in walked.out.splitlines()
    assert unlisted in walked.out.splitlines()
    assert (walked.status, walked.err) == (1, "")
    named = check(root, "--no-cache", "noexec/b.py", "z.py")  # not "no such file": it may exist
    assert named.findings() == ["noexec/b.py:1:1: error: TL003", *findings_of("z.py")]
    assert (named.status, named.err) == (1, "")


def test_an_unwritable_cache_directory_costs_one_warning_and_nothing_else(tree):
    root, changed = tree
    write(root, {"b.py": KERNEL})
    (root / "cache").mkdir()
    chmod(changed, root / "cache", 0o555)
    outcome = check(root, "--cache-dir", "cache", ".")
    assert outcome.findings() == [*findings_of("a.py"), *findings_of("b.py")]
    assert outcome.status == 1
    cache = root / "cache"
    assert (
        outcome.err
        == f"tilecheck: warning: result cache {cache} not used: cannot write it: Permission denied\n"
    )
    assert os.listdir(cache) == []


def test_a_warm_cache_made_read_only_is_still_read(tree):
    """Every hit is read; the one new result cannot be stored, which the run says once."""
    root, changed = tree
    first = check(root, "--cache-dir", "cache", ".")
    assert first.err == ""
    for directory, _, _ in os.walk(root / "cache"):
        chmod(changed, directory, 0o555)
    again = check(root, "--cache-dir", "cache", ".")
    assert (again.status, again.out, again.err) == (first.status, first.out, "")
    write(root, {"b.py": KERNEL, "c.py": KERNEL})
    grown = check(root, "--cache-dir", "cache", ".")
    assert grown.findings() == [*findings_of("a.py"), *findings_of("b.py"), *findings_of("c.py")]
    cache = root / "cache"
    assert (
        grown.err
        == f"tilecheck: warning: result cache {cache} not used: cannot write it: Permission denied\n"
    )


def test_an_unreadable_configuration_file_named_explicitly_is_a_clear_error(tree):
    root, changed = tree
    (root / "custom.toml").write_text('select = ["TL104"]\n')
    chmod(changed, root / "custom.toml", 0)
    outcome = check(root, "--no-cache", "--config", "custom.toml", "a.py")
    assert (outcome.status, outcome.out) == (2, "")
    assert outcome.err == "tilecheck: error: Cannot read configuration file custom.toml: Permission denied\n"


def test_an_unreadable_configuration_file_found_by_discovery_is_a_clear_error(tree):
    """It exists (unlike one in an unsearchable directory): checking as if it did not would
    apply the wrong rules, so the run stops and says which file, as ruff does."""
    root, changed = tree
    write(root, {"sub/.tilecheck.toml": 'select = ["TL104"]\n', "sub/b.py": KERNEL})
    chmod(changed, root / "sub" / ".tilecheck.toml", 0)
    outcome = check(root, "--no-cache", "sub/b.py")
    assert (outcome.status, outcome.out) == (2, "")
    assert (
        outcome.err
        == "tilecheck: error: Cannot read configuration file sub/.tilecheck.toml: Permission denied\n"
    )


def test_a_fix_that_cannot_be_written_leaves_the_file_and_says_so(tree):
    root, changed = tree
    write(root, {"b.py": KERNEL})
    chmod(changed, root / "a.py", 0o444)
    outcome = check(root, "--no-cache", "--fix", "--unsafe-fixes", ".")
    assert (root / "a.py").read_text() == KERNEL
    assert (root / "b.py").read_text() != KERNEL  # the writable one is fixed
    assert outcome.err == "tilecheck: error: a.py: not modified: Permission denied\n"
    assert outcome.findings() == [*findings_of("a.py"), *findings_of("b.py")[1:]]  # its TL104 was fixed
    assert outcome.status == 2
