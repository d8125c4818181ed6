"""Shared pieces of the language-server tests: the server command, client profiles, helpers."""

from __future__ import annotations

import asyncio
import os
import pathlib
import sys
import textwrap

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

DATA = pathlib.Path(__file__).parent / "data"
ROOT = pathlib.Path(__file__).parents[2]

# Neovim 0.7 pushes only; Neovim 0.10 pulls (and offers UTF-8/UTF-16/UTF-32); VS Code 1.65 pushes.
PUSH_PROFILES = ["neovim@v0.7.0", "visual-studio-code"]
PULL_PROFILE = "neovim@v0.10.0"
PROFILES = [*PUSH_PROFILES, PULL_PROFILE]


def server_config(env: dict[str, str] | None = None) -> ClientServerConfig:
    environment = {**os.environ, **(env or {})}
    return ClientServerConfig(
        server_command=[sys.executable, "-m", "tilecheck.server"],
        server_env=environment,
        client_factory=make_client,
    )


class Server:
    """A server process and its client, for tests that need a special environment or start."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.config = server_config(env)

    async def __aenter__(self):
        self.client = await self.config.start()
        return self.client

    async def __aexit__(self, *exc):
        try:
            if exc[0] is None:
                await self.client.shutdown_session()
        finally:
            server = self.client._server  # the process: a failed test cannot shut it down politely
            if server is not None and server.returncode is None:
                server.kill()
            await self.client.stop()


def installed_plugin(directory: pathlib.Path, source: str) -> dict[str, str]:
    """A plugin installed in `directory` (module `xkrules` with `source`, and a dist-info with its
    entry point); the environment that puts it on the server's PYTHONPATH."""
    (directory / "xkrules.py").write_text(textwrap.dedent(source))
    info = directory / "xkrules-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xkrules\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tilecheck.rules]\nxk = xkrules\n")
    return {"PYTHONPATH": os.pathsep.join([str(directory), os.environ.get("PYTHONPATH", "")])}


def capabilities(profile: str, encodings: list[str] | None = None) -> types.ClientCapabilities:
    caps = client_capabilities(profile)
    if encodings is not None:
        caps.general = caps.general or types.GeneralClientCapabilities()
        caps.general.position_encodings = encodings
    return caps


def refreshing_pull_client() -> types.ClientCapabilities:
    """Neovim 0.10's capabilities plus `workspace.diagnostics.refreshSupport`, which Neovim 0.10
    lacks and VS Code (1.67+, with a pull-diagnostics client) sends."""
    caps = capabilities(PULL_PROFILE)
    caps.workspace = caps.workspace or types.WorkspaceClientCapabilities()
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


async def start(
    client: LanguageClient,
    profile: str | types.ClientCapabilities,
    root: pathlib.Path,
    *,
    settings: dict | None = None,
    encodings: list[str] | None = None,
) -> types.InitializeResult:
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(profile, encodings) if isinstance(profile, str) else profile,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=settings,
        )
    )


def open_document(
    client: LanguageClient, path: pathlib.Path, text: str | None = None, version: int = 1
) -> str:
    uri = path.as_uri()
    content = path.read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=version, text=content)
        )
    )
    return uri


def replace_all(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def pulls(client: LanguageClient) -> bool:
    caps = client.capabilities
    return caps is not None and caps.text_document is not None and caps.text_document.diagnostic is not None


def resolves_edits(client: LanguageClient) -> bool:
    """Whether the client resolves code actions' edits (then the server sends them without)."""
    caps = client.capabilities
    code_action = caps.text_document.code_action if caps and caps.text_document else None
    return bool(
        code_action is not None
        and code_action.code_action_literal_support is not None
        and code_action.resolve_support is not None
        and "edit" in code_action.resolve_support.properties
    )


async def resolved(client: LanguageClient, action: types.CodeAction) -> types.CodeAction:
    """`action` complete: resolved through `codeAction/resolve` when the server left its edit out,
    which it must do exactly for clients that resolve edits."""
    if action.data is None:
        assert action.edit is not None or action.command is not None, action
        return action
    assert resolves_edits(client) and action.edit is None, action
    complete = await client.code_action_resolve_async(action)
    assert complete.edit is not None and complete.title == action.title
    return complete


async def diagnostics(
    client: LanguageClient, uri: str, *, version: int | None = None, timeout: float = 300.0
):
    """The document's diagnostics: pulled from a pulling client, else the first push for `uri`
    (with `version`, when given) not consumed by an earlier call."""
    if pulls(client):
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri))
        )
        return list(report.items)
    params = await asyncio.wait_for(next_publish(client, uri, version), timeout)
    return list(params.diagnostics)


async def next_publish(
    client: LanguageClient, uri: str, version: int | None = None
) -> types.PublishDiagnosticsParams:
    seen = client.consumed.setdefault(uri, 0)  # type: ignore[attr-defined]
    while True:
        mine = [p for p in client.publishes if p.uri == uri]  # type: ignore[attr-defined]
        for index in range(seen, len(mine)):
            client.consumed[uri] = index + 1  # type: ignore[attr-defined]
            if version is None or mine[index].version == version:
                return mine[index]
        seen = len(mine)
        async with client.published:  # type: ignore[attr-defined]
            await client.published.wait()  # type: ignore[attr-defined]


def make_client() -> LanguageClient:
    """pytest-lsp's client, also keeping every publishDiagnostics in order (`publishes`)."""
    client = LanguageClient(converter_factory=default_converter)
    client.publishes = []  # type: ignore[attr-defined]
    client.consumed = {}  # type: ignore[attr-defined]
    client.published = asyncio.Condition()  # type: ignore[attr-defined]
    features = {
        k: v for k, v in DEFAULT_CLIENT_FEATURES.items() if k != types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
    }
    register_lsp_features(client, features)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    async def publish(params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.publishes.append(params)  # type: ignore[attr-defined]
        async with client.published:  # type: ignore[attr-defined]
            client.published.notify_all()  # type: ignore[attr-defined]

    client.registrations = []  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    return client


def summary(items) -> list[tuple[str | None, int, int]]:
    """(code, 0-based line, column) of each diagnostic, as the client sees them."""
    return [(d.code, d.range.start.line, d.range.start.character) for d in items]


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (UTF-16 positions) to `text`, last first."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def offset(position: types.Position) -> int:
        content = lines[position.line] if position.line < len(lines) else ""
        column, units = 0, 0
        while column < len(content) and units < position.character:
            units += 2 if ord(content[column]) > 0xFFFF else 1
            column += 1
        return offsets[min(position.line, len(lines))] + column

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


def fix_all_request(uri: str) -> types.CodeActionParams:
    """A `textDocument/codeAction` request for the document's `source.fixAll` action."""
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
    )
