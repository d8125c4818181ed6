"""End-to-end: the checks run in a worker process within the per-file budget. A plugin rule that
never returns costs that document a TL004 budget diagnostic and the worker a restart; the
server keeps answering, and the next text is checked by a fresh worker."""

from __future__ import annotations

import asyncio
import time

import pytest
from lsprotocol import types

from tests.server.support import (
    DATA,
    Server,
    diagnostics,
    installed_plugin,
    open_document,
    replace_all,
    start,
    summary,
)

SLEEPER = '''
import os
import threading

from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class SleepsForever(Rule):
    """Never returns, or ends its process, on a file that says so."""

    CODE = "XK903"
    NAME = "sleeps-forever"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        if "SLEEP FOREVER" in ctx.source:
            threading.Event().wait()
        if "EXIT NOW" in ctx.source:
            os._exit(3)  # as a native crash would: the process is gone without an answer
'''
SOFTMAX = (DATA / "softmax_mistakes.py").read_text()
BUDGET = "File is too complex to analyze within the budget: checking it took longer than {} s (per-file-timeout); no rule was run on it"
HEALTHY_BUDGET = (
    20  # seconds: a healthy check in a fresh worker never approaches it, even on a loaded machine
)


@pytest.mark.parametrize("profile", ["neovim@v0.7.0", "neovim@v0.10.0"])
@pytest.mark.asyncio
async def test_a_rule_that_never_returns_costs_a_budget_diagnostic_not_the_server(tmp_path, profile):
    site = tmp_path / "site"
    site.mkdir()
    async with Server(installed_plugin(site, SLEEPER)) as client:
        await start(client, profile, tmp_path, settings={"tilecheck": {"perFileTimeout": HEALTHY_BUDGET}})
        hanging = tmp_path / "hangs.py"
        hanging.write_text("x = 1  # SLEEP FOREVER\n")
        normal = tmp_path / "softmax.py"
        normal.write_text(SOFTMAX)
        first = open_document(client, hanging)
        second = open_document(client, normal)
        # the server answers requests while the worker hangs, and the other document is checked
        hover = await asyncio.wait_for(
            client.text_document_hover_async(
                types.HoverParams(types.TextDocumentIdentifier(second), types.Position(21, 20))
            ),
            300,
        )
        assert hover is not None and hover.contents.value.startswith(
            "**TL104** `parallel-indexed-local` (semantic): Local buffer"
        )
        (budget,) = await diagnostics(client, first, version=1, timeout=300)
        assert (budget.code, budget.message) == ("TL004", BUDGET.format(HEALTHY_BUDGET))
        assert [d.code for d in await diagnostics(client, second, version=1)] == [
            "TL104",
            "TL101",
            "TL104",
            "TL103",
            "TL102",
            "TL105",
        ]
        # a fresh worker checks the next text of the document
        replace_all(client, first, "x = 1\n", 2)
        assert await diagnostics(client, first, version=2) == []
        replace_all(client, first, "x = 1\ny = 2  # tilecheck: ignore[TL104]\n", 3)
        assert summary(await diagnostics(client, first, version=3)) == [("TL901", 1, 7)]


@pytest.mark.asyncio
async def test_a_worker_that_dies_costs_a_crash_diagnostic_and_is_replaced(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    async with Server(installed_plugin(site, SLEEPER)) as client:
        await start(client, "neovim@v0.7.0", tmp_path)
        kernel = tmp_path / "k.py"
        kernel.write_text("x = 1  # EXIT NOW\n")
        uri = open_document(client, kernel)
        (crash,) = await diagnostics(client, uri, version=1)
        assert (crash.code, crash.message) == (
            "TL005",
            "The worker process checking this file died: it exited with code 3; "
            "its memory limit was 2048 MiB (per-file-memory)",
        )
        replace_all(client, uri, "x = 1  # tilecheck: ignore[TL104]\n", 2)
        assert summary(await diagnostics(client, uri, version=2)) == [("TL901", 0, 7)]


@pytest.mark.asyncio
async def test_the_budget_holds_for_a_fresh_worker_too(tmp_path):
    # After an overrun the next question goes to a new worker: its start-up (imports) is not
    # charged to the question, and the question gets the budget, not the budget plus start-up.
    site = tmp_path / "site"
    site.mkdir()
    async with Server(installed_plugin(site, SLEEPER)) as client:
        await start(client, "neovim@v0.7.0", tmp_path, settings={"tilecheck": {"perFileTimeout": 3}})
        uri = open_document(client, tmp_path / "k.py", "x = 1  # SLEEP FOREVER\n")
        (budget,) = await diagnostics(client, uri, version=1, timeout=300)
        assert (budget.code, budget.message) == ("TL004", BUDGET.format(3))
        for version in (2, 3):  # each time a fresh worker, each time within the budget
            began = time.monotonic()
            replace_all(client, uri, f"x = {version}  # SLEEP FOREVER\n", version)
            (budget,) = await diagnostics(client, uri, version=version, timeout=300)
            assert (budget.code, budget.message) == ("TL004", BUDGET.format(3))
            assert (
                time.monotonic() - began < 110
            )  # 3 s and a start-up; not 3 s + 120 s (no document is healthy here)
