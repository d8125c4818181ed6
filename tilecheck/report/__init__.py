"""Output formats. Each module renders a run's diagnostics; columns become 1-based here."""

from __future__ import annotations

import os
from dataclasses import dataclass

from tilecheck.types import Diagnostic, Severity


@dataclass
class Run:
    """Everything a reporter needs about one run."""

    diagnostics: list[Diagnostic]  # sorted
    sources: dict[str, str]  # path -> text, for excerpts
    files_checked: int


def display_path(path: str) -> str:
    """Paths relative to the working directory when they are inside it."""
    if path.startswith("<"):
        return path
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def summary(run: Run) -> str:
    counts = {severity: 0 for severity in Severity}
    for diagnostic in run.diagnostics:
        counts[diagnostic.severity] += 1
    files = len({d.path for d in run.diagnostics})
    if not run.diagnostics:
        return "All checks passed!"
    parts = []
    for severity, word in ((Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.INFO, "note")):
        count = counts[severity]
        if count:
            parts.append(f"{count} {word}{'' if count == 1 else 's'}")
    found = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"Found {found} in {files} file{'' if files == 1 else 's'}."


def location(diagnostic: Diagnostic) -> str:
    return f"{display_path(diagnostic.path)}:{diagnostic.span.line}:{diagnostic.span.column + 1}"
