"""The editor's `tilelangVersion` setting: the TileLang releases a document is checked against, as
`--tilelang-version` sets them on the command line (initialization options, then changed)."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.server.support import Server, diagnostics, open_document, start
from tilecheck.tilelang.versions import MEASURED

KERNEL = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float16")):
    with T.Kernel(1, threads=128) as bx:
        As = T.alloc_shared((64, 64), "float16")
        L = T.alloc_local((64,), "float32")
        for k in T.Pipelined(4, group=[[0], [1]]):
            T.copy(A, As)
        for i in T.Parallel(64):
            L[i] = A[i, 0]
"""
ERROR, INFO = types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Information


def verdicts(items) -> list[tuple[int, int, str | None, types.DiagnosticSeverity | None]]:
    return [(d.range.start.line, d.range.start.character, d.code, d.severity) for d in items]


def change(client, value: object) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tilecheck": {"tilelangVersion": value}})
    )


@pytest.mark.asyncio
async def test_tilelang_version_setting_from_initialization_options_and_changes(tmp_path):
    kernel = tmp_path / "k.py"
    kernel.write_text(KERNEL)
    # the project declares 0.1.15; the editor's setting wins over the declaration
    (tmp_path / "requirements.txt").write_text("tilelang==0.1.15\n")
    async with Server() as client:
        await start(
            client, "visual-studio-code", tmp_path, settings={"tilecheck": {"tilelangVersion": "0.1.9"}}
        )
        uri = open_document(client, kernel)
        (local,) = await diagnostics(client, uri)  # 0.1.9 takes `group` and has no ParallelLocalIndexChecker
        assert verdicts([local]) == [(11, 12, "TL104", INFO)]
        assert (
            "(no TileLang release in range has `ParallelLocalIndexChecker`; not proven for 0.1.9, which lacks"
            in local.message
        )
        change(client, "0.1.15")
        assert verdicts(await diagnostics(client, uri)) == [(8, 32, "TL210", ERROR), (11, 12, "TL104", ERROR)]
        # the next release: the newest measured one stands in for it, with one warning
        change(client, "0.1.16")
        assert verdicts(await diagnostics(client, uri)) == [(8, 32, "TL210", ERROR), (11, 12, "TL104", ERROR)]
        await asyncio.sleep(0.2)
        warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
        assert warnings == [
            "tilecheck: setting `tilecheck.tilelangVersion`: `0.1.16` matches none of the TileLang releases "
            f"tilecheck has measured ({', '.join(MEASURED)}); checking against {MEASURED[-1]}, the nearest "
            "measured release"
        ]
        change(client, "latest")
        (problem,) = await diagnostics(client, uri)
        assert problem.severity == ERROR and problem.code is None
        assert problem.message == (
            "tilecheck: configuration error: setting `tilecheck.tilelangVersion`: `latest` is not a release "
            "version (like 0.1.9 or 0.1.7.post1)"
        )
        # a wrong type is reported and left at its default: the project's declaration (0.1.15)
        change(client, 15)
        assert verdicts(await diagnostics(client, uri)) == [(8, 32, "TL210", ERROR), (11, 12, "TL104", ERROR)]
        await asyncio.sleep(0.2)
        warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
        assert warnings[-1] == (
            "tilecheck: `tilecheck.tilelangVersion` must be a non-empty string, got 15; using the default"
        )
