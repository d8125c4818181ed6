"""End-to-end: a real `tilecheck server` process driven by pytest-lsp, per client profile."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.support import (
    DATA,
    PROFILES,
    PULL_PROFILE,
    PUSH_PROFILES,
    diagnostics,
    open_document,
    pulls,
    server_config,
    start,
    summary,
)

SOFTMAX = DATA / "softmax_mistakes.py"
# (code, 0-based line, UTF-16 column) of softmax_mistakes.py, as `tilecheck check` reports them 1-based
SOFTMAX_EXPECTED = [
    ("TL104", 21, 16),
    ("TL101", 22, 25),
    ("TL104", 23, 46),
    ("TL103", 25, 16),
    ("TL102", 29, 25),
    ("TL105", 30, 20),
]


@pytest_lsp.fixture(config=server_config(), params=PROFILES)
async def client(lsp_client: LanguageClient, request):
    lsp_client.profile = request.param
    await start(lsp_client, request.param, DATA)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_initialize_advertises_pull_only_to_pulling_clients(client: LanguageClient):
    caps = client.capabilities
    assert caps is not None
    # the result of initialize is not kept by pytest-lsp: ask the question through behaviour
    uri = open_document(client, SOFTMAX)
    items = await diagnostics(client, uri, version=1)
    assert summary(items) == SOFTMAX_EXPECTED
    first = items[0]
    assert first.source == "tilecheck"
    assert first.severity == types.DiagnosticSeverity.Error
    assert first.message.startswith("Local buffer `row_max` is indexed by T.Parallel loop variable `i`")
    assert "\nhelp: " in first.message  # the help line follows the message
    assert first.code_description is None  # no repository URL configured: no invented link
    assert first.data["fix"]["safe"] is False


@pytest.mark.asyncio
async def test_push_or_pull_never_both(client: LanguageClient):
    uri = open_document(client, SOFTMAX)
    items = await diagnostics(client, uri, version=1)
    assert len(items) == 6
    if pulls(client):
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri))
        )
        unchanged = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri), previous_result_id=report.result_id
            )
        )
        assert unchanged.kind == "unchanged"
        assert client.publishes == []
    else:
        assert [p.uri for p in client.publishes] == [uri]


@pytest.mark.parametrize("profile", [PULL_PROFILE])
def test_pull_profile_declares_pull(profile):
    from tests.server.support import capabilities

    assert capabilities(profile).text_document.diagnostic is not None
    for push in PUSH_PROFILES:
        assert capabilities(push).text_document.diagnostic is None
