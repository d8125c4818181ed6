"""tilecheck's diagnostics as LSP diagnostics: code, source, severity, documentation link,
secondary locations, the Unnecessary tag for unused suppressions, and the data code actions need."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import from_fs_path

from tilecheck.core import meta
from tilecheck.core.meta import Problem
from tilecheck.core.registry import by_code
from tilecheck.core.types import Diagnostic, Grade, Related, Severity
from tilecheck.server.positions import PositionMap

if TYPE_CHECKING:
    from tilecheck.server.session import Checked

SOURCE = "tilecheck"
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
_REPOSITORY_LABELS = ("repository", "source", "source code", "github")


def lsp_diagnostics(checked: Checked) -> list[types.Diagnostic]:
    if checked.problem is not None:
        start = types.Position(0, 0)
        return [
            types.Diagnostic(
                range=types.Range(start, start),
                message=f"tilecheck: {checked.problem}",
                severity=types.DiagnosticSeverity.Error,
                source=SOURCE,
            )
        ]
    if checked.analysis is None:
        return []
    base = repository_url()
    return [
        to_lsp(diagnostic, checked.positions, base, lambda related: related_location(related, checked))
        for diagnostic in checked.analysis.diagnostics
    ]


def to_lsp(
    diagnostic: Diagnostic,
    positions: PositionMap,
    repository: str | None,
    locate: Callable[[Related], types.DiagnosticRelatedInformation],
) -> types.Diagnostic:
    fix = diagnostic.fix
    message = diagnostic.message if not diagnostic.help else f"{diagnostic.message}\nhelp: {diagnostic.help}"
    severity = _SEVERITY[diagnostic.severity]
    if diagnostic.grade is Grade.OPTIMIZATION:
        severity = types.DiagnosticSeverity.Information
    href = documentation_url(diagnostic.code, repository)
    return types.Diagnostic(
        range=positions.range(diagnostic.span),
        message=message,
        severity=severity,
        code=diagnostic.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary]
        if meta.is_problem(diagnostic, Problem.UNUSED_SUPPRESSION)
        else None,
        related_information=[locate(related) for related in diagnostic.related] or None,
        data={
            "code": diagnostic.code,
            "rule": diagnostic.rule,
            "fix": (
                {
                    "title": fix.title,
                    "safe": fix.safe,
                    "edits": [
                        {"range": _range_json(positions.range(edit.span)), "newText": edit.replacement}
                        for edit in fix.edits
                    ],
                }
                if fix is not None
                else None
            ),
        },
    )


def _range_json(rng: types.Range) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character},
    }


def related_location(related: Related, checked: Checked) -> types.DiagnosticRelatedInformation:
    if related.path is None or os.path.abspath(related.path) == os.path.abspath(checked.path):
        uri, positions = checked.uri, checked.positions
    else:  # another module (a macro's definition): its text on disk
        uri = from_fs_path(related.path) or related.path
        try:
            with open(related.path, encoding="utf-8") as handle:
                positions = PositionMap(handle.read(), checked.positions.encoding)
        except (OSError, UnicodeDecodeError):
            positions = PositionMap("", checked.positions.encoding)
    return types.DiagnosticRelatedInformation(
        location=types.Location(uri=uri, range=positions.range(related.span)), message=related.message
    )


@cache
def repository_url() -> str | None:
    """The project's repository URL from the installed package metadata (`[project.urls]`)."""
    from importlib import metadata

    try:
        urls = metadata.metadata("tilecheck").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() in _REPOSITORY_LABELS and url.strip().startswith("https://"):
            return str(url).strip().rstrip("/")
    return None


def documentation_url(code: str, repository: str | None) -> str | None:
    """The rule's section of docs/rules.md in the repository; None for rules it does not list."""
    if repository is None:
        return None
    rule = by_code(code)
    if rule is None:
        return None
    from tilecheck.core.docs import _anchor

    return f"{repository}/blob/main/docs/rules.md#{_anchor(rule)}"
