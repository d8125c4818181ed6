"""A check that a newer version of its document, or its close, supersedes is abandoned: the
worker stops it at once, so the next text (or the next document) is checked without waiting for
it. The slow part is injected (a plugin rule that blocks until it is interrupted) and the budget
is unlimited, so only abandoning can free the worker: no timing decides the outcome."""

from __future__ import annotations

import json
import time

import pytest

from tests.server.raw_client import DEADLINE, RawServer
from tests.server.support import DATA

SOFTMAX = (DATA / "softmax_mistakes.py").read_text()
ALL_SOFTMAX = ["TL104", "TL101", "TL104", "TL103", "TL102", "TL105"]
BLOCKS = """
import threading

from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class Blocks(Rule):
    \"\"\"Blocks for good on a text that says so, after saying that it started.\"\"\"

    CODE = "XK960"
    NAME = "blocks"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        if "BLOCK HERE" in ctx.source:
            open({started!r}, "a").write("started\\n")
            threading.Event().wait()
"""
QUIET_RULE = """
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class Quiet(Rule):
    \"\"\"Reports nothing.\"\"\"

    CODE = "XK961"
    NAME = "quiet"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        pass
"""
BLOCKING = SOFTMAX + "# BLOCK HERE\n"


@pytest.fixture
def server(tmp_path):
    started = tmp_path / "started"
    (tmp_path / "pyproject.toml").write_text('[tool.tilecheck]\nplugins = ["blocking_rules"]\n')
    (tmp_path / "blocking_rules.py").write_text(BLOCKS.format(started=str(started)))
    running = RawServer(str(tmp_path), env={"TILECHECK_ALLOW_PLUGINS": "1"})
    running.initialize(str(tmp_path))
    running.notify(
        "workspace/didChangeConfiguration", {"settings": {"tilecheck": {"perFileTimeout": 0}}}
    )  # unlimited: nothing but abandoning ends the blocked check
    yield running, started
    running.kill()


def wait_until_started(started) -> None:
    deadline = time.monotonic() + DEADLINE
    while not started.exists():
        assert time.monotonic() < deadline, "the blocking check never started"
        time.sleep(0.05)


def codes(diagnostics) -> list[str]:
    return [diagnostic.get("code", diagnostic["message"]) for diagnostic in diagnostics]


def test_a_newer_version_abandons_the_check_in_flight(server, tmp_path):
    client, started = server
    uri = client.open(str(tmp_path / "k.py"), BLOCKING)
    wait_until_started(started)
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": SOFTMAX}]},
    )
    assert codes(client.diagnostics(uri, version=2)) == ALL_SOFTMAX
    assert client.finish() == 0


def test_a_close_abandons_the_check_in_flight(server, tmp_path):
    client, started = server
    blocked = client.open(str(tmp_path / "k.py"), BLOCKING)
    wait_until_started(started)
    client.notify("textDocument/didClose", {"textDocument": {"uri": blocked}})
    other = client.open(str(tmp_path / "other.py"), SOFTMAX)
    assert codes(client.diagnostics(other)) == ALL_SOFTMAX
    assert client.finish() == 0


def test_a_plugin_import_that_is_abandoned_is_no_plugin_failure(tmp_path):
    """Abandoning a check while a local plugin is being imported interrupts the import; the
    plugin is imported again for the newer text, and is not reported as failing to load."""
    started = tmp_path / "started"
    (tmp_path / "pyproject.toml").write_text('[tool.tilecheck]\nplugins = ["slow_import"]\n')
    (tmp_path / "slow_import.py").write_text(
        "import os, threading\n"
        f"if not os.path.exists({str(started)!r}):\n"
        f"    open({str(started)!r}, 'w').close()\n"
        "    threading.Event().wait()\n" + QUIET_RULE
    )
    client = RawServer(str(tmp_path), env={"TILECHECK_ALLOW_PLUGINS": "1"})
    try:
        client.initialize(str(tmp_path))
        client.notify("workspace/didChangeConfiguration", {"settings": {"tilecheck": {"perFileTimeout": 0}}})
        uri = client.open(str(tmp_path / "k.py"), SOFTMAX)
        wait_until_started(started)
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": SOFTMAX + "\n"}]},
        )
        assert codes(client.diagnostics(uri, version=2)) == ALL_SOFTMAX
        assert client.finish() == 0
    finally:
        client.kill()
    assert not [m for m in client.seen if "failed to load" in json.dumps(m)]
