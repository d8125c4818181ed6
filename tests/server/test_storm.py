"""Open/close storms: 100 documents opened, checked and closed, twice; the server's memory stays
bounded (closing a document drops its text, analysis and pending check)."""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from lsprotocol import types

from tests.server.support import DATA, next_publish, server_config, start

KERNEL = (DATA / "pipelined.py").read_text()  # small: the storm measures the server, not the rules
DOCUMENTS = 100


def rss_kib(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def children(pid: int) -> list[int]:
    """The server's child processes: the analysis worker (and multiprocessing's resource tracker)."""
    found = []
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def memory_kib(pid: int) -> tuple[int, int]:
    """(the server's RSS, its children's RSS)."""
    return rss_kib(pid), sum(rss_kib(child) for child in children(pid))


async def storm(client, folder: pathlib.Path, round_: int) -> None:
    uris = [(folder / f"k{round_}_{index}.py").as_uri() for index in range(DOCUMENTS)]
    for index, uri in enumerate(uris):
        text = KERNEL + f"# document {index}\n"
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
        )
    for uri in uris:
        params = await asyncio.wait_for(next_publish(client, uri, 1), 300)
        assert [d.code for d in params.diagnostics] == ["TL302", "TL901"]
    for uri in uris:
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    for uri in uris:
        params = await asyncio.wait_for(next_publish(client, uri), 300)
        assert len(params.diagnostics) == 0


@pytest.mark.asyncio
async def test_open_close_storms_keep_memory_bounded(tmp_path):
    client = await server_config().start()
    try:
        await start(client, "neovim@v0.7.0", tmp_path)
        pid = client._server.pid
        await storm(client, tmp_path, 0)  # warm-up: imports, rule modules, caches
        first, first_worker = memory_kib(pid)
        await storm(client, tmp_path, 1)
        await storm(client, tmp_path, 2)
        third, third_worker = memory_kib(pid)
        print(
            f"RSS after storm 1: server {first} KiB, worker {first_worker} KiB; after storm 3: "
            f"server {third} KiB (+{third - first}), worker {third_worker} KiB (+{third_worker - first_worker})"
        )
        # 200 more documents opened and closed: no per-document leak in either process
        assert third - first < 10 * 1024, third - first
        assert first_worker > 0 and third_worker - first_worker < 10 * 1024, third_worker - first_worker
        await client.shutdown_session()
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await client.stop()
