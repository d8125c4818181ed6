"""Output formats. Each module renders a run's diagnostics; columns become 1-based here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilecheck.types import Diagnostic, Severity

if TYPE_CHECKING:
    from tilecheck.rule import Rule

FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github")


@dataclass
class Run:
    """Everything a reporter needs about one run."""

    diagnostics: list[Diagnostic]  # sorted
    sources: dict[str, str]  # path -> text, for excerpts
    files_checked: int
    rules: tuple[type[Rule], ...] = ()  # the rules that were enabled for some file
    fixed: int = 0  # diagnostics fixed by --fix
    unsafe_fixes: bool = False  # unsafe fixes count as applicable
    show_fix_hint: bool = True  # say how many are fixable (not after --fix)
    successful: bool = True  # no internal error


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
    fixed = f"Fixed {run.fixed} diagnostic{'' if run.fixed == 1 else 's'}.\n" if run.fixed else ""
    if not run.diagnostics:
        return fixed + "All checks passed!"
    parts = []
    for severity, word in ((Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.INFO, "note")):
        count = counts[severity]
        if count:
            parts.append(f"{count} {word}{'' if count == 1 else 's'}")
    found = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    text = fixed + f"Found {found} in {files} file{'' if files == 1 else 's'}."
    hint = fix_hint(run)
    return text + ("\n" + hint if hint else "")


def fix_hint(run: Run) -> str:
    if not run.show_fix_hint:
        return ""
    safe = sum(1 for d in run.diagnostics if d.fix is not None and (d.fix.safe or run.unsafe_fixes))
    hidden = sum(1 for d in run.diagnostics if d.fix is not None and not d.fix.safe and not run.unsafe_fixes)
    text = ""
    if safe:
        option = "`--fix --unsafe-fixes`" if run.unsafe_fixes else "`--fix`"
        text = f"[*] {safe} fixable with {option}"
    if hidden:
        more = f"{hidden} unsafe fix{'' if hidden == 1 else 'es'} available with `--fix --unsafe-fixes`"
        text = f"{text} ({more})" if text else "No fixes available (" + more + ")"
    return text + "." if text else ""


def location(diagnostic: Diagnostic) -> str:
    return f"{display_path(diagnostic.path)}:{diagnostic.span.line}:{diagnostic.span.column + 1}"


def level(diagnostic: Diagnostic) -> str:
    """error / warning / note: optimization findings are never errors."""
    return {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}[diagnostic.severity]
