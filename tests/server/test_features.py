"""End-to-end: positions, code actions, fix-all, hover and commands through a real server."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.support import (
    DATA,
    PROFILES,
    PULL_PROFILE,
    apply_edits,
    diagnostics,
    fix_all_request,
    open_document,
    resolved,
    server_config,
    start,
    summary,
)
from tilecheck.core.docs import brief, what_it_does
from tilecheck.core.registry import by_code

SOFTMAX = DATA / "softmax_mistakes.py"
PIPELINED = DATA / "pipelined.py"
EMOJI = DATA / "emoji.py"  # line 9: `            s = "😀中"; loc[i] = A[i, 0]`, TL104 at code point 22


def _cli(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "tilecheck", *args], capture_output=True, text=True, check=False
    )
    return done.stdout


# Emacs 29 (eglot) does not resolve code actions: it gets their edits at once.
@pytest_lsp.fixture(config=server_config(), params=[*PROFILES, "emacs@v29.1"])
async def client(lsp_client: LanguageClient, request):
    await start(lsp_client, request.param, DATA)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize(
    ("encodings", "column"),
    [(None, 23), (["utf-16"], 23), (["utf-8"], 27), (["utf-32"], 22), (["utf-32", "utf-8"], 22)],
)
@pytest.mark.asyncio
async def test_position_encodings_with_emoji_and_cjk_before_the_column(encodings, column):
    config = server_config()
    client = await config.start()
    try:
        result = await start(client, PULL_PROFILE, DATA, encodings=encodings)
        expected = (encodings or ["utf-16"])[0]
        assert result.capabilities.position_encoding == expected
        uri = open_document(client, EMOJI)
        items = await diagnostics(client, uri)
        assert summary(items) == [("TL104", 8, column)]
        assert items[0].range.end.character == column + len("loc[i]")
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(8, column + 1))
        )
        assert hover is not None and hover.contents.value.startswith(
            "**TL104** `parallel-indexed-local` (semantic): Local buffer"
        )
        await client.shutdown_session()
    finally:
        await client.stop()


@pytest.mark.asyncio
async def test_code_actions_for_a_diagnostic(client: LanguageClient):
    uri = open_document(client, SOFTMAX)
    items = await diagnostics(client, uri)
    tl104 = items[0]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=tl104.range,
            context=types.CodeActionContext(diagnostics=[tl104], only=[types.CodeActionKind.QuickFix]),
        )
    )
    titles = [action.title for action in actions]
    assert titles == [
        "Allocate `row_max` with `T.alloc_fragment` (TL104) [unsafe fix]",
        "Suppress TL104 on this line",
        "Show documentation for TL104 (parallel-indexed-local)",
    ]
    fix, suppress = [await resolved(client, action) for action in actions[:2]]
    docs = actions[2]
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred is False
    text = SOFTMAX.read_text()
    fixed = apply_edits(text, fix.edit.changes[uri])
    assert fixed.splitlines()[18] == '            row_max = T.alloc_fragment((block_M,), "float32")'
    suppressed = apply_edits(text, suppress.edit.changes[uri])
    assert (
        suppressed.splitlines()[21]
        == "                row_max[i] = S[i, 0]  # expect: TL104:17  # tilecheck: ignore[TL104]"
    )
    assert suppressed.count("tilecheck: ignore") == 1
    # lsprotocol's client-side union hook reads a CodeAction that has a `command` as a Command
    # whose `command` is the nested object's repr; the server sent a CodeAction.
    command = ast.literal_eval(docs.command) if isinstance(docs.command, str) else vars(docs.command)
    assert command["command"] == "tilecheck.showRuleDocumentation" and command["arguments"] == ["TL104"]
    shown = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command["command"], arguments=command["arguments"])
    )
    assert shown == _cli("rule", "TL104")  # the command's result: the whole page
    # no documentation URL configured: a message, short, ending with the command that prints the page
    message = client.messages[-1].message
    assert message == brief(by_code("TL104"))
    assert message.startswith("Reports a load or store of a local buffer (scope exactly `local`, from\n")
    assert message.endswith("\n\nFull documentation: `tilecheck rule TL104`\n")
    assert len(message.splitlines()) == 9 and "## " not in message


@pytest.mark.asyncio
async def test_fix_all_applies_the_safe_fixes_and_is_idempotent(client: LanguageClient):
    text = PIPELINED.read_text()
    uri = open_document(client, PIPELINED)
    items = await diagnostics(client, uri)
    assert summary(items) == [("TL302", 6, 17), ("TL901", 8, 31)]
    assert items[0].severity == types.DiagnosticSeverity.Information  # optimization: a note
    assert list(items[1].tags) == [types.DiagnosticTag.Unnecessary]
    (action,) = await client.text_document_code_action_async(fix_all_request(uri))
    action = await resolved(client, action)
    assert action.kind == "source.fixAll.tilecheck"
    fixed = apply_edits(text, action.edit.changes[uri])
    expected = text.replace("T.Pipelined(0, 8, 2)", "T.Pipelined(0, 8, num_stages=2)").replace(
        "  # tilecheck: ignore[TL104]", ""
    )
    assert fixed == expected
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    assert await diagnostics(client, uri, version=2) == []
    # nothing left that is safely fixable: fix-all is not offered (as ruff's server)
    assert list(await client.text_document_code_action_async(fix_all_request(uri)) or []) == []


@pytest.mark.asyncio
async def test_fix_all_is_not_offered_when_only_unsafe_fixes_exist(client: LanguageClient):
    uri = open_document(client, EMOJI)
    items = await diagnostics(client, uri)
    assert [code for code, _, _ in summary(items)] == [
        "TL104"
    ]  # its fix (alloc_local -> alloc_fragment) is unsafe
    assert list(await client.text_document_code_action_async(fix_all_request(uri)) or []) == []


@pytest.mark.asyncio
async def test_hover_on_loop_header_diagnostic_and_suppression(client: LanguageClient):
    uri = open_document(client, SOFTMAX)
    await diagnostics(client, uri)

    async def hover(line: int, character: int) -> str | None:
        result = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, character))
        )
        return None if result is None else result.contents.value

    tl104 = await hover(21, 20)
    assert tl104 == (
        "**TL104** `parallel-indexed-local` (semantic): Local buffer `row_max` is indexed by T.Parallel"
        " loop variable `i`; local buffers are thread-private and do not take part in parallel layout"
        " inference\n\n"
        + what_it_does(by_code("TL104"))
        + "\n\n**Fix:** Allocate `row_max` with `T.alloc_fragment` to spread it over the threads that run"
        " `i`, or index it with a `T.serial`/`T.unroll` loop variable instead of `i`.\n\n"
        "Full documentation: `tilecheck rule TL104`\n"
    )
    assert "## " not in tl104 and "Design notes" not in tl104
    loop = await hover(20, 14)  # `for i in T.Parallel(block_M):`
    assert loop == (
        "**for i in T.Parallel(block_M)**\n\n"
        "- parallel; extent `block_M` (constant: a Python int)\n"
        "- backend: none selected (target-agnostic checks only)\n"
    )
    macro = await hover(8, 6)  # the macro's loop, inlined at line 28
    assert "inlined from macro `scale_row` (called at line 28)" in macro
    assert await hover(1, 0) is None

    pipelined = open_document(client, PIPELINED)
    await diagnostics(client, pipelined)
    result = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(pipelined), types.Position(8, 52))
    )
    assert result.contents.value.startswith("**TL104** `parallel-indexed-local` (semantic): ")
    assert result.range == types.Range(types.Position(8, 51), types.Position(8, 56))


@pytest.mark.asyncio
async def test_hover_on_a_kernel_launch_shows_its_shared_memory_and_the_limit():
    """The table is the worker's, worked out when the hover asks (not on every edit); under a
    diagnostic (TL501 on the same call) it follows the diagnostic's text."""
    config = server_config()
    client = await config.start()
    try:
        await start(client, PULL_PROFILE, DATA, settings={"tilecheck": {"backend": "cuda-sm86"}})
        uri = open_document(client, DATA / "shared_gemm.py")
        assert summary(await diagnostics(client, uri)) == [("TL501", 7, 9)]
        result = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(7, 12))
        )
        assert result.range == types.Range(types.Position(7, 9), types.Position(7, 50))
        diagnostic, table = result.contents.value.split("\n---\n\n")
        assert diagnostic.startswith(
            "**TL501** `shared-memory-exceeds-limit` (contract): `T.Kernel` of `main`"
        )
        assert table.splitlines()[:5] == [
            "**`T.Kernel` of `main`**",
            "",
            "- shared memory per block, cp.async (sm_80, sm_86, sm_87, sm_89, gfx950): 131,072 bytes "
            "(131,072 dynamic + 0 static); the limit on cuda-sm86 is 101,376: EXCEEDS it",
            "  - `A_s`: (128 x 64) float16 x 4 versions = 65,536 bytes  (offset 0, statements 2-2)",
            "  - `B_s`: (64 x 128) float16 x 4 versions = 65,536 bytes  (offset 65,536, statements 2-2)",
        ]
        outside = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(7, 60))  # `as (bx, by)`
        )
        assert outside is None
        await client.shutdown_session()
    finally:
        await client.stop()


@pytest.mark.asyncio
async def test_show_lowered_returns_the_lowered_text(client: LanguageClient):
    path = DATA / "pypto_pipeline.py"
    uri = open_document(client, path)
    assert await diagnostics(client, uri) == []
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="tilecheck.showLowered", arguments=[uri])
    )
    assert result["text"] == _cli("lower", str(path))
    assert result["changed"] is True and result["diagnostics"] == []
