"""Notebook documents (LSP `notebookDocument/*`): an open notebook is checked as one document, the
Python text of its code cells joined as `tilecheck check` joins a `.ipynb`'s (IPython lines
masked: `tilecheck.source.notebook`), and each diagnostic goes to the cell document it is in,
at its position in that cell (`Notebook.locate`, the one place positions are mapped back)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from lsprotocol import types

from tilecheck.core.types import Diagnostic, Fix, Related, Span
from tilecheck.server.convert import lsp_diagnostics, related_location, repository_url, to_lsp
from tilecheck.server.positions import PositionMap
from tilecheck.source.notebook import CodeCell, Notebook, read_notebook

if TYPE_CHECKING:
    from pygls.workspace import Workspace

    from tilecheck.server.session import Checked

PYTHON = "python"


def notebook_cells(workspace: Workspace, uri: str) -> tuple[Notebook, dict[int, str], int] | None:
    """The open notebook `uri` as tilecheck reads a notebook, each code cell's document URI by cell
    number (every cell counted, as Jupyter shows them), and the notebook's version; None when `uri`
    is not an open notebook."""
    found = workspace.get_notebook_document(notebook_uri=uri)
    if found is None:
        return None
    cells: list[dict[str, object]] = []
    uris: dict[int, str] = {}
    for number, cell in enumerate(found.cells, 1):
        document = workspace.text_documents.get(cell.document)
        language = document.language_id if document is not None else None
        if cell.kind is types.NotebookCellKind.Code and document is not None and language in (PYTHON, None):
            cells.append({"cell_type": "code", "source": document.source})
            uris[number] = cell.document
        else:  # Markdown, or a cell of another language: counted, not checked
            cells.append({"cell_type": "markdown", "source": ""})
    notebook = read_notebook(json.dumps({"cells": cells, "metadata": {}}).encode(), found.uri)
    assert isinstance(notebook, Notebook)  # made from well-formed cells
    return notebook, uris, found.version


def cell_diagnostics(
    checked: Checked, notebook: Notebook, uris: dict[int, str]
) -> dict[str, list[types.Diagnostic]]:
    """Each code cell's LSP diagnostics (an empty list for a clean cell, so that a push clears it)."""
    found: dict[str, list[types.Diagnostic]] = {uri: [] for uri in uris.values()}
    if not notebook.cells:
        return found
    if checked.problem is not None or checked.analysis is None:  # on the first cell, as a file's is at 1:1
        found[uris[notebook.cells[0].number]] = lsp_diagnostics(checked)
        return found
    for _, number, lsp in in_cells(checked, notebook, uris):
        found[uris[number]].append(lsp)
    return found


def in_cells(
    checked: Checked, notebook: Notebook, uris: dict[int, str]
) -> Iterator[tuple[Diagnostic, int, types.Diagnostic]]:
    """(diagnostic, its cell's number, its LSP diagnostic on that cell) for each of `checked`'s."""
    cells = {cell.number: cell for cell in notebook.cells}
    maps = {number: cell_positions(cell, checked.positions.encoding) for number, cell in cells.items()}
    base = repository_url()

    def locate(related: Related) -> types.DiagnosticRelatedInformation:
        if related.path is not None or related.cell is None or related.cell.number not in uris:
            return related_location(related, checked)
        cell = cells[related.cell.number]
        span = _in_cell(related.span, cell)
        return types.DiagnosticRelatedInformation(
            location=types.Location(uri=uris[cell.number], range=maps[cell.number].range(span)),
            message=related.message,
        )

    assert checked.analysis is not None
    for diagnostic in checked.analysis.diagnostics:
        located = notebook.locate(diagnostic)
        number = located.cell.number if located.cell is not None else notebook.cells[0].number
        cell = cells[number]
        # a fix is offered as an edit of its cell (`cell_edits`), not as an edit of the joined text
        shown = dataclasses.replace(located, span=_in_cell(located.span, cell), fix=None)
        yield diagnostic, number, to_lsp(shown, maps[number], base, locate)


def cell_positions(cell: CodeCell, encoding: str) -> PositionMap:
    return PositionMap("\n".join(cell.lines), encoding)


def cell_edits(fix: Fix, cell: CodeCell, positions: PositionMap) -> list[types.TextEdit] | None:
    """`fix` as edits of `cell`'s document; None when it edits another cell too (or a masked line)."""
    last = cell.first_line + len(cell.lines) - 1
    edits = []
    for edit in fix.edits:
        lines = range(edit.span.line, edit.span.end_line + 1)
        if edit.span.line < cell.first_line or edit.span.end_line > last:
            return None
        if any(line - cell.first_line in cell.masked for line in lines):
            return None
        edits.append(
            types.TextEdit(range=positions.range(_in_cell(edit.span, cell)), new_text=edit.replacement)
        )
    return edits


def _in_cell(span: Span, cell: CodeCell) -> Span:
    """`span` of the joined text, counted from `cell`'s first line (clamped to its start)."""
    shift = cell.first_line - 1
    return Span(max(1, span.line - shift), span.column, max(1, span.end_line - shift), span.end_column)


def cell_reports(checked: Checked, uri: str) -> list[types.Diagnostic] | None:
    """The diagnostics of the cell document `uri` of a checked notebook (None: not one of its cells)."""
    return None if checked.cells is None else checked.cells.get(uri)
