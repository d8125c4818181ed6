"""Diagnostics to JSON and back: the one record the `json` and `json-lines` formats write and the
result cache stores, round-tripping every field.

Lines and columns are 1-based in the record (as users read them); `Span` columns are 0-based.
The record's `path` is whatever the writer passes (the reports show paths relative to the
working directory, the cache stores none: the file it describes is known). A related location
in the diagnostic's own file is written with its path and read back as `path=None`.
`caused_by` and `data` are written only when set, so other reports stay as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tilecheck.core.types import Diagnostic, Edit, Fix, Grade, NotebookCell, Related, Severity, Span


def span_record(span: Span) -> dict[str, int]:
    """1-based `line`, `column`, `end_line`, `end_column`."""
    return {
        "line": span.line,
        "column": span.column + 1,
        "end_line": span.end_line,
        "end_column": span.end_column + 1,
    }


def span_of(record: dict[str, Any]) -> Span:
    return Span(
        int(record["line"]),
        int(record["column"]) - 1,
        int(record["end_line"]),
        int(record["end_column"]) - 1,
    )


def encode(
    diagnostic: Diagnostic, path: str | None = None, shown: Callable[[str], str] = str
) -> dict[str, Any]:
    """The record of `diagnostic`, with `path` (default: the diagnostic's own) as its path, and
    `shown(other)` as the path of a related location in another file."""
    own = path if path is not None else diagnostic.path
    fix = diagnostic.fix
    record: dict[str, Any] = {
        "path": own,
        **span_record(diagnostic.span),
        "code": diagnostic.code,
        "rule": diagnostic.rule,
        "grade": diagnostic.grade.value,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "help": diagnostic.help,
        "notes": list(diagnostic.notes),
        "related": [
            {
                "path": own if item.path is None else shown(item.path),
                **span_record(item.span),
                "message": item.message,
                **cell_record(item.cell, item.span),
            }
            for item in diagnostic.related
        ],
        "fix": None
        if fix is None
        else {
            "title": fix.title,
            "applicability": "safe" if fix.safe else "unsafe",
            "edits": [{**span_record(edit.span), "content": edit.replacement} for edit in fix.edits],
        },
    }
    if diagnostic.caused_by is not None:
        code, span = diagnostic.caused_by
        record["caused_by"] = {"code": code, **span_record(span)}
    record.update(cell_record(diagnostic.cell, diagnostic.span))
    if diagnostic.data:
        record["data"] = dict(diagnostic.data)
    return record


def cell_record(cell: NotebookCell | None, span: Span) -> dict[str, Any]:
    """A notebook location's cell, and its lines counted from the cell (as ruff's JSON has them);
    `line`/`end_line` beside it stay those of the notebook's Python text, as the fix edits' are."""
    if cell is None:
        return {}
    shown = {"number": cell.number, "line": cell.line(span.line), "end_line": cell.line(span.end_line)}
    return {"cell": {**shown, "first_line": cell.first_line}}


def _cell_of(record: dict[str, Any]) -> NotebookCell | None:
    cell = record.get("cell")
    return None if cell is None else NotebookCell(int(cell["number"]), int(cell["first_line"]))


def decode(record: dict[str, Any], path: str | None = None) -> Diagnostic:
    """The diagnostic of a record (`path`, when given, in place of the record's); raises
    KeyError, TypeError or ValueError for a malformed record."""
    own = str(record["path"])
    fix = record["fix"]
    caused_by = record.get("caused_by")
    return Diagnostic(
        path=path if path is not None else own,
        span=span_of(record),
        code=str(record["code"]),
        rule=str(record["rule"]),
        grade=Grade(record["grade"]),
        severity=Severity(record["severity"]),
        message=str(record["message"]),
        help=None if record["help"] is None else str(record["help"]),
        fix=None
        if fix is None
        else Fix(
            str(fix["title"]),
            tuple(Edit(span_of(edit), str(edit["content"])) for edit in fix["edits"]),
            fix["applicability"] == "safe",
        ),
        notes=tuple(str(note) for note in record["notes"]),
        related=tuple(
            Related(
                span_of(item),
                str(item["message"]),
                None if item["path"] == own else str(item["path"]),
                _cell_of(item),
            )
            for item in record["related"]
        ),
        caused_by=None if caused_by is None else (str(caused_by["code"]), span_of(caused_by)),
        cell=_cell_of(record),
        data=tuple(
            (str(key), value if isinstance(value, int) else str(value))
            for key, value in dict(record.get("data") or {}).items()
        ),
    )
