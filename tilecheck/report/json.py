"""A JSON array of diagnostics (1-based lines and columns), sorted and deterministic."""

from __future__ import annotations

import json
from typing import TextIO

from tilecheck.report import Run, display_path
from tilecheck.types import Diagnostic


def as_dict(diagnostic: Diagnostic) -> dict[str, object]:
    span = diagnostic.span
    fix = diagnostic.fix
    return {
        "path": display_path(diagnostic.path),
        "line": span.line,
        "column": span.column + 1,
        "end_line": span.end_line,
        "end_column": span.end_column + 1,
        "code": diagnostic.code,
        "rule": diagnostic.rule,
        "grade": diagnostic.grade.value,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "help": diagnostic.help,
        "notes": list(diagnostic.notes),
        "related": [
            {
                "path": display_path(item.path or diagnostic.path),
                "line": item.span.line,
                "column": item.span.column + 1,
                "end_line": item.span.end_line,
                "end_column": item.span.end_column + 1,
                "message": item.message,
            }
            for item in diagnostic.related
        ],
        "fix": None
        if fix is None
        else {
            "title": fix.title,
            "applicability": "safe" if fix.safe else "unsafe",
            "edits": [
                {
                    "line": edit.span.line,
                    "column": edit.span.column + 1,
                    "end_line": edit.span.end_line,
                    "end_column": edit.span.end_column + 1,
                    "content": edit.replacement,
                }
                for edit in fix.edits
            ],
        },
    }


def render(run: Run, out: TextIO) -> None:
    json.dump([as_dict(d) for d in run.diagnostics], out, indent=2, ensure_ascii=False)
    out.write("\n")
