"""Lowering under a file's configuration: which findings `tilecheck lower` reports, and how.

The PyPTO layer lowers (`pypto.api.lower_source`); the configuration decides what its user
sees: the enabled rules, their severities, and the file's suppression comments. Findings about
the file itself (it could not be read, decoded or parsed) are always reported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecheck.app.scheduling import file_size, largest_first, worker_count
from tilecheck.app.supervisor import run_isolated
from tilecheck.core import meta
from tilecheck.core.meta import ALWAYS_REPORTED, Problem
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.lint.suppressions import Suppressions, may_have_suppressions
from tilecheck.pypto.api import LowerResult, lower_source
from tilecheck.source.notebook_path import is_notebook
from tilecheck.source.reading import read_source

if TYPE_CHECKING:
    from tilecheck.app.workspace import Workspace
    from tilecheck.config.resolver import FileSettings
    from tilecheck.core.types import Diagnostic


class ConfiguredReporting:
    """Which diagnostics of one file the configuration and its suppression comments let through."""

    def __init__(self, text: str, settings: FileSettings) -> None:
        self.settings = settings
        self.suppressions = None
        if may_have_suppressions(text):
            self.suppressions = Suppressions.from_source(text, settings.known_classes())
        self.enabled = {rule.CODE for rule in settings.rules}
        self.always = meta.codes_of(ALWAYS_REPORTED)

    def shown(self, diagnostic: Diagnostic) -> Diagnostic | None:
        if diagnostic.code in self.always:
            return diagnostic
        if diagnostic.code not in self.enabled:
            return None
        if self.suppressions is not None and self.suppressions.is_suppressed(diagnostic):
            return None
        severity = self.settings.severities.get(diagnostic.code)
        return dataclasses.replace(diagnostic, severity=severity) if severity is not None else diagnostic


def lower_configured(source: str | bytes, path: str, settings: FileSettings) -> LowerResult:
    """`pypto.api.lower_source` under `settings`: its backend, rules, severities and the
    text's suppression comments."""
    return lower_source(
        source, path, backend=settings.backend, reporting=lambda text: ConfiguredReporting(text, settings)
    )


@dataclass
class Lowered(FileAnalysis):
    """What a worker made of one file: the bytes it read and the lowering."""

    data: bytes = b""
    result: LowerResult = field(default_factory=lambda: LowerResult(""))
    nothing_lowered: bool = False  # no loop was lowered, and no finding of the lowering says why


def with_check_findings(workspace: Workspace, data: bytes, path: str, result: LowerResult) -> LowerResult:
    """A file in which nothing was lowered (TileLang code only, say) gets what `check` finds in
    it as well, so that `lower` is never quiet about a file's errors (a TL101, say)."""
    seen = {(d.code, d.span) for d in result.diagnostics}
    found = [d for d in workspace.check_text(data, path).diagnostics if (d.code, d.span) not in seen]
    return dataclasses.replace(result, diagnostics=[*result.diagnostics, *found])


def lower_files(workspace: Workspace, paths: Sequence[str]) -> list[FileAnalysis]:
    """Lower each file in a crash-isolated worker within the per-file budget (as `check` checks
    files), in the order of `paths`: a `Lowered`, or the file's TL003/TL004/TL005 analysis."""
    sizes = [file_size(path) for path in paths]
    order = largest_first(sizes)

    def lower_one(path: str) -> FileAnalysis:
        if is_notebook(path):  # never its JSON echoed as if it were the lowered source
            message = "Cannot read file: it is a notebook; `tilecheck lower` lowers Python files"
            return FileAnalysis(path, [meta.at_start(Problem.UNREADABLE_FILE, path, message)])
        data, failure = read_source(path)
        if failure is not None or data is None:
            return FileAnalysis(path, [failure] if failure is not None else [])
        result = workspace.lower_text(data, path)
        unchanged = not result.changed and not result.blocked and result.original is not None
        quiet = unchanged and not result.diagnostics  # no loop was lowered, and none said why not
        if unchanged:
            result = with_check_findings(workspace, data, path, result)
        return Lowered(path, data=data, result=result, nothing_lowered=quiet)

    done = run_isolated(
        [paths[index] for index in order],
        lower_one,
        str,
        jobs=worker_count(None, sizes),
        budget=workspace.budget(),
    )
    results = dict(zip(order, done, strict=True))
    return [results[index] for index in range(len(paths))]
