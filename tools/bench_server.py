"""Language-server latency: the time from `didChange` to the new `publishDiagnostics` for the
largest real TileLang file, the median of 20 edits after warm-up, and what it is made of
(parse, kernel model, rules), measured in-process on the same texts.

    .venv/bin/python tools/bench_server.py [FILE]
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import statistics
import sys
import time

from lsprotocol import types
from pygls.lsp.client import LanguageClient

LARGEST = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "shared/corpus/tilelang/testing/python/transform/test_tilelang_transform_materialize_ws_schedule.py",
)  # ../shared beside the checkout, as in CI
WARMUP, EDITS = 3, 20


def texts(original: str) -> list[str]:
    """One edit per round: a comment appended to the last line, so every text is new."""
    return [f"{original.rstrip()}  # edit {index}\n" for index in range(WARMUP + EDITS)]


async def server_latencies(path: pathlib.Path) -> list[float]:
    client = LanguageClient("bench", "1")
    arrived: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: types.PublishDiagnosticsParams) -> None:
        arrived.put_nowait(params)

    await client.start_io(sys.executable, "-m", "tilecheck.server")
    await client.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=path.parent.as_uri())
    )
    client.initialized(types.InitializedParams())
    uri = path.as_uri()
    original = path.read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, original))
    )
    await arrived.get()
    latencies = []
    for version, text in enumerate(texts(original), start=2):
        began = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        while (await arrived.get()).version != version:
            pass
        latencies.append(time.perf_counter() - began)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return latencies[WARMUP:]


def breakdown(path: pathlib.Path) -> dict[str, float]:
    """Median seconds of parse, model and rules (+ suppressions) for the same edited texts."""
    import libcst

    from tilecheck.context import Context
    from tilecheck.workspace import Workspace

    workspace = Workspace(cwd=str(path.parent))
    settings = workspace.file_settings(str(path))
    parts: dict[str, list[float]] = {"parse": [], "model": [], "rules": [], "total": []}
    for text in texts(path.read_text(encoding="utf-8"))[WARMUP:]:
        began = time.perf_counter()
        module = libcst.parse_module(text)
        parsed = time.perf_counter()
        _ = Context(str(path), text, module, settings.backend).model
        modelled = time.perf_counter()
        workspace.check_text(text, str(path))
        checked = time.perf_counter()
        parts["parse"].append(parsed - began)
        parts["model"].append(modelled - parsed)
        parts["total"].append(checked - modelled)
    parts["rules"] = [
        max(0.0, t - p - m) for t, p, m in zip(parts["total"], parts["parse"], parts["model"], strict=True)
    ]
    return {name: statistics.median(values) for name, values in parts.items()}


def main() -> int:
    path = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else LARGEST).resolve()
    lines = path.read_text(encoding="utf-8").count("\n")
    latencies = asyncio.run(server_latencies(path))
    parts = breakdown(path)
    print(f"{path.name}: {lines} lines, {EDITS} edits after {WARMUP} warm-up, {os.cpu_count()} cores")
    print(
        f"didChange -> publishDiagnostics: median {statistics.median(latencies) * 1000:.0f} ms "
        f"(min {min(latencies) * 1000:.0f}, max {max(latencies) * 1000:.0f}; includes the 50 ms debounce)"
    )
    print(
        f"in-process check_text: median {parts['total'] * 1000:.0f} ms = parse {parts['parse'] * 1000:.0f} ms "
        f"+ model {parts['model'] * 1000:.0f} ms + rules and suppressions {parts['rules'] * 1000:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
