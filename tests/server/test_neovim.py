"""docs/editors.md followed literally, with a real editor as the client: the install step that puts
`tilecheck` on PATH is run as written, then Debian's Neovim 0.7 (headless) loads the Neovim
snippet, exactly as the page shows it, as its `init.lua`, opens a kernel and reads back the pushed
diagnostics. The snippet is read from the page, so the page and the test cannot drift.

Neovim 0.8-0.10 (`vim.lsp.start`) and 0.11+ (`vim.lsp.config`/`vim.lsp.enable`) are not installed
here: their branches run under 0.7 against stand-ins of those functions that record what they are
given (and, for `vim.lsp.start`, start the client with 0.7's own calls), so the branch's Lua runs
and its arguments are checked against those releases' documented shapes."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from tests.server.support import DATA, ROOT

NVIM = shutil.which("nvim")
EDITORS = ROOT / "docs" / "editors.md"
needs_nvim = pytest.mark.skipif(
    NVIM is None, reason="nvim not found (.ci/run installs Debian's neovim with apt-get)"
)

SOFTMAX_DIAGNOSTICS = [
    ("TL104", 22, 17),
    ("TL101", 23, 26),
    ("TL104", 24, 47),
    ("TL103", 26, 17),
    ("TL102", 30, 26),
    ("TL105", 31, 21),
]


def snippet(heading: str, language: str) -> str:
    """The one `language` code block of the `## heading` section of docs/editors.md."""
    text = EDITORS.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(rf"```{language}\n(.*?)```", section, flags=re.DOTALL)
    return block


def install_on_path(home: pathlib.Path) -> pathlib.Path:
    """Run the install page's link line as written (HOME is the test's), in this checkout."""
    if not (ROOT / ".venv" / "bin" / "tilecheck").exists():
        pytest.skip("no .venv/bin/tilecheck in this checkout (`make demo` creates it)")
    (line,) = [
        line
        for line in snippet("Install: `tilecheck` on the PATH your editor sees", "bash").splitlines()
        if "ln -sf" in line
    ]
    command = line.split("#", 1)[0].strip()
    subprocess.run(["bash", "-c", command], cwd=ROOT, env={**os.environ, "HOME": str(home)}, check=True)
    return home / ".local" / "bin"


PROBE = r"""
local out = _G.arg_out
local done = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(found, { code = d.code or lsp.code, lnum = d.lnum, col = d.col, source = d.source or lsp.source })
end
table.sort(found, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
local clients = {}
for _, client in pairs(vim.lsp.get_active_clients()) do
  table.insert(clients, { name = client.name, root = client.config.root_dir, cmd = client.config.cmd })
end
vim.fn.writefile({ vim.fn.json_encode({
  done = done, diagnostics = found, clients = clients, messages = vim.fn.execute("messages"),
  recorded = _G.recorded or vim.NIL,
}) }, out)
for _, client in pairs(vim.lsp.get_active_clients()) do client.stop() end
vim.wait(2000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
vim.cmd("qall!")
"""

# Stand-ins for the API of later releases, loaded before the page's snippet.
NEOVIM_0_11 = r"""
_G.recorded = {}
vim.lsp.config = function(name, config) _G.recorded.config = { name = name, config = config } end
vim.lsp.enable = function(name) _G.recorded.enabled = name end
"""
NEOVIM_0_8 = r"""
_G.recorded = {}
vim.fs = {
  dirname = function(path) return vim.fn.fnamemodify(path, ":h") end,
  find = function(names, opts)
    for _, name in ipairs(names) do
      local hit = vim.fn.findfile(name, opts.path .. ";")
      if hit == "" then hit = vim.fn.finddir(name, opts.path .. ";") end
      if hit ~= "" then return { vim.fn.fnamemodify(hit, ":p"):gsub("/$", "") } end
    end
    return {}
  end,
}
vim.lsp.start = function(config)
  _G.recorded.start = vim.deepcopy(config) -- before start_client adds its callbacks
  local client = vim.lsp.start_client(config)
  vim.lsp.buf_attach_client(0, client)
  return client
end
"""


def run_neovim(tmp_path: pathlib.Path, path_dirs: list[pathlib.Path], before: str = "") -> dict:
    init = tmp_path / "init.lua"
    init.write_text(before + snippet("Neovim", "lua"))
    probe = tmp_path / "probe.lua"
    probe.write_text(PROBE)
    out = tmp_path / "out.json"
    env = {
        "HOME": str(tmp_path / "home"),
        "PATH": os.pathsep.join([*map(str, path_dirs), "/usr/bin", "/bin"]),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    project = tmp_path / "project"  # a project root of its own: the snippet's markers find it
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.tilecheck]\n")
    shutil.copy(DATA / "softmax_mistakes.py", project)
    command = [NVIM, "--headless", "-i", "NONE", "-u", str(init)]
    command += [
        "-c",
        f"lua _G.arg_out = {json.dumps(str(out))}",
        "-c",
        f"luafile {probe}",
        "softmax_mistakes.py",
    ]
    done = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert out.exists(), done.stdout + done.stderr
    assert "Error" not in done.stderr and "E5113" not in done.stderr, done.stderr
    return json.loads(out.read_text())


def found(result: dict) -> list[tuple[str, int, int]]:
    return [(d["code"], d["lnum"] + 1, d["col"] + 1) for d in result["diagnostics"]]


@needs_nvim
def test_the_documented_install_and_snippet_work_in_neovim_07(tmp_path):
    on_path = install_on_path(tmp_path / "home")
    result = run_neovim(tmp_path, [on_path])
    assert result["done"] is True, result["messages"]
    # 0-based line and byte column, as Neovim stores them: TL104 at line 22, column 17 (1-based)
    first = result["diagnostics"][0]
    assert (first["code"], first["lnum"], first["col"], first["source"]) == ("TL104", 21, 16, "tilecheck")
    assert found(result) == SOFTMAX_DIAGNOSTICS
    (client,) = result["clients"]
    assert (client["name"], client["cmd"]) == ("tilecheck", ["tilecheck", "server"])
    assert client["root"] == str(tmp_path / "project")
    assert "tilecheck" not in result["messages"]  # no warning, no error


@needs_nvim
def test_without_tilecheck_on_path_the_snippet_warns_once_and_nothing_fails(tmp_path):
    if shutil.which("tilecheck", path="/usr/bin:/bin"):
        pytest.skip("a system-wide tilecheck is installed")
    (tmp_path / "home").mkdir()
    result = run_neovim(tmp_path, [])
    assert result["clients"] == [] and result["diagnostics"] == []
    assert result["messages"].strip() == (
        "tilecheck: `tilecheck` is not executable (see tilecheck's docs/editors.md)"
    )


@needs_nvim
def test_the_neovim_08_to_010_branch_starts_a_client_per_project_root(tmp_path):
    on_path = install_on_path(tmp_path / "home")
    result = run_neovim(tmp_path, [on_path], before=NEOVIM_0_8)
    assert result["done"] is True, result["messages"]
    assert found(result) == SOFTMAX_DIAGNOSTICS
    started = result["recorded"]["start"]
    assert (started["name"], started["cmd"]) == ("tilecheck", ["tilecheck", "server"])
    assert started["root_dir"] == str(tmp_path / "project")  # the nearest marker: its pyproject.toml
    assert started["init_options"] == {"tilecheck": {"backend": "cuda-sm90", "showOptimization": True}}


@needs_nvim
def test_the_neovim_011_branch_configures_and_enables_the_server(tmp_path):
    on_path = install_on_path(tmp_path / "home")
    result = run_neovim(tmp_path, [on_path], before=NEOVIM_0_11)
    recorded = result["recorded"]
    assert recorded["enabled"] == "tilecheck"
    assert recorded["config"] == {
        "name": "tilecheck",
        "config": {
            "cmd": ["tilecheck", "server"],
            "filetypes": ["python"],
            "root_markers": ["pyproject.toml", "tilecheck.toml", ".git"],
            "init_options": {"tilecheck": {"backend": "cuda-sm90", "showOptimization": True}},
        },
    }
    assert result["clients"] == []  # the stand-in starts nothing: 0.11 itself would, on a Python buffer
