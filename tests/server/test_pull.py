"""End-to-end: `workspace/diagnostic` (every open document, `unchanged` by result id, closed
documents cleared), `workspace/diagnostic/refresh` after settings and configuration changes for
clients that support it, and `codeAction/resolve` (lazy edits, stale actions refused)."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcException

from tests.server.support import (
    DATA,
    PULL_PROFILE,
    Server,
    apply_edits,
    diagnostics,
    open_document,
    refreshing_pull_client,
    replace_all,
    resolved,
    start,
    summary,
)

SOFTMAX = (DATA / "softmax_mistakes.py").read_text()
PIPELINED = (DATA / "pipelined.py").read_text()
ALL_SOFTMAX = ["TL104", "TL101", "TL104", "TL103", "TL102", "TL105"]


async def pull_workspace(client, previous: dict[str, str] | None = None) -> dict[str, tuple]:
    """uri -> (kind, result id, version, codes) of a `workspace/diagnostic` report."""
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[
                types.PreviousResultId(uri, value) for uri, value in (previous or {}).items()
            ]
        )
    )
    found = {}
    for item in report.items:
        codes = [d.code for d in item.items] if item.kind == "full" else None
        found[item.uri] = (item.kind, item.result_id, item.version, codes)
    return found


def result_ids(found: dict[str, tuple]) -> dict[str, str]:
    return {uri: entry[1] for uri, entry in found.items() if entry[1] is not None}


@pytest.mark.asyncio
async def test_workspace_diagnostic_reports_open_documents_and_unchanged_ones_by_result_id(tmp_path):
    (tmp_path / "softmax.py").write_text(SOFTMAX)
    (tmp_path / "pipelined.py").write_text(PIPELINED)
    async with Server() as client:
        result = await start(client, refreshing_pull_client(), tmp_path)
        assert result.capabilities.diagnostic_provider.workspace_diagnostics is True
        softmax = open_document(client, tmp_path / "softmax.py")
        pipelined = open_document(client, tmp_path / "pipelined.py", version=4)
        first = await pull_workspace(client)
        assert {uri: (kind, version, codes) for uri, (kind, _, version, codes) in first.items()} == {
            softmax: ("full", 1, ALL_SOFTMAX),
            pipelined: ("full", 4, ["TL302", "TL901"]),
        }
        # nothing changed: both unchanged, under the same result ids
        again = await pull_workspace(client, result_ids(first))
        assert again == {
            softmax: ("unchanged", first[softmax][1], 1, None),
            pipelined: ("unchanged", first[pipelined][1], 4, None),
        }
        # the document pull shares the result ids
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(softmax), previous_result_id=first[softmax][1]
            )
        )
        assert report.kind == "unchanged" and report.result_id == first[softmax][1]
        # one document edited: only it is reported in full
        replace_all(
            client, pipelined, PIPELINED.replace("T.Pipelined(0, 8, 2)", "T.Pipelined(0, 8, num_stages=2)"), 5
        )
        edited = await pull_workspace(client, result_ids(first))
        assert edited[softmax] == ("unchanged", first[softmax][1], 1, None)
        kind, result_id, version, codes = edited[pipelined]
        assert (kind, version, codes) == ("full", 5, ["TL901"]) and result_id != first[pipelined][1]
        # a closed document is reported once, empty and without a result id, then no more
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(softmax))
        )
        closed = await pull_workspace(client, result_ids(edited))
        assert closed == {softmax: ("full", None, None, []), pipelined: ("unchanged", result_id, 5, None)}
        assert await pull_workspace(client, result_ids(closed)) == {
            pipelined: ("unchanged", result_id, 5, None)
        }


@pytest.mark.asyncio
async def test_settings_and_configuration_changes_ask_a_pulling_client_to_refresh(tmp_path):
    kernel = tmp_path / "k.py"
    kernel.write_text(SOFTMAX)
    async with Server() as client:
        await start(client, refreshing_pull_client(), tmp_path)
        uri = open_document(client, kernel)
        assert [d.code for d in await diagnostics(client, uri)] == ALL_SOFTMAX
        assert client.diagnostic_refresh_count == 0
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tilecheck": {"select": ["TL101"]}})
        )
        await wait_for_refreshes(client, 1)
        assert [d.code for d in await diagnostics(client, uri)] == ["TL101"]
        # a configuration file next to the document changes: refresh again, the file applies
        (tmp_path / "tilecheck.toml").write_text('[per-file-ignores]\n"k.py" = ["TL101"]\n')
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=(tmp_path / "tilecheck.toml").as_uri(), type=types.FileChangeType.Created
                    )
                ]
            )
        )
        await wait_for_refreshes(client, 2)
        assert await diagnostics(client, uri) == []
        assert [p.uri for p in client.publishes] == []  # a pulling client is never pushed to


@pytest.mark.asyncio
async def test_a_pulling_client_without_refresh_support_is_not_asked_to_refresh(tmp_path):
    kernel = tmp_path / "k.py"
    kernel.write_text(SOFTMAX)
    async with Server() as client:
        await start(client, PULL_PROFILE, tmp_path)  # Neovim 0.10: pulls, cannot be asked to refresh
        uri = open_document(client, kernel)
        assert len(await diagnostics(client, uri)) == 6
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tilecheck": {"select": ["TL101"]}})
        )
        assert [d.code for d in await diagnostics(client, uri)] == ["TL101"]  # its next pull sees it
        await asyncio.sleep(0.3)
        assert client.diagnostic_refresh_count == 0 and client.publishes == []


async def wait_for_refreshes(client, count: int) -> None:
    for _ in range(300):
        if client.diagnostic_refresh_count >= count:
            break
        await asyncio.sleep(0.05)
    assert client.diagnostic_refresh_count == count


@pytest.mark.parametrize("profile", ["neovim@v0.7.0", PULL_PROFILE])
@pytest.mark.asyncio
async def test_code_actions_resolve_their_edits_lazily_and_refuse_stale_ones(tmp_path, profile):
    kernel = tmp_path / "k.py"
    kernel.write_text(PIPELINED)
    async with Server() as client:
        await start(client, profile, tmp_path)
        uri = open_document(client, kernel)
        items = await diagnostics(client, uri, version=1)
        assert summary(items) == [("TL302", 6, 17), ("TL901", 8, 31)]
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri),
                range=items[0].range,
                context=types.CodeActionContext(diagnostics=[items[0]]),
            )
        )
        assert [a.title for a in actions] == [
            "Write `num_stages=2` (TL302)",
            "Suppress TL302 on this line",
            "Show documentation for TL302 (positional-num-stages)",
            "tilecheck: fix all safe fixes",
        ]
        fix, suppress, _, fix_all = actions
        assert all(a.edit is None for a in (fix, suppress, fix_all))  # both clients resolve `edit`
        fixed = apply_edits(PIPELINED, (await resolved(client, fix)).edit.changes[uri])
        assert fixed == PIPELINED.replace("T.Pipelined(0, 8, 2)", "T.Pipelined(0, 8, num_stages=2)")
        suppressed = apply_edits(PIPELINED, (await resolved(client, suppress)).edit.changes[uri])
        assert suppressed.splitlines()[6].endswith("# tilecheck: ignore[TL302]")
        # the document changes: a per-diagnostic action offered before is refused...
        edited = "# a new first line\n" + PIPELINED
        replace_all(client, uri, edited, 2)
        with pytest.raises(JsonRpcException) as refused:
            await client.code_action_resolve_async(suppress)
        assert refused.value.code == JsonRpcContentModified.CODE
        assert refused.value.message == "the document changed since this code action was offered"
        # ...while fix-all applies to the document as it is now
        everything = apply_edits(edited, (await resolved(client, fix_all)).edit.changes[uri])
        assert everything == edited.replace(
            "T.Pipelined(0, 8, 2)", "T.Pipelined(0, 8, num_stages=2)"
        ).replace("  # tilecheck: ignore[TL104]", "")
