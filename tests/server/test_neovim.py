"""A real editor as the client: Debian's Neovim 0.7 (headless) attaches `tilecheck server` with
`vim.lsp.start_client` + `vim.lsp.buf_attach_client` (it predates `vim.lsp.start` and pull
diagnostics) and reads back the pushed TL104 diagnostic."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.server.support import DATA

NVIM = shutil.which("nvim")

SCRIPT = r"""
local out, python, root = _G.arg_out, _G.arg_python, _G.arg_root
local client = vim.lsp.start_client({
  name = "tilecheck",
  cmd = { python, "-m", "tilecheck.server" },
  root_dir = root,
})
vim.lsp.buf_attach_client(0, client)
local done = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local lsp = (d.user_data or {}).lsp or {}
  table.insert(found, { code = d.code or lsp.code, lnum = d.lnum, col = d.col, source = d.source or lsp.source })
end
table.sort(found, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
vim.fn.writefile({ vim.fn.json_encode({ done = done, diagnostics = found }) }, out)
vim.lsp.stop_client(client)
vim.wait(2000, function() return vim.lsp.get_client_by_id(client) == nil end, 50)
vim.cmd("qall!")
"""


@pytest.mark.skipif(NVIM is None, reason="nvim not found (.ci/run installs Debian's neovim with apt-get)")
def test_neovim_07_shows_the_tl104_diagnostic(tmp_path):
    script = tmp_path / "attach.lua"
    script.write_text(SCRIPT)
    out = tmp_path / "out.json"
    kernel = DATA / "softmax_mistakes.py"
    command = [
        NVIM,
        "--headless",
        "--clean",
        "-c",
        f"lua _G.arg_out = {json.dumps(str(out))}; _G.arg_python = {json.dumps(sys.executable)}; "
        f"_G.arg_root = {json.dumps(str(DATA))}",
        "-c",
        f"luafile {script}",
        str(kernel),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert out.exists(), done.stderr
    result = json.loads(out.read_text())
    assert result["done"] is True
    # 0-based line and byte column, as Neovim stores them: TL104 at line 22, column 17 (1-based)
    first = result["diagnostics"][0]
    assert (first["code"], first["lnum"], first["col"], first["source"]) == ("TL104", 21, 16, "tilecheck")
    assert [(d["code"], d["lnum"] + 1, d["col"] + 1) for d in result["diagnostics"]] == [
        ("TL104", 22, 17),
        ("TL101", 23, 26),
        ("TL104", 24, 47),
        ("TL103", 26, 17),
        ("TL102", 30, 26),
        ("TL105", 31, 21),
    ]
