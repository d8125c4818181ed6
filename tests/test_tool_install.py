"""docs/editors.md's install line followed literally: `pipx install .` and `uv tool install .`,
run as written in a copy of this checkout with the test's own HOME, must leave a `tilecheck` in
~/.local/bin that checks the demo kernel and answers as a language server starts it. The
commands are read from the page, so the page and the test cannot drift."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from tests.server.raw_client import RawServer
from tests.server.test_neovim import snippet

ROOT = pathlib.Path(__file__).resolve().parents[1]
TOOLS = pathlib.Path(sys.executable).parent  # pipx and uv come with the dev install
INSTALL = "Install: `tilecheck` on the PATH your editor sees"


def documented_commands() -> list[str]:
    """`pipx install .` and `uv tool install .`, from the page's install block."""
    (line,) = [line for line in snippet(INSTALL, "bash").splitlines() if line.startswith("pipx ")]
    first, comment = line.split("#", 1)
    second = comment.split("or:", 1)[1].split("(", 1)[0]
    return [first.strip(), second.strip()]


def test_the_page_names_both_installers():
    assert documented_commands() == ["pipx install .", "uv tool install ."]


def checkout_copy(destination: pathlib.Path) -> pathlib.Path:
    ignored = shutil.ignore_patterns(".git", ".venv*", "build", "*.egg-info", ".*_cache", "__pycache__")
    shutil.copytree(ROOT, destination, ignore=ignored)
    return destination


@pytest.mark.parametrize("command", documented_commands(), ids=lambda command: command.split()[0])
def test_the_documented_install_puts_a_working_tilecheck_in_local_bin(tmp_path, command):
    tool = TOOLS / command.split()[0]
    if not tool.exists():
        pytest.skip(f"{tool.name} is not installed beside {sys.executable} (the dev install brings it)")
    home = tmp_path / "home"
    home.mkdir()
    checkout = checkout_copy(tmp_path / "tilecheck")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PIPX_", "UV_", "XDG_", "VIRTUAL_ENV", "PYTHON"))
    }
    env |= {"HOME": str(home), "PATH": f"{TOOLS}{os.pathsep}{env.get('PATH', '')}"}
    installed = subprocess.run(
        ["bash", "-c", command], cwd=checkout, env=env, capture_output=True, text=True, timeout=900
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    tilecheck = home / ".local" / "bin" / "tilecheck"
    assert tilecheck.exists(), installed.stdout + installed.stderr
    found = subprocess.run(
        [str(tilecheck), "fixtures/examples/softmax_mistakes.py", "--output-format", "concise", "--no-cache"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert found.returncode == 1, found.stderr
    first = found.stdout.splitlines()[0]
    assert first.startswith("fixtures/examples/softmax_mistakes.py:21:17: error: TL104 [semantic]"), first
    # The editor starts `tilecheck server` by name: the installed one must serve a document.
    kernel = checkout / "fixtures" / "examples" / "softmax_mistakes.py"
    server = RawServer(str(checkout), env=env, command=[str(tilecheck), "server"])
    try:
        server.initialize(str(checkout))
        uri = server.open(str(kernel), kernel.read_text(encoding="utf-8"))
        published = server.diagnostics(uri)
        assert (published[0]["code"], published[0]["range"]["start"]) == (
            "TL104",
            {"line": 20, "character": 16},
        )
    finally:
        assert server.finish() == 0
