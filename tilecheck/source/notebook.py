"""Jupyter notebooks (`.ipynb`): their code cells as one Python text, and back.

The code cells are joined, one line after another, into the Python text tilecheck checks
(`Notebook.text`), as ruff does; IPython syntax that is not Python (a line magic `%time`, a
shell escape `!ls`, `x = !ls`, a cell magic `%%bash` and the cell under it) is masked, line for
line, so that every other line keeps its number; the body of a cell magic that runs Python
(`%%time`) is checked. Diagnostics keep their spans in that text (fixes
and suppression comments work there) and learn their cell here (`locate`), the one place that
maps a position back to the notebook. `rewrite` writes a fixed text back into the cells,
restores the masked lines and serializes the notebook as it was formatted (indent, key order,
escaping, trailing newline); a notebook whose formatting it cannot reproduce exactly is not
written.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

from tilecheck.core import meta
from tilecheck.core.meta import Problem
from tilecheck.core.types import Diagnostic, NotebookCell

# `%magic`, `!cmd`, `??name`, `name?`, and an assignment from a magic or a shell escape.
_IPYTHON_LINE = re.compile(r"\s*(?:[%!]|\?\?|[\w.]+\?\??\s*$|[\w.,\s()\[\]]+=\s*[%!])")
_MASK = "pass  # IPython syntax, masked"
MAX_NESTING = 500  # JSON levels read (real notebooks nest a few dozen); the parser recurses per level
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[{]+|[\]}]+")  # runs of openers or closers, counted at once
# Cell magics that run their body as Python in the kernel: the body is checked, only the `%%`
# line is masked (ruff's `is_magic_cell` in crates/ruff_notebook/src/cell.rs lists the same).
_PYTHON_CELL_MAGICS = frozenset(
    {"capture", "debug", "ipytest", "prun", "pypy", "python", "python3", "time", "timeit"}
)
# `line 9` or `line 9, column 5` in a message; group 3: already named in its cell
_LINE_REFERENCE = re.compile(r"\bline (\d+)(, column \d+)?( of cell)?")
_OTHER_FILE = re.compile(r"\.pyi?, $")  # `(in macro `m`, kernels/m.py, line 7)`: that file's line


@dataclass(frozen=True)
class CodeCell:
    number: int  # 1-based, counting every cell
    first_line: int  # the line of the Python text this cell's first line is
    lines: tuple[str, ...]  # the cell's source lines, as written (without line endings)
    masked: frozenset[int]  # indices of `lines` masked in the Python text
    # the masked lines of a cell magic: at column 0, not indented as the line was (`%%bash` text)
    flush: frozenset[int] = frozenset()

    def mask(self, index: int) -> str:
        return _MASK if index in self.flush else _masked(self.lines[index])


@dataclass(frozen=True)
class Notebook:
    document: dict[str, Any]  # the parsed notebook, keys in their order
    cells: tuple[CodeCell, ...]
    text: str  # the code cells' Python text

    def cell_at(self, line: int) -> NotebookCell | None:
        found = None
        for cell in self.cells:
            if cell.first_line <= line:
                found = cell
        return None if found is None else NotebookCell(found.number, found.first_line)

    def locate(self, diagnostic: Diagnostic) -> Diagnostic:
        """The diagnostic with its cell, and its same-file related locations with theirs; the
        lines its texts name (`the enclosing `T.Parallel` at line 9`) named in their cells."""
        related = tuple(
            item
            if item.path is not None
            else dataclasses.replace(
                item, cell=self.cell_at(item.span.line), message=self.in_cells(item.message)
            )
            for item in diagnostic.related
        )
        fix = diagnostic.fix
        return dataclasses.replace(
            diagnostic,
            cell=self.cell_at(diagnostic.span.line),
            related=related,
            message=self.in_cells(diagnostic.message),
            help=None if diagnostic.help is None else self.in_cells(diagnostic.help),
            notes=tuple(self.in_cells(note) for note in diagnostic.notes),
            fix=None if fix is None else dataclasses.replace(fix, title=self.in_cells(fix.title)),
        )

    def in_cells(self, text: str) -> str:
        """`text` with each `line N` of the Python text as `line L of cell C`; not inside
        backticks (quoted source), not after another file's name (`m.py, line 7`), and not twice."""
        parts = text.split("`")
        for index in range(0, len(parts), 2):  # the even parts are outside backticks
            parts[index] = _LINE_REFERENCE.sub(self._line_in_cell, parts[index])
        return "`".join(parts)

    def _line_in_cell(self, match: re.Match[str]) -> str:
        line = int(match[1])
        cells = [cell for cell in self.cells if cell.first_line <= line < cell.first_line + len(cell.lines)]
        if not cells or match[3] or _OTHER_FILE.search(match.string, 0, match.start()):
            return match[0]
        return f"line {line - cells[-1].first_line + 1}{match[2] or ''} of cell {cells[-1].number}"

    def rewrite(self, fixed: str, original: bytes) -> bytes | str:
        """The notebook's bytes with `fixed` (an edit of `text`) in its code cells, formatted as
        `original` was; or why it cannot be written."""
        layout = _layout(original, self.document)
        if isinstance(layout, str):
            return layout
        if not self.cells or fixed == self.text:
            return original
        rebuilt = self._cells_of(fixed)
        document = json.loads(json.dumps(self.document))
        for cell in self.cells:
            entry = _cell_entries(document)[cell.number - 1]
            joined = "\n".join(rebuilt[cell.number])
            key = _source_key(document)
            entry[key] = _split_like(entry[key], joined)
        return _serialize(document, layout)

    def diff(self, fixed: str, name: str) -> str:
        """A unified diff of each code cell `fixed` (an edit of `text`) changes, as ruff prints
        a notebook's (`--- k.ipynb:cell 3`), of the cells as written (IPython lines unmasked)."""
        rebuilt = self._cells_of(fixed)
        return "".join(
            "".join(
                difflib.unified_diff(
                    [line + "\n" for line in cell.lines],
                    [line + "\n" for line in rebuilt[cell.number]],
                    f"{name}:cell {cell.number}",
                    f"{name}:cell {cell.number}",
                )
            )
            for cell in self.cells
        )

    def _cells_of(self, fixed: str) -> dict[int, list[str]]:
        """Each code cell's lines in `fixed`, an edit of `text`, with its IPython lines restored."""
        old_lines = self.text.removesuffix("\n").split("\n")
        new_lines = fixed.removesuffix("\n").split("\n")
        owner = [(cell, index) for cell in self.cells for index in range(len(cell.lines))]
        rebuilt: dict[int, list[str]] = {cell.number: [] for cell in self.cells}
        matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
        for _, i1, i2, j1, j2 in matcher.get_opcodes():
            for offset, new in enumerate(new_lines[j1:j2]):
                # a replaced line stays in its cell; an inserted one joins the cell of the line before
                cell, index = owner[min(i1 + offset, i2 - 1) if i2 > i1 else max(i1 - 1, 0)]
                if index in cell.masked and new == cell.mask(index):
                    new = cell.lines[index]  # the IPython line the mask stood for
                rebuilt[cell.number].append(new)
        return rebuilt


def read_notebook(data: bytes, path: str) -> Notebook | Diagnostic:
    """The notebook of `data`, or the diagnostic that says why tilecheck cannot check it
    (never a silent pass): TL002 for bytes that are not UTF-8, TL001 for anything else."""
    try:
        decoded = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        message = f"Cannot decode notebook as UTF-8: {error.reason} (byte {error.start})"
        return meta.at_start(Problem.ENCODING_ERROR, path, message)
    too_deep = meta.at_start(
        Problem.TOO_COMPLEX,
        path,
        f"Notebook is too deeply nested to read: its JSON nests more than {MAX_NESTING} levels",
    )
    if _nesting(decoded) > MAX_NESTING:
        return too_deep
    try:
        document = json.loads(decoded)
    except RecursionError:  # the scan above should have caught it
        return too_deep
    except ValueError as error:
        return meta.at_start(Problem.SYNTAX_ERROR, path, f"Cannot read notebook: not valid JSON ({error})")
    problem = _not_checkable(document)
    if problem is not None:
        return meta.at_start(Problem.SYNTAX_ERROR, path, f"Cannot read notebook: {problem}")
    cells: list[CodeCell] = []
    texts: list[str] = []
    line = 1
    for number, entry in enumerate(_cell_entries(document), 1):
        if not isinstance(entry, dict) or entry.get("cell_type") != "code":
            continue
        source = entry.get(_source_key(document), "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            return meta.at_start(
                Problem.SYNTAX_ERROR,
                path,
                f"Cannot read notebook: cell {number} has a malformed `{_source_key(document)}`",
            )
        lines = tuple(source.split("\n"))
        masked, flush = _masked_lines(lines)
        code = CodeCell(number, line, lines, masked, flush)
        cells.append(code)
        texts.append(
            "\n".join(code.mask(index) if index in masked else text for index, text in enumerate(lines))
        )
        line += len(lines)
    return Notebook(document, tuple(cells), "\n".join(texts) + ("\n" if texts else ""))


def _cell_entries(document: dict[str, Any]) -> list[Any]:
    """The notebook's cells, in order: nbformat 3 keeps them in its worksheets (Jupyter's own
    upgrade to nbformat 4 joins the worksheets' cells, in order, so cell numbers are the same)."""
    if "cells" in document:
        return list(document["cells"])
    return [entry for sheet in document["worksheets"] for entry in sheet["cells"]]


def _source_key(document: dict[str, Any]) -> str:
    return "source" if "cells" in document else "input"  # an nbformat-3 code cell's source is `input`


def _nesting(text: str) -> int:
    """How deep `text`'s brackets nest outside its strings, without parsing it: the JSON parser
    recurses once per level (as the cache reader's `_nesting`, which it cannot share: no limit
    on the number of brackets here, a notebook's outputs can hold many)."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(_JSON_STRING.sub("", text)):
        run = match[0]
        depth += len(run) if run[0] in "[{" else -len(run)
        deepest = max(deepest, depth)
        if deepest > MAX_NESTING:
            break
    return deepest


def _not_checkable(document: object) -> str | None:
    if isinstance(document, dict) and "cells" not in document and _nbformat_3(document):
        return _not_python(document)
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        return "not a Jupyter notebook (no `cells` list)"
    return _not_python(document)


def _nbformat_3(document: dict[str, Any]) -> bool:
    sheets = document.get("worksheets")
    return (
        document.get("nbformat") == 3
        and isinstance(sheets, list)
        and all(isinstance(sheet, dict) and isinstance(sheet.get("cells"), list) for sheet in sheets)
    )


def _not_python(document: dict[str, Any]) -> str | None:
    language = _language(document)
    if language is not None and language.lower() != "python":
        return f"a {language} notebook, not a Python one"
    return None


def _language(document: dict[str, Any]) -> str | None:
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        return None
    for key in ("language_info", "kernelspec"):
        entry = metadata.get(key)
        if isinstance(entry, dict):
            name = entry.get("name" if key == "language_info" else "language")
            if isinstance(name, str):
                return name
    return None


def _masked_lines(lines: tuple[str, ...]) -> tuple[frozenset[int], frozenset[int]]:
    """The IPython lines of a cell, and those of them masked at column 0 (a cell magic's): only
    a line that starts a logical line can be one (a `%` line inside brackets, a string or after
    a `\\` is Python: an operator, or text)."""
    first = lines[0].lstrip() if lines else ""
    if first.startswith("%%"):
        words = first[2:].split()
        if not words or words[0] not in _PYTHON_CELL_MAGICS:
            everything = frozenset(range(len(lines)))  # the whole cell is another language
            return everything, everything
    masked: set[int] = set()
    state = _Scan()
    for index, line in enumerate(lines):
        if state.at_start() and _IPYTHON_LINE.match(line):
            masked.add(index)
        else:
            state.feed(line)
    return frozenset(masked), frozenset({0}) if first.startswith("%%") else frozenset()


@dataclass
class _Scan:
    """Where a cell's Python stands after some lines: open brackets, an open string, a `\\`."""

    depth: int = 0
    quote: str = ""  # the open string's delimiter: one quote character or three
    continued: bool = False

    def at_start(self) -> bool:
        return self.depth == 0 and not self.quote and not self.continued

    def feed(self, line: str) -> None:
        index, self.continued, comment = 0, False, False
        while index < len(line):
            char = line[index]
            if self.quote:
                if char == "\\":
                    index += 2
                    continue
                if line.startswith(self.quote, index):
                    index += len(self.quote)
                    self.quote = ""
                    continue
            elif char == "#":
                comment = True
                break
            elif char in "'\"":
                self.quote = char * 3 if line.startswith(char * 3, index) else char
                index += len(self.quote)
                continue
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            index += 1
        stripped = line.rstrip()
        if len(self.quote) == 1:  # a one-quote string ends with its line unless continued
            self.continued = stripped.endswith("\\")
            if not self.continued:
                self.quote = ""
        elif not self.quote and not comment and stripped.endswith("\\"):
            self.continued = True


def _masked(line: str) -> str:
    indent = line[: len(line) - len(line.lstrip())]
    return indent + _MASK


def _split_like(source: object, text: str) -> object:
    """`text` as the cell stored its source: one string, or lines that keep their `\\n`."""
    if isinstance(source, str):
        return text
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


@dataclass(frozen=True)
class _Layout:
    indent: int | None
    ensure_ascii: bool
    separators: tuple[str, str]
    trailing_newline: bool


def _layout(original: bytes, document: dict[str, Any]) -> _Layout | str:
    """How `original` was serialized, found by reproducing it exactly (else why not)."""
    text = original.decode("utf-8-sig")
    trailing = text.endswith("\n")
    match = re.search(r"\n( +)\"", text)
    indent = len(match[1]) if match else None
    for ensure_ascii in (False, True):
        for separators in ((",", ": "), (", ", ": "), (",", ":")):
            layout = _Layout(indent, ensure_ascii, separators, trailing)
            if _serialize(document, layout).decode("utf-8") == text:
                return layout
    return "its JSON formatting could not be reproduced exactly, so it was not rewritten"


def _serialize(document: dict[str, Any], layout: _Layout) -> bytes:
    text = json.dumps(
        document, indent=layout.indent, ensure_ascii=layout.ensure_ascii, separators=layout.separators
    )
    return (text + ("\n" if layout.trailing_newline else "")).encode("utf-8")
