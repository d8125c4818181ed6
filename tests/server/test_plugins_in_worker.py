"""Local plugins are imported by the analysis worker only, never by the server: a plugin that
ends its process or hangs while it is imported costs its own documents a TL005 or TL004, and
every other document is still checked; an untrusted one is reported once, as the CLI warns.
Hovers are answered from what the worker computed with the check, at once, even while the
worker is busy with another document."""

from __future__ import annotations

import asyncio
import time

import pytest
from lsprotocol import types

from tests.server.support import (
    DATA,
    Server,
    diagnostics,
    fix_all_request,
    open_document,
    resolved,
    start,
    summary,
)

SOFTMAX = (DATA / "softmax_mistakes.py").read_text()
ALL_SOFTMAX = ["TL104", "TL101", "TL104", "TL103", "TL102", "TL105"]
TRUSTED = {"TILECHECK_ALLOW_PLUGINS": "1"}


def project(root, plugin_source: str):
    """A folder whose configuration names local plugin `lint_rules`, and a kernel in it."""
    root.mkdir()
    (root / "pyproject.toml").write_text('[tool.tilecheck]\nplugins = ["lint_rules"]\n')
    (root / "lint_rules.py").write_text(plugin_source)
    kernel = root / "k.py"
    kernel.write_text(SOFTMAX)
    return kernel


def plain(root):
    root.mkdir()
    kernel = root / "k.py"
    kernel.write_text(SOFTMAX)
    return kernel


@pytest.mark.asyncio
async def test_a_plugin_that_ends_its_process_on_import_costs_its_document_not_the_server(tmp_path):
    exits = project(tmp_path / "exits", "import os\n\nos._exit(7)\n")
    other = plain(tmp_path / "plain")
    async with Server(TRUSTED) as client:
        await start(client, "neovim@v0.7.0", tmp_path)
        (died,) = await diagnostics(client, open_document(client, exits), version=1)
        assert died.code == "TL005"
        assert died.message.startswith("The worker process checking this file died: it exited with code 7")
        assert [d.code for d in await diagnostics(client, open_document(client, other))] == ALL_SOFTMAX
        assert client._server.returncode is None  # the server itself is still running


@pytest.mark.asyncio
async def test_a_plugin_that_hangs_on_import_costs_its_document_a_budget_diagnostic(tmp_path):
    hangs = project(tmp_path / "hangs", "import threading\n\nthreading.Event().wait()\n")
    other = plain(tmp_path / "plain")
    async with Server(TRUSTED) as client:
        # 20 s: the healthy document, checked next by a fresh worker, never approaches it
        await start(client, "neovim@v0.7.0", tmp_path, settings={"tilecheck": {"perFileTimeout": 20}})
        (budget,) = await diagnostics(client, open_document(client, hangs), version=1, timeout=300)
        assert budget.code == "TL004"
        assert "took longer than 20 s (per-file-timeout)" in budget.message
        items = await diagnostics(client, open_document(client, other), timeout=200)
        assert [d.code for d in items] == ALL_SOFTMAX


@pytest.mark.asyncio
async def test_an_untrusted_local_plugin_is_reported_once(tmp_path):
    kernel = project(tmp_path / "untrusted", "raise SystemExit('never imported')\n")
    second = kernel.parent / "k2.py"
    second.write_text(SOFTMAX)
    async with Server({"TILECHECK_ALLOW_PLUGINS": "0"}) as client:
        await start(client, "neovim@v0.7.0", tmp_path)
        assert [d.code for d in await diagnostics(client, open_document(client, kernel))] == ALL_SOFTMAX
        assert [d.code for d in await diagnostics(client, open_document(client, second))] == ALL_SOFTMAX
        await asyncio.sleep(0.3)
        shown = [m.message for m in client.messages if "not loaded" in m.message]
        assert len(shown) == 1
        configured = kernel.parent / "pyproject.toml"
        assert shown[0].startswith(
            f"tilecheck: {configured} [tool.tilecheck]: local plugin `lint_rules` not loaded: plugins run code"
        )


SLOW_PLUGIN = '''
import time

from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class SlowOnRequest(Rule):
    """Takes eight seconds on a file that asks for it."""

    CODE = "XK905"
    NAME = "slow-on-request"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        if "CHECK SLOWLY" in ctx.source:
            time.sleep(8)
'''


@pytest.mark.asyncio
async def test_a_hover_is_answered_while_the_worker_checks_another_document(tmp_path):
    kernel = project(tmp_path / "slow", SLOW_PLUGIN)
    slow = kernel.parent / "slow.py"
    slow.write_text(SOFTMAX + "# CHECK SLOWLY\n")
    async with Server(TRUSTED) as client:
        await start(client, "neovim@v0.7.0", tmp_path)
        uri = open_document(client, kernel)
        assert [d.code for d in await diagnostics(client, uri)] == ALL_SOFTMAX
        open_document(client, slow)
        await asyncio.sleep(0.5)  # the worker is in the slow document's check now
        began = time.monotonic()
        on_code = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(21, 20))
        )
        waited = time.monotonic() - began
        assert on_code.contents.value.startswith(
            "**TL104** `parallel-indexed-local` (semantic): Local buffer"
        )
        assert waited < 5  # not behind the eight-second check
        # a loop header's description is the worker's (within the budget): after the check
        on_loop = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(20, 25))
        )
        assert on_loop.contents.value.startswith("**for i in T.Parallel(block_M)**")
        assert summary(await diagnostics(client, slow.as_uri()))[0][0] == "TL104"


EXITS_WITHOUT_COMMENT = '''
import os

from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class ExitsWhenTheCommentIsGone(Rule):
    """Ends its process on a text without a suppression comment (what fix-all makes)."""

    CODE = "XK906"
    NAME = "exits-without-comment"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        if "# tilecheck: ignore" not in ctx.source:
            os._exit(3)
'''


@pytest.mark.parametrize("profile", ["neovim@v0.7.0", "emacs@v29.1"], ids=["picked", "with the list"])
@pytest.mark.asyncio
async def test_fix_all_that_crashes_the_worker_tells_the_user_and_changes_nothing(tmp_path, profile):
    # Neovim resolves the action the user picks: a failure is shown. Emacs gets the edit with
    # the list, before anyone picked it: a failure is only logged.
    root = tmp_path / "fixes"
    kernel = project(root, EXITS_WITHOUT_COMMENT)
    text = (DATA / "pipelined.py").read_text()
    kernel.write_text(text)
    async with Server(TRUSTED) as client:
        await start(client, profile, tmp_path)
        uri = open_document(client, kernel)
        assert [d.code for d in await diagnostics(client, uri)] == ["TL302", "TL901"]
        (action,) = await client.text_document_code_action_async(fix_all_request(uri))
        action = await resolved(client, action)
        assert list(action.edit.changes[uri]) == []
        await asyncio.sleep(0.3)
        problem = (
            f"{kernel}: the fixes were not applied: The worker process checking this file died: "
            "it exited with code 3; its memory limit was 2048 MiB (per-file-memory)"
        )
        shown = [m.message for m in client.messages if m.type == types.MessageType.Error]
        logged = [m.message for m in client.log_messages if m.type == types.MessageType.Error]
        assert problem in logged
        assert shown == ([f"tilecheck: {problem}"] if profile.startswith("neovim") else [])


@pytest.mark.asyncio
async def test_without_file_watching_a_save_reads_the_configuration_again(tmp_path):
    kernel = plain(tmp_path / "saved")
    async with Server() as client:
        await start(client, "neovim@v0.7.0", tmp_path)  # no dynamic registration of watchers
        uri = open_document(client, kernel)
        assert [d.code for d in await diagnostics(client, uri, version=1)] == ALL_SOFTMAX
        (kernel.parent / "pyproject.toml").write_text('[tool.tilecheck]\nselect = ["TL105"]\n')
        client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
        assert [d.code for d in await diagnostics(client, uri, version=1)] == ["TL105"]
