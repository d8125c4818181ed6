"""`gitlab`: a GitLab Code Quality report (the Code Climate issue subset GitLab reads).

A JSON array; each issue has `description`, `check_name`, `fingerprint`, `severity` (`major`
for errors, `minor` for warnings, `info` for notes) and `location.path` / `location.lines.begin`
(`end` too). Paths are relative to `CI_PROJECT_DIR` when it is set (the repository root in a
GitLab job), else to the working directory, with `/` separators. The fingerprint is stable when
lines above the finding move, so GitLab's merge request widget tracks it across commits. In a
notebook the lines are counted in the cell, which the description names (`(cell 3)`).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import TextIO

from tilecheck.core.types import Diagnostic, Severity, Span
from tilecheck.report import Run, data_path, shown_line
from tilecheck.report.sarif import line_fingerprint

SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def report_path(path: str) -> str:
    """`path` relative to `CI_PROJECT_DIR` (when set and `path` is inside it), POSIX-style."""
    root = os.environ.get("CI_PROJECT_DIR")
    shown = data_path(path)
    if root and not path.startswith("<"):
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
        if not relative.startswith(".."):
            shown = relative
    return shown.replace(os.sep, "/")


def issue(diagnostic: Diagnostic, run: Run, seen: dict[tuple[str, str], int]) -> dict[str, object]:
    path = report_path(diagnostic.path)
    line_hash = line_fingerprint(diagnostic, run.sources.get(diagnostic.path), seen)
    span, found = diagnostic.span, diagnostic.cell
    cell = "" if found is None else f" (cell {found.number})"
    return {
        "description": f"{diagnostic.message} [{diagnostic.grade.value}]{cell}",
        "check_name": diagnostic.code,
        "fingerprint": hashlib.sha256(f"{path}\0{line_hash}".encode()).hexdigest(),
        "severity": SEVERITIES[diagnostic.severity],
        "location": {
            "path": path,
            "lines": {
                "begin": shown_line(span, found),
                "end": shown_line(Span.point(max(span.line, span.end_line), 0), found),
            },
        },
    }


def render(run: Run, out: TextIO) -> None:
    seen: dict[tuple[str, str], int] = {}
    json.dump([issue(d, run, seen) for d in run.diagnostics], out, indent=2, ensure_ascii=False)
    out.write("\n")
