"""Language-server latency: the time from `didChange` to the new `publishDiagnostics` for the
largest real TileLang file, the median of 20 edits after warm-up, and what it is made of
(parse through the document's chunk cache, kernel model, rules and suppressions, the hover data
the worker sends with each check, conversion to LSP), measured in-process on the same texts as the server checks them.

Each edit appends a comment to the single-line statement nearest the middle of the file, so it
touches one top-level statement (one chunk) inside the file, as typing does.

    .venv/bin/python tools/bench_server.py [FILE]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import os
import pathlib
import statistics
import sys
import time
from collections.abc import Callable

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORPUS_FILE = "tilelang/testing/python/transform/test_tilelang_transform_materialize_ws_schedule.py"
# ../shared beside /work/main, or ../../shared beside a worktree in /work/wt/NAME
CANDIDATES = [
    ROOT.parent / "shared" / "corpus" / CORPUS_FILE,
    ROOT.parent.parent / "shared" / "corpus" / CORPUS_FILE,
]
WARMUP, EDITS = 3, 20


def edited_line(original: str) -> int:
    """The 0-based line of the single-line statement nearest the middle of the file."""
    middle = original.count("\n") // 2
    lines = [
        node.lineno - 1
        for node in ast.walk(ast.parse(original))
        if isinstance(node, ast.stmt) and node.lineno == node.end_lineno
    ]
    return min(lines, key=lambda line: abs(line - middle))


def texts(original: str) -> list[str]:
    """One edit per round: a comment at the end of the middle statement, so every text is new."""
    lines = original.split("\n")
    where = edited_line(original)
    result = []
    for index in range(WARMUP + EDITS):
        edited = list(lines)
        edited[where] = f"{lines[where]}  # edit {index}"
        result.append("\n".join(edited))
    return result


async def server_latencies(path: pathlib.Path) -> list[float]:
    client = LanguageClient("bench", "1")
    arrived: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]  # pygls: unannotated
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
    await client.stop()  # type: ignore[no-untyped-call]  # pygls: unannotated
    return latencies[WARMUP:]


def breakdown(path: pathlib.Path, clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Median milliseconds of each part of the server's check of the same edited texts, by
    `clock` (wall time, or `time.thread_time`: CPU time, which a loaded machine inflates less)."""
    from tilecheck.app.workspace import Workspace
    from tilecheck.lint.context import Context
    from tilecheck.lint.engine import lint_source
    from tilecheck.server.convert import lsp_diagnostics
    from tilecheck.server.hover_data import hover_data
    from tilecheck.server.positions import PositionMap
    from tilecheck.server.session import Checked
    from tilecheck.source.chunks import ChunkCache
    from tilecheck.source.parsing import parse
    from tilecheck.tilelang.reuse import KernelMemo

    workspace = Workspace(cwd=str(path.parent))
    settings = workspace.file_settings(str(path))
    parts: dict[str, list[float]] = {"parse": [], "model": [], "check": [], "hovers": [], "convert": []}
    parsing, checking = ChunkCache(), ChunkCache()  # each sees every text once, as the server's does
    modelling, reusing = KernelMemo(), KernelMemo()  # and each its own kernels, as the server's worker
    original = path.read_text(encoding="utf-8")
    for chunks, memo in ((parsing, modelling), (checking, reusing)):
        module, _, _ = parse(str(path), original, chunks)
        assert module is not None
        _ = Context(str(path), original, module, settings.backend, kernels=memo).model
    for round_, text in enumerate(texts(original)):
        began = clock()
        module, _, _ = parse(str(path), text, parsing)
        parsed = clock()
        assert module is not None
        _ = Context(str(path), text, module, settings.backend, kernels=modelling).model
        modelled = clock()
        analysis = lint_source(text, str(path), settings, chunks=checking, kernels=reusing)
        checked = clock()
        hover_data(analysis, settings)  # what the worker sends with every check
        hovered = clock()
        result = Checked(path.as_uri(), str(path), text, 0, PositionMap(text, "utf-16"), analysis, workspace)
        lsp_diagnostics(result)
        converted = clock()
        if round_ >= WARMUP:
            parts["parse"].append(parsed - began)
            parts["model"].append(modelled - parsed)
            parts["check"].append(checked - modelled)
            parts["hovers"].append(hovered - checked)
            parts["convert"].append(converted - hovered)
    medians = {name: statistics.median(values) * 1000 for name, values in parts.items()}
    medians["rules"] = max(0.0, medians["check"] - medians["parse"] - medians["model"])
    medians["built"], medians["reused"] = reusing.built, reusing.reused
    return medians


def describe(parts: dict[str, float]) -> str:
    return (
        f"check {parts['check']:.0f} ms = parse {parts['parse']:.0f} ms + model {parts['model']:.0f} ms "
        f"+ rules and suppressions {parts['rules']:.0f} ms; then hover data {parts['hovers']:.0f} ms "
        f"and conversion to LSP {parts['convert']:.0f} ms "
        f"({parts['built']:.0f} kernels modeled, {parts['reused']:.0f} reused over all the texts)"
    )


def default_file() -> pathlib.Path | None:
    return next((candidate for candidate in CANDIDATES if candidate.is_file()), None)


def main() -> int:
    parser = argparse.ArgumentParser(description="The editor's re-check latency on one file (make bench).")
    parser.add_argument(
        "file", nargs="?", type=pathlib.Path, help="default: the shared corpus's largest file"
    )
    chosen = parser.parse_args().file or default_file()
    if chosen is None:
        print(f"bench_server: the shared corpus is not here (looked for {CANDIDATES[0]}); pass a FILE")
        return 0
    path = chosen.resolve()
    original = path.read_text(encoding="utf-8")
    latencies = asyncio.run(server_latencies(path))
    wall, cpu = breakdown(path), breakdown(path, time.thread_time)
    load = os.getloadavg()[0]
    print(
        f"{path.name}: {original.count(chr(10))} lines, edit at line {edited_line(original) + 1}, "
        f"{EDITS} edits after {WARMUP} warm-up, {os.cpu_count()} cores, load {load:.1f}"
    )
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(
        f"didChange -> publishDiagnostics: median {statistics.median(latencies) * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms (min {ordered[0] * 1000:.0f}, max {ordered[-1] * 1000:.0f}; "
        "target: median <= 50 ms, p95 <= 100 ms)"
    )
    print(f"in-process, wall time (parse through the document's chunk cache): {describe(wall)}")
    print(f"in-process, CPU time of the checking thread: {describe(cpu)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
