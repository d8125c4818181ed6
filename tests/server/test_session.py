"""End-to-end: settings, configuration files (reload, multi-root), version races, didClose,
and the server's robustness against crashing rules, unparsable files and malformed requests."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.server.support import (
    DATA,
    PULL_PROFILE,
    Server,
    diagnostics,
    installed_plugin,
    next_publish,
    open_document,
    replace_all,
    start,
    summary,
)

SOFTMAX = (DATA / "softmax_mistakes.py").read_text()
PIPELINED = (DATA / "pipelined.py").read_text()
ALL_SOFTMAX = ["TL104", "TL101", "TL104", "TL103", "TL102", "TL105"]


def codes(items) -> list[str]:
    return [d.code for d in items]


@pytest.mark.asyncio
async def test_settings_from_initialization_options_and_did_change_configuration(tmp_path):
    kernel = tmp_path / "k.py"
    kernel.write_text(SOFTMAX)
    async with Server() as client:
        await start(
            client, "visual-studio-code", tmp_path, settings={"tilecheck": {"select": ["TL101", "TL104"]}}
        )
        uri = open_document(client, kernel)
        assert codes(await diagnostics(client, uri)) == ["TL104", "TL101", "TL104"]
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tilecheck": {"ignore": ["parallel-indexed-local"]}})
        )
        assert codes(await diagnostics(client, uri)) == ["TL101", "TL103", "TL102", "TL105"]
        pipelined = tmp_path / "p.py"
        pipelined.write_text(PIPELINED)
        other = open_document(client, pipelined)
        assert codes(await diagnostics(client, other)) == ["TL302"]  # TL104 did not run: not unused
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"tilecheck": {"showOptimization": False, "backend": "cpu"}}
            )
        )
        published = {}
        for _ in range(2):
            params = await asyncio.wait_for(
                next_publish(client, uri) if not published else next_publish(client, other), 30
            )
            published[params.uri] = codes(params.diagnostics)
        assert published == {uri: ALL_SOFTMAX, other: ["TL901"]}
        # wrong types are reported and fall back to the defaults; unknown codes are errors
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tilecheck": {"select": 5, "fixAll": "yes"}})
        )
        assert codes(await diagnostics(client, uri)) == ALL_SOFTMAX
        await asyncio.sleep(0.2)
        warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
        assert "tilecheck: `tilecheck.select` must be a list of strings, got 5; using the default" in warnings
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tilecheck": {"select": ["TL999"]}})
        )
        (problem,) = await diagnostics(client, uri)
        assert problem.severity == types.DiagnosticSeverity.Error and problem.code is None
        assert problem.message == (
            "tilecheck: configuration error: settings `tilecheck.select`/`tilecheck.ignore`: "
            "Unknown rule selector: `TL999`"
        )
        # the editor's settings are named as such, not as the CLI's flags
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tilecheck": {"backend": "cuda-sm99"}})
        )
        (problem,) = await diagnostics(client, uri)
        assert problem.message.startswith(
            "tilecheck: configuration error: setting `tilecheck.backend`: unknown backend `cuda-sm99` (known: "
        )
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"tilecheck": {"configuration": "missing.toml"}})
        )
        (problem,) = await diagnostics(client, uri)
        assert problem.message == (
            f"tilecheck: configuration error: setting `tilecheck.configuration`: no such file {tmp_path / 'missing.toml'}"
        )


@pytest.mark.asyncio
async def test_configuration_setting_names_one_file_relative_to_the_folder(tmp_path):
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "lint.toml").write_text('select = ["TL103"]\n')
    kernel = tmp_path / "k.py"
    kernel.write_text(SOFTMAX)
    async with Server() as client:
        await start(
            client, "neovim@v0.7.0", tmp_path, settings={"tilecheck": {"configuration": "tools/lint.toml"}}
        )
        uri = open_document(client, kernel)
        assert codes(await diagnostics(client, uri)) == ["TL103"]


@pytest.mark.asyncio
async def test_configuration_files_per_folder_and_reload_on_watched_file_change(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    for folder, ignore in ((first, "TL104"), (second, "TL101")):
        (folder / "kernels").mkdir(parents=True)
        (folder / "pyproject.toml").write_text(f'[tool.tilecheck]\nignore = ["{ignore}"]\n')
        (folder / "kernels" / "k.py").write_text(SOFTMAX)
    async with Server() as client:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=__import__("tests.server.support", fromlist=["capabilities"]).capabilities(
                    "visual-studio-code"
                ),
                workspace_folders=[
                    types.WorkspaceFolder(uri=first.as_uri(), name="one"),
                    types.WorkspaceFolder(uri=second.as_uri(), name="two"),
                ],
            )
        )
        one = open_document(client, first / "kernels" / "k.py")
        assert codes(await diagnostics(client, one)) == ["TL101", "TL103", "TL102", "TL105"]
        two = open_document(client, second / "kernels" / "k.py")
        assert codes(await diagnostics(client, two)) == ["TL104", "TL104", "TL103", "TL102", "TL105"]
        await asyncio.sleep(0.2)
        (registration,) = client.registrations
        assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        assert registration.register_options["watchers"] == [{"globPattern": "**/*.toml"}]
        # a nested configuration file appears next to the first folder's kernel
        nested = first / "kernels" / "tilecheck.toml"
        nested.write_text('select = ["TL105"]\n')
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=nested.as_uri(), type=types.FileChangeType.Created)]
            )
        )
        assert codes(await diagnostics(client, one)) == ["TL105"]
        # the second folder is not affected: nothing is published for it
        await asyncio.sleep(0.5)
        assert [p.uri for p in client.publishes].count(two) == 1


SLOW_RULE = """
import time

from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class SlowOnRequest(Rule):
    \"\"\"Takes two seconds on a file that asks for it, so a newer version arrives meanwhile.\"\"\"

    CODE = "XK904"
    NAME = "slow-on-request"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        if "CHECK SLOWLY" in ctx.source:
            time.sleep(2)
"""


@pytest.mark.asyncio
async def test_a_stale_result_is_never_published(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    async with Server(installed_plugin(site, SLOW_RULE)) as client:
        await start(client, "visual-studio-code", DATA)
        uri = (DATA / "race.py").as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, SOFTMAX))
        )
        assert codes(await diagnostics(client, uri, version=1)) == ALL_SOFTMAX
        replace_all(client, uri, SOFTMAX + "# CHECK SLOWLY\n", 2)  # two seconds to check
        await asyncio.sleep(0.5)  # its check is running now
        changed = SOFTMAX.replace("                row_max[i] = S[i, 0]  # expect: TL104:17\n", "")
        replace_all(client, uri, changed, 3)
        items = await diagnostics(client, uri, version=3)
        assert codes(items) == ["TL104", "TL103", "TL102", "TL105"]
        await asyncio.sleep(0.5)  # whatever was still running has finished
        assert [p.version for p in client.publishes if p.uri == uri] == [1, 3]


@pytest.mark.asyncio
async def test_did_close_clears_and_reopen_at_version_zero_is_checked_again():
    async with Server() as client:
        await start(client, "neovim@v0.7.0", DATA)
        path = DATA / "softmax_mistakes.py"
        uri = open_document(client, path)
        assert len(await diagnostics(client, uri)) == 6
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
        assert await diagnostics(client, uri) == []
        uri = open_document(client, path, text=PIPELINED, version=0)  # edited outside, reopened
        assert codes(await diagnostics(client, uri, version=0)) == ["TL302", "TL901"]


PLUGIN = '''
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade, Related, Span


class AlwaysCrashes(Rule):
    """Crashes on every file."""

    CODE = "XK901"
    NAME = "always-crashes"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        raise RuntimeError("boom")


class PointsBack(Rule):
    """Reports line 2 and points back at line 1."""

    CODE = "XK902"
    NAME = "points-back"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        ctx.report_at(Span(2, 0, 2, 1), "line two", related=(Related(Span(1, 0, 1, 5), "line one"),))
'''


@pytest.mark.parametrize("profile", ["neovim@v0.7.0", PULL_PROFILE])
@pytest.mark.asyncio
async def test_crashing_rule_unparsable_file_and_malformed_requests_keep_the_server_up(tmp_path, profile):
    plugin_dir = tmp_path / "site"
    plugin_dir.mkdir()
    async with Server(installed_plugin(plugin_dir, PLUGIN)) as client:
        await start(client, profile, tmp_path)
        kernel = tmp_path / "k.py"
        kernel.write_text("x = 1\ny = 2\n")
        uri = open_document(client, kernel)
        items = await diagnostics(client, uri)
        assert summary(items) == [("TL005", 0, 0), ("XK902", 1, 0)]
        assert items[0].message == "Rule XK901 (always-crashes) crashed: RuntimeError: boom"
        (related,) = items[1].related_information
        assert related.location.uri == uri and related.message == "line one"
        assert related.location.range == types.Range(types.Position(0, 0), types.Position(0, 5))
        await asyncio.sleep(0.1)
        assert any("XK901 (always-crashes) crashed" in m.message for m in client.log_messages)

        broken = tmp_path / "broken.py"
        broken.write_text("def f(:\n    pass\n")
        other = open_document(client, broken)
        assert summary(await diagnostics(client, other)) == [("TL001", 0, 6)]

        # malformed JSON-RPC, written past the client's converter: the server answers with errors
        for body in (
            b'{"jsonrpc": "2.0", "id": "bad-1", "method": "textDocument/hover", "params": {"textDocument": 5}}',
            b'{"jsonrpc": "2.0", "id": "bad-2", "method": "textDocument/codeAction", "params": []}',
            b'{"jsonrpc": "2.0", "id": "bad-3", "method": "tilecheck/nothing", "params": {}}',
            b"{not json",
        ):
            client._server.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        await client._server.stdin.drain()
        with pytest.raises(Exception, match="not an open document"):
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="tilecheck.showLowered", arguments=["file:///nowhere.py"])
            )
        with pytest.raises(Exception, match="unknown rule"):
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="tilecheck.showRuleDocumentation", arguments=[42])
            )
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(1, 0))
        )
        # a plugin rule's short hover too: the message, what it finds, where its page is (no HELP: no fix)
        assert hover is not None and hover.contents.value == (
            "**XK902** `points-back` (semantic): line two\n\nReports line 2 and points back at line 1.\n\n"
            "Full documentation: `tilecheck rule XK902`\n"
        )


COMMON_WITH_TL104 = (
    "import tilelang.language as T\n\n\n@T.macro\ndef load_tile(S, loc, i):\n    loc[i] = S[i, 0]\n"
)
COMMON_FIXED = "import tilelang.language as T\n\n\n@T.macro\ndef load_tile(S, loc, i):\n    S[i, 0] = 0\n"
USES_COMMON = (
    "import tilelang.language as T\n\nfrom .common import load_tile\n\n\n@T.prim_func\n"
    'def main(A: T.Tensor((64, 64), "float32")):\n    with T.Kernel(1, threads=128) as bx:\n'
    '        S = T.alloc_fragment((64, 64), "float32")\n        loc = T.alloc_local((64,), "float32")\n'
    "        for i in T.Parallel(64):\n            load_tile(S, loc, i)\n"
)


@pytest.mark.parametrize("profile", ["visual-studio-code", PULL_PROFILE])
@pytest.mark.asyncio
async def test_saving_a_module_a_kernel_reads_checks_the_kernel_again(tmp_path, profile):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    common = package / "common.py"
    common.write_text(COMMON_WITH_TL104)
    kernel = package / "kern.py"
    kernel.write_text(USES_COMMON)
    async with Server() as client:
        await start(client, profile, tmp_path)
        uri = open_document(client, kernel)
        assert summary(await diagnostics(client, uri, version=1)) == [("TL104", 11, 12)]
        helper = open_document(client, common)
        assert await diagnostics(client, helper, version=1) == []
        common.write_text(COMMON_FIXED)  # the editor saves the fixed macro
        client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(helper)))
        if profile == PULL_PROFILE:  # the client pulls again (it would on the next refresh or edit)
            await asyncio.sleep(0.5)
        assert await diagnostics(client, uri, version=1) == []
