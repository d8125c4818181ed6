"""The VS Code, Helix and Emacs snippets of docs/editors.md, read from the page: each parses as its
editor reads it (JSON, TOML, Emacs Lisp), names the command the install puts on PATH, uses only
settings its client declares, and its initialization options are settings the server accepts: a
server started with them reports the backend-specific TL201 and warns about nothing. (Neovim's
snippet runs in a real Neovim: test_neovim.py.)"""

from __future__ import annotations

import json
import re
import sys

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # the backport tilecheck depends on there
    import tomli as tomllib
from lsprotocol import types

from tests.server.support import Server, diagnostics, open_document, start, summary
from tests.server.test_neovim import snippet

# The settings Generic LSP Client (v2) declares (`contributes.configuration` of zsol/vscode-glspc's
# package.json), with their JSON types; and VS Code's own setting the snippet uses.
GLSPC_SETTINGS = {
    "glspc.server.command": str,
    "glspc.server.commandArguments": list,
    "glspc.server.languageId": list,
    "glspc.server.environmentVariables": dict,
    "glspc.server.initializationOptions": dict,
    "glspc.trace.server": str,
    "editor.codeActionsOnSave": dict,
}

NESTED = (
    "import tilelang.language as T\n\n\n@T.prim_func\n"
    'def main(A: T.Tensor((64, 64), "float32")):\n'
    "    with T.Kernel(1, threads=128) as bx:\n"
    "        for ko in T.Pipelined(4, num_stages=3):\n"
    "            for ki in T.Pipelined(4, num_stages=2):\n"
    "                A[ko, ki] = 0.0\n"
)


def vscode() -> tuple[list[str], dict]:
    settings = json.loads(snippet("VS Code", "json"))
    for key, value in settings.items():
        assert isinstance(value, GLSPC_SETTINGS[key]), key
    assert settings["glspc.server.languageId"] == ["python"]
    assert settings["editor.codeActionsOnSave"] == {"source.fixAll.tilecheck": "explicit"}
    command = [settings["glspc.server.command"], *settings["glspc.server.commandArguments"]]
    return command, settings["glspc.server.initializationOptions"]


def helix() -> tuple[list[str], dict]:
    config = tomllib.loads(snippet("Helix", "toml"))
    server = config["language-server"]["tilecheck"]
    assert set(server) == {"command", "args", "config"}  # the keys Helix's languages.toml defines
    (language,) = config["language"]
    assert language["name"] == "python" and "tilecheck" in language["language-servers"]
    return [server["command"], *server["args"]], server["config"]


def read_sexp(text: str) -> list:
    """A small reader for the Emacs Lisp the snippet uses: lists, vectors, strings, symbols."""
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|[()\[\]\']|[^\s()\[\]\']+', re.sub(r";[^\n]*", "", text))
    position = 0

    def form():
        nonlocal position
        token = tokens[position]
        position += 1
        if token in ("(", "["):
            items = []
            while tokens[position] != {"(": ")", "[": "]"}[token]:
                items.append(form())
            position += 1
            return items if token == "(" else ("vector", items)
        if token == "'":
            return ("quote", form())
        assert token not in (")", "]"), "unbalanced"
        return json.loads(token) if token.startswith('"') else ("symbol", token)

    forms = []
    while position < len(tokens):
        forms.append(form())
    return forms


def _json_of(value):
    """eglot's JSON of a plist (`:key value ...`), `t`, a vector or a string."""
    if isinstance(value, list):
        assert len(value) % 2 == 0 and all(
            key[0] == "symbol" and key[1].startswith(":") for key in value[::2]
        )
        return {key[1][1:]: _json_of(item) for key, item in zip(value[::2], value[1::2], strict=True)}
    if value == ("symbol", "t"):
        return True
    if isinstance(value, tuple) and value[0] == "vector":
        return [_json_of(item) for item in value[1]]
    assert isinstance(value, str), value
    return value


def emacs() -> tuple[list[str], dict]:
    (form,) = read_sexp(snippet("Emacs (eglot)", "elisp"))
    assert form[:2] == [("symbol", "with-eval-after-load"), ("quote", ("symbol", "eglot"))]
    add = form[2]
    assert add[:2] == [("symbol", "add-to-list"), ("quote", ("symbol", "eglot-server-programs"))]
    quote, (modes, dot, program) = add[2]
    assert quote == "quote" and dot == ("symbol", ".")
    assert modes == [("symbol", "python-mode"), ("symbol", "python-ts-mode")]
    command = [item for item in program if isinstance(item, str)]
    options = program[program.index(("symbol", ":initializationOptions")) + 1]
    return command, _json_of(options)


@pytest.mark.parametrize("editor", [vscode, helix, emacs], ids=lambda editor: editor.__name__)
@pytest.mark.asyncio
async def test_the_snippet_starts_the_installed_command_with_settings_the_server_accepts(editor, tmp_path):
    command, options = editor()
    assert command == ["tilecheck", "server"]  # what the install step puts on PATH
    assert options["tilecheck"]["backend"] == "cuda-sm90"
    kernel = tmp_path / "k.py"
    kernel.write_text(NESTED)
    async with Server() as client:
        await start(client, "visual-studio-code", tmp_path, settings=options)
        uri = open_document(client, kernel)
        # 0-based: line 8, column 23, the inner `T.Pipelined`; TL201 needs a backend
        assert summary(await diagnostics(client, uri)) == [("TL201", 7, 22)]
        warnings = [m.message for m in client.messages if m.type != types.MessageType.Info]
        assert warnings == []


def test_the_emacs_reader_rejects_unbalanced_forms():
    with pytest.raises((AssertionError, IndexError)):
        read_sexp('(a "b"')
    assert read_sexp('(:a ["x"] :b t)') == [
        [("symbol", ":a"), ("vector", ["x"]), ("symbol", ":b"), ("symbol", "t")]
    ]
