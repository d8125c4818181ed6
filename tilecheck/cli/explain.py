"""`tilecheck explain FILE[:LINE]`: each kernel's loop nest as a tree, with its diagnostics."""

from __future__ import annotations

import argparse
import os
import re
from typing import TYPE_CHECKING, TextIO

from tilecheck.app.workspace import Workspace
from tilecheck.cli.check import Output
from tilecheck.cli.options import add_config_options, dump_json, require_paths, workspace_from
from tilecheck.core.errors import UsageError
from tilecheck.explain.attach import explain, split_target
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.report import data_path, display_path, fails
from tilecheck.source.notebook import Notebook, read_notebook
from tilecheck.source.notebook_path import is_notebook
from tilecheck.source.reading import read_source

if TYPE_CHECKING:
    from tilecheck.explain.text import Picture

_CELL_TARGET = re.compile(r"(.*):cell (\d+)")  # the FILE part of `k.ipynb:cell 3:4`
_BARE_CELL_TARGET = re.compile(r"(.*\.ipynb):(\d+)")  # `k.ipynb:3:4`, the cell's word left out


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("explain", help="draw a file's loop nests with their diagnostics")
    parser.add_argument(
        "target", metavar="FILE[:LINE]", help="a file, a line of it, or a notebook's line: k.ipynb:cell 3:7"
    )
    parser.add_argument("--output-format", choices=("text", "json", "html", "svg"), default="text")
    parser.add_argument("-o", "--output-file", metavar="FILE", help="write the picture to FILE (atomically)")
    add_config_options(parser)


def run(args: argparse.Namespace) -> int:
    path, line = split_target(args.target)
    cell_number = None
    named = _CELL_TARGET.fullmatch(path) if line is not None else None
    if named is not None and not os.path.lexists(path):  # `k.ipynb:cell 3:4`
        path, cell_number = named[1], int(named[2])
    bare = _BARE_CELL_TARGET.fullmatch(path) if line is not None else None
    if bare is not None and not os.path.lexists(path) and os.path.lexists(bare[1]):
        shown = display_path(bare[1])
        raise UsageError(f"{args.target}: name a notebook's line in its cell: {shown}:cell {bare[2]}:{line}")
    require_paths([path])
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory (explain draws one file)")
    workspace = workspace_from(args)
    workspace.validate_selectors([path])
    analysis = workspace.check_file(path)
    notebook = _notebook(path) if is_notebook(path) and analysis.text is not None else None
    if line is not None and analysis.text is not None:
        line = _python_line(args.target, path, line, cell_number, notebook, analysis.text)
    with Output(args.output_file) as out:
        _draw(args, workspace, path, line, analysis, notebook, out)
    # A file with nothing to draw because it could not be read, decoded or parsed (TL001-TL003)
    # fails as `check` fails on it: a picture of nothing is no pass.
    unread = analysis.context is None and any(fails(d) for d in analysis.diagnostics)
    return 1 if unread else 0


def _notebook(path: str) -> Notebook | None:
    data, _ = read_source(path)
    found = read_notebook(data, path) if data is not None else None
    return found if isinstance(found, Notebook) else None


def _python_line(
    target: str, path: str, line: int, cell_number: int | None, notebook: Notebook | None, text: str
) -> int:
    """The line of the checked text `target` names: `k.py:12`, or in a notebook `k.ipynb:cell 3:4`
    (a line counted in its cell, as reports show it)."""
    if notebook is None:
        if cell_number is not None:
            raise UsageError(f"{target}: {display_path(path)} is not a notebook (name a line: FILE:LINE)")
        count = len(text.splitlines())
        if not 1 <= line <= count:
            raise UsageError(f"{target}: no line {line} in {display_path(path)} (it has {_lines(count)})")
        return line
    if cell_number is None:
        raise UsageError(f"{target}: name the cell of a notebook's line: {display_path(path)}:cell N:{line}")
    cells = [cell for cell in notebook.cells if cell.number == cell_number]
    if not cells:
        raise UsageError(f"{target}: no code cell {cell_number} in {display_path(path)}")
    lines = cells[0].lines
    count = len(lines) - (len(lines) > 1 and lines[-1] == "")  # a source ending in a newline
    if not 1 <= line <= count:
        raise UsageError(
            f"{target}: no line {line} in cell {cell_number} of {display_path(path)} (it has {_lines(count)})"
        )
    return cells[0].first_line + line - 1


def _lines(count: int) -> str:
    return f"{count} line{'' if count == 1 else 's'}"


def _draw(
    args: argparse.Namespace,
    workspace: Workspace,
    path: str,
    line: int | None,
    analysis: FileAnalysis,
    notebook: Notebook | None,
    out: TextIO,
) -> None:
    from tilecheck.explain import html, svg, text

    roots, rest, problem = explain(analysis, line)
    backend = workspace.file_settings(path).backend
    backend_name = backend.name if backend is not None else None
    picture = text.Picture(path, analysis.text or "", line, backend_name, roots, rest, problem, notebook)
    if args.output_format == "json":
        document = {
            "file": data_path(path),
            "line": line,
            "backend": backend_name,
            "kernels": [root.as_json() for root in roots],
            "other_diagnostics": [
                {"line": d.span.line, "column": d.span.column + 1, "code": d.code, "message": d.message}
                for d in rest
            ],
            "problem": problem,
        }
        dump_json(document if notebook is None else _in_cells(document, picture, notebook), out)
        return
    {"text": text, "html": html, "svg": svg}[args.output_format].render(picture, out)


def _in_cells(value: object, picture: Picture, notebook: Notebook) -> object:
    """A notebook's explain JSON: each `line` (of the Python text, as `check`'s JSON has them) with
    its `cell` beside it, and the lines texts name named in their cells."""
    if isinstance(value, list):
        return [_in_cells(item, picture, notebook) for item in value]
    if isinstance(value, str):
        return picture.words(value)
    if not isinstance(value, dict):
        return value
    mapped = {
        key: item if key == "title" else _in_cells(item, picture, notebook) for key, item in value.items()
    }
    line = value.get("line")
    if isinstance(line, int) and ("column" in value or "kind" in value or "file" in value):
        cell = notebook.cell_at(line)
        if cell is not None:
            mapped["cell"] = {"number": cell.number, "line": cell.line(line)}
    return mapped
