"""Checking and fixing Jupyter notebooks: their code cells' Python text goes through the same
engine as a `.py` file (`tilecheck.source.notebook` makes it and maps each diagnostic to its
cell); a fix is written back into the cells, the notebook formatted as it was."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.lint.analysis import FileAnalysis
from tilecheck.lint.engine import lint_source
from tilecheck.source.notebook import Notebook, read_notebook

if TYPE_CHECKING:
    from tilecheck.config.resolver import FileSettings


def check_notebook(data: bytes, path: str, settings: FileSettings) -> FileAnalysis:
    """The check of the notebook `data`; a file that is not a notebook tilecheck can read gets
    TL001 or TL002, never a clean result."""
    notebook = read_notebook(data, path)
    if not isinstance(notebook, Notebook):
        return FileAnalysis(path, [notebook])
    return located(lint_source(notebook.text, path, settings), notebook)


def located(analysis: FileAnalysis, notebook: Notebook) -> FileAnalysis:
    """`analysis` (of `notebook.text`) with every diagnostic in its cell."""
    analysis.diagnostics = [notebook.locate(diagnostic) for diagnostic in analysis.diagnostics]
    return analysis
