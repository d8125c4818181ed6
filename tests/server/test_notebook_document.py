"""A notebook opened as a text document (its JSON): one TL003 that says the server does not check
notebooks, never a silent pass over the JSON, and nothing to fix."""

from __future__ import annotations

import json
import typing

import pytest
from lsprotocol import types

from tests.server.support import (
    Server,
    apply_edits,
    capabilities,
    diagnostics,
    make_client,
    next_publish,
    open_document,
    start,
    summary,
)


@pytest.mark.asyncio
async def test_a_notebook_text_document_gets_one_diagnostic_saying_why(tmp_path):
    source = ["import tilelang.language as T\n", "for i in T.Parallel(4):\n", "    pass\n"]
    document = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": source}],
        "metadata": {},
    }
    path = tmp_path / "k.ipynb"
    path.write_text(json.dumps(document, indent=1) + "\n")
    async with Server() as client:
        await start(client, "visual-studio-code", tmp_path)
        uri = open_document(client, path)
        items = await diagnostics(client, uri)
        assert summary(items) == [("TL003", 0, 0)]
        assert items[0].message.startswith("Cannot read file: it is a notebook; the language server checks")


# -- notebook documents (notebookDocument/didOpen, didChange, didClose) -----------------------------

IMPORTS = "import tilelang.language as T\n%matplotlib inline"
KERNEL = (
    "@T.prim_func\n"
    'def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32")):\n'
    "    with T.Kernel(1, threads=128) as bx:\n"
    "        for i in T.Parallel(64):\n"
    "            B[i, 0] = 0\n"
    "            for j in T.Parallel(64):\n"
    "                B[i, j] = A[i, j]\n"
)
CLEAN = KERNEL.replace("            B[i, 0] = 0\n", "")


def notebook_server() -> Server:
    """A server whose test client reads the notebook sync options (lsprotocol's converter has no
    structure hook for a filter's `notebook` union; the test client keeps the value as sent)."""
    server = Server()

    def client_factory():
        client = make_client()
        hint = typing.get_type_hints(types.NotebookDocumentFilterWithCells)["notebook"]
        client.protocol._converter.register_structure_hook(hint, lambda value, _: value)
        return client

    server.config.client_factory = client_factory
    return server


def notebook_client(profile: str) -> types.ClientCapabilities:
    """`profile`'s capabilities, with notebook document sync (VS Code's since 1.67)."""
    caps = capabilities(profile)
    caps.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities()
    )
    return caps


def open_notebook(client, path, kernel: str = KERNEL) -> tuple[str, list[str]]:
    """Open `path` as a notebook of three cells (code, Markdown, code); its URI and its cells'."""
    uri = path.as_uri()
    cells = [f"vscode-notebook-cell:{path}#W{n}" for n in range(3)]
    texts = [(IMPORTS, "python"), ("# The kernel", "markdown"), (kernel, "python")]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=uri,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[
                    types.NotebookCell(
                        kind=types.NotebookCellKind.Markup if n == 1 else types.NotebookCellKind.Code,
                        document=cells[n],
                    )
                    for n in range(3)
                ],
            ),
            cell_text_documents=[
                types.TextDocumentItem(uri=cells[n], language_id=texts[n][1], version=1, text=texts[n][0])
                for n in range(3)
            ],
        )
    )
    return uri, cells


@pytest.mark.asyncio
@pytest.mark.parametrize("profile", ["visual-studio-code", "neovim@v0.10.0"])  # push, pull
async def test_a_notebook_document_gets_its_diagnostics_per_cell(tmp_path, profile):
    (tmp_path / "pyproject.toml").write_text("[tool.tilecheck]\n")
    async with notebook_server() as client:
        result = await start(client, notebook_client(profile), tmp_path)
        sync = result.capabilities.notebook_document_sync
        assert sync is not None and sync.notebook_selector[0].cells[0].language == "python"
        _, cells = open_notebook(client, tmp_path / "k.ipynb")
        items = await diagnostics(client, cells[2])
        # TL101 at line 6, column 22 of the cell: 0-based (5, 21) in the cell's document
        assert summary(items) == [("TL101", 5, 21)]
        assert "the enclosing `T.Parallel` at line 4 of cell 3" in items[0].message
        related = items[0].related_information or []
        assert [(r.location.uri, r.location.range.start.line) for r in related] == [
            (cells[2], 3),
            (cells[2], 4),
        ]
        assert await diagnostics(client, cells[0]) == []  # the magic is masked: no TL001


@pytest.mark.asyncio
async def test_a_notebook_change_rechecks_and_a_close_clears_its_cells(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tilecheck]\n")
    async with notebook_server() as client:
        await start(client, notebook_client("visual-studio-code"), tmp_path)
        uri, cells = open_notebook(client, tmp_path / "k.ipynb")
        assert summary(await diagnostics(client, cells[2])) == [("TL101", 5, 21)]
        await diagnostics(client, cells[0])
        client.notebook_document_did_change(
            types.DidChangeNotebookDocumentParams(
                notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri=uri),
                change=types.NotebookDocumentChangeEvent(
                    cells=types.NotebookDocumentCellChanges(
                        text_content=[
                            types.NotebookDocumentCellContentChanges(
                                document=types.VersionedTextDocumentIdentifier(uri=cells[2], version=2),
                                changes=[types.TextDocumentContentChangeWholeDocument(text=CLEAN)],
                            )
                        ]
                    )
                ),
            )
        )
        assert await diagnostics(client, cells[2]) == []
        client.notebook_document_did_close(
            types.DidCloseNotebookDocumentParams(
                notebook_document=types.NotebookDocumentIdentifier(uri=uri),
                cell_text_documents=[types.TextDocumentIdentifier(uri=cell) for cell in cells],
            )
        )
        for cell in cells:
            assert list((await next_publish(client, cell)).diagnostics) == []


@pytest.mark.asyncio
async def test_a_syntax_error_in_a_cell_is_reported_in_that_cell(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tilecheck]\n")
    async with notebook_server() as client:
        await start(client, notebook_client("visual-studio-code"), tmp_path)
        _, cells = open_notebook(client, tmp_path / "k.ipynb", KERNEL + "x = (1,\n")
        assert summary(await diagnostics(client, cells[2])) == [("TL001", 7, 4)]
        assert await diagnostics(client, cells[0]) == []


LOCAL = (
    "@T.prim_func\n"
    'def main(A: T.Tensor((64, 64), "float32")):\n'
    "    with T.Kernel(1, threads=128) as bx:\n"
    '        loc = T.alloc_local((64,), "float32")\n'
    "        for i in T.Parallel(64):\n"
    "            loc[i] = A[i, 0]\n"
)


@pytest.mark.asyncio
async def test_a_fix_in_a_cell_is_an_edit_of_that_cell(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tilecheck]\n")
    async with notebook_server() as client:
        await start(client, notebook_client("visual-studio-code"), tmp_path)
        _, cells = open_notebook(client, tmp_path / "k.ipynb", LOCAL)
        items = await diagnostics(client, cells[2])
        assert summary(items) == [("TL104", 5, 12)]
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(cells[2]),
                range=items[0].range,
                context=types.CodeActionContext(diagnostics=items),
            )
        )
        assert [action.title for action in actions] == [
            "Allocate `loc` with `T.alloc_fragment` (TL104) [unsafe fix]",
            "Show documentation for TL104 (parallel-indexed-local)",
        ]
        edit = actions[0].edit
        assert edit is not None and list(edit.changes) == [cells[2]]
        assert apply_edits(LOCAL, edit.changes[cells[2]]) == LOCAL.replace("alloc_local", "alloc_fragment")
        none = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(cells[0]),
                range=types.Range(types.Position(0, 0), types.Position(0, 5)),
                context=types.CodeActionContext(diagnostics=[]),
            )
        )
        assert list(none or []) == []


@pytest.mark.asyncio
async def test_a_hover_in_a_cell_shows_the_diagnostic_under_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tilecheck]\n")
    async with notebook_server() as client:
        await start(client, notebook_client("visual-studio-code"), tmp_path)
        _, cells = open_notebook(client, tmp_path / "k.ipynb")
        assert summary(await diagnostics(client, cells[2])) == [("TL101", 5, 21)]

        async def hover(cell: str, line: int, character: int) -> types.Hover | None:
            params = types.HoverParams(types.TextDocumentIdentifier(cell), types.Position(line, character))
            return await client.text_document_hover_async(params)

        found = await hover(cells[2], 5, 22)
        assert found is not None and found.range is not None
        assert found.contents.value.startswith("**TL101** `")
        assert "the enclosing `T.Parallel` at line 4 of cell 3" in found.contents.value
        assert (found.range.start.line, found.range.start.character) == (5, 21)  # in the cell's document
        loop = await hover(cells[2], 3, 10)  # the outer loop's header: its classification
        assert loop is not None and loop.range is not None and loop.range.start.line == 3
        assert await hover(cells[0], 0, 3) is None  # nothing there


@pytest.mark.asyncio
async def test_a_cell_magic_with_indented_lines_is_no_syntax_error_in_the_server(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.tilecheck]\n")
    async with notebook_server() as client:
        await start(client, notebook_client("visual-studio-code"), tmp_path)
        _, cells = open_notebook(client, tmp_path / "k.ipynb", "%%time\n" + KERNEL)
        assert summary(await diagnostics(client, cells[2])) == [("TL101", 6, 21)]  # the body, checked
        _, shell = open_notebook(client, tmp_path / "s.ipynb", "%%bash\nif true; then\n  echo hi\nfi\n")
        assert await diagnostics(client, shell[2]) == []  # masked, not `unexpected indent`
