"""A JSON array of diagnostics (1-based lines and columns), sorted and deterministic."""

from __future__ import annotations

import json
from typing import TextIO

from tilecheck.core.types import Diagnostic, Span
from tilecheck.report import Run, display_path


def _range(span: Span) -> dict[str, int]:
    """1-based `line`, `column`, `end_line`, `end_column`."""
    return {
        "line": span.line,
        "column": span.column + 1,
        "end_line": span.end_line,
        "end_column": span.end_column + 1,
    }


def as_dict(diagnostic: Diagnostic) -> dict[str, object]:
    fix = diagnostic.fix
    return {
        "path": display_path(diagnostic.path),
        **_range(diagnostic.span),
        "code": diagnostic.code,
        "rule": diagnostic.rule,
        "grade": diagnostic.grade.value,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "help": diagnostic.help,
        "notes": list(diagnostic.notes),
        "related": [
            {"path": display_path(item.path or diagnostic.path), **_range(item.span), "message": item.message}
            for item in diagnostic.related
        ],
        "fix": None
        if fix is None
        else {
            "title": fix.title,
            "applicability": "safe" if fix.safe else "unsafe",
            "edits": [{**_range(edit.span), "content": edit.replacement} for edit in fix.edits],
        },
    }


def render(run: Run, out: TextIO) -> None:
    json.dump([as_dict(d) for d in run.diagnostics], out, indent=2, ensure_ascii=False)
    out.write("\n")
