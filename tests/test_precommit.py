"""The pre-commit hooks: the manifest's shape, and the real `pre-commit try-repo` end to end.

`try-repo` of a local path only sees committed and tracked files, so the test snapshots this
checkout (tracked and untracked, minus ignored files) into a temporary repository first.
"""

import os
import pathlib
import shlex
import shutil
import subprocess
import sys

import pytest
import yaml

from tests.support import CLEAN, KERNEL, run

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANIFEST = ROOT / ".pre-commit-hooks.yaml"


def hooks():
    return {hook["id"]: hook for hook in yaml.safe_load(MANIFEST.read_text())}


def test_manifest():
    found = hooks()
    assert sorted(found) == ["tilecheck", "tilecheck-fix"]
    for hook in found.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi"]
        assert hook["require_serial"] is True
        assert "--force-exclude" in shlex.split(hook["entry"])
        assert shlex.split(hook["entry"])[:2] == ["tilecheck", "check"]
    assert shlex.split(found["tilecheck-fix"]["entry"])[2:] == [
        "--force-exclude",
        "--fix",
        "--exit-non-zero-on-fix",
    ]


def test_fix_hook_entry_fails_when_it_changes_a_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(
        CLEAN.replace("B[i, j] = A[i, j]", "B[i, j] = A[i, j]  # tilecheck: ignore[TL104]")
    )
    entry = shlex.split(hooks()["tilecheck-fix"]["entry"])[1:]
    assert run(capsys, *entry, "k.py").status == 1
    assert (tmp_path / "k.py").read_text() == CLEAN
    assert run(capsys, *entry, "k.py").status == 0


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _snapshot(target: pathlib.Path) -> None:
    """This checkout's files (tracked and untracked, not ignored) as a fresh one-commit repository."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in filter(None, listed):
        name = os.fsdecode(raw)
        source = ROOT / name
        if name.startswith(("fixtures/oracle", "tools/oracle")):
            continue
        destination = target / name
        if source.is_file():
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "snapshot")


def _environment(tmp_path: pathlib.Path) -> dict[str, str]:
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PRE_COMMIT_COLOR": "never",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    env.pop("TILECHECK_OUTPUT_FORMAT", None)
    return env


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_pre_commit_try_repo(tmp_path):
    snapshot = tmp_path / "tilecheck"
    _snapshot(snapshot)
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q")
    kernel = project / "kernels" / "softmax.py"
    kernel.parent.mkdir()
    kernel.write_text(KERNEL)
    (project / "build").mkdir()
    (project / "build" / "generated.py").write_text(KERNEL)  # excluded by default, even when passed
    _git(project, "add", "-A")
    env = _environment(tmp_path)
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(snapshot), "tilecheck", "--all-files"]

    failing = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=600)
    output = failing.stdout + failing.stderr
    assert failing.returncode == 1, output
    assert "tilecheck................................................................Failed" in output
    assert "kernels/softmax.py:10:13: error: TL104 [semantic] Local buffer `loc`" in output
    assert "kernels/softmax.py:15:22: error: TL101 [semantic]" in output
    assert "build/generated.py" not in output

    kernel.write_text(CLEAN)
    _git(project, "add", "-A")
    passing = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=600)
    output = passing.stdout + passing.stderr
    assert passing.returncode == 0, output
    assert "tilecheck................................................................Passed" in output


def _readme_remote_config() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [block for block in readme.split("```yaml\n")[1:] if "rev:" in block.split("```")[0]]
    assert len(blocks) == 1
    return blocks[0].split("```")[0]


def _project_version() -> str:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # the backport tilecheck depends on there
        import tomli as tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_documented_rev_is_the_release_tag_of_this_version():
    tag = f"v{_project_version()}"
    assert f"    rev: {tag}   #" in _readme_remote_config()
    assert f"#     rev: {tag}   #" in MANIFEST.read_text()
    assert "<tag>" not in MANIFEST.read_text()


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("make") is None, reason="needs git and make")
def test_the_readme_config_runs_at_the_tag_make_release_tag_creates(tmp_path):
    snapshot = tmp_path / "tilecheck"
    _snapshot(snapshot)
    env = _environment(tmp_path)
    subprocess.run(["make", "release-tag", f"PYTHON={sys.executable}"], cwd=snapshot, env=env, check=True)
    tags = subprocess.run(["git", "tag", "--list"], cwd=snapshot, capture_output=True, text=True, check=True)
    assert tags.stdout.split() == [f"v{_project_version()}"]
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q")
    (project / "k.py").write_text(KERNEL)
    config = _readme_remote_config().replace("https://github.com/OWNER/tilecheck", str(snapshot))
    (project / ".pre-commit-config.yaml").write_text(config)
    _git(project, "add", "-A")
    command = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "k.py:10:13: error: TL104 [semantic]" in output
