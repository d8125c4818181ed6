"""Shared value types: grades, severities, source spans, fixes and diagnostics.

Pure data, no I/O. Lines are 1-based; columns are 0-based code-point offsets (libcst's
convention). Output formats convert columns to 1-based at the edge.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Grade(str, enum.Enum):
    """How a finding relates to legality (TileLang's three kinds of rule)."""

    SEMANTIC = "semantic"  # invalid for every lowering
    CONTRACT = "contract"  # the current lowering rejects it
    OPTIMIZATION = "optimization"  # an optimization will not apply; never an error
    META = "meta"  # about tilecheck itself: bad input, suppressions


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Span:
    """A source range: 1-based lines, 0-based code-point columns, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int) -> Span:
        return cls(line, column, line, column)


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text in `span` by `replacement`."""

    span: Span
    replacement: str


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    safe: bool = True


@dataclass(frozen=True, slots=True)
class Related:
    """A secondary location of a diagnostic: the enclosing loop, a macro definition, ...

    `path` is None for the diagnostic's own file (a macro from another module names its file).
    """

    span: Span
    message: str
    path: str | None = None
    cell: NotebookCell | None = None  # in a notebook: the code cell the span is in


@dataclass(frozen=True, slots=True)
class NotebookCell:
    """Where a span of a notebook's Python text (its code cells joined) lies in the notebook:
    the cell's number (1-based, counting every cell, as Jupyter and ruff show it) and the line
    of the Python text its first line is. Spans stay in the Python text (fixes and suppressions
    work there); only what is shown to a user is counted from the cell."""

    number: int
    first_line: int

    def line(self, line: int) -> int:
        return line - self.first_line + 1


@dataclass(frozen=True, slots=True)
class Diagnostic:
    path: str
    span: Span
    code: str
    rule: str
    grade: Grade
    severity: Severity
    message: str
    help: str | None = None
    fix: Fix | None = None
    notes: tuple[str, ...] = field(default=())
    related: tuple[Related, ...] = field(default=())
    # (code, span) of the finding whose legal rewrite removes this one: reported as its note.
    caused_by: tuple[str, Span] | None = None
    cell: NotebookCell | None = None  # in a notebook: the code cell the span is in
    # Machine-readable facts of the finding, (key, value) pairs: e.g. TL501's byte counts.
    data: tuple[tuple[str, int | str], ...] = field(default=())

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.span.line, self.span.column, self.code, self.message)
