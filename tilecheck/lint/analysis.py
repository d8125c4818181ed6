"""What checking one file gave (`FileAnalysis`), apart from the engine that computes it: a
cached result is one of these, and reading it back must not import the engine's rule loop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecheck.core import meta
from tilecheck.core.meta import Problem
from tilecheck.core.types import Diagnostic
from tilecheck.lint.coverage import Coverage

if TYPE_CHECKING:
    import libcst as cst

    from tilecheck.lint.context import Context
    from tilecheck.tilelang.model import FileModel


@dataclass
class FileAnalysis:
    """Everything the engine learnt about one file, so no front end parses or models it again.

    `text` is the decoded source (None when the file could not be read or decoded), `module`
    its CST and `context` the rules' context (None when the file did not parse), whose
    `model` is the kernel model, built on first use.
    """

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    internal_error: bool = False  # a rule or the model crashed: exit code 2
    text: str | None = None
    module: cst.Module | None = None
    context: Context | None = None
    measured: Coverage | None = None  # the coverage of a detached result (measured before detaching)

    @property
    def model(self) -> FileModel | None:
        return self.context.model if self.context is not None else None

    @property
    def incomplete(self) -> bool:
        """Whether the file was too complex to analyze (within the budget, or at all)."""
        return any(meta.is_problem(d, Problem.TOO_COMPLEX) for d in self.diagnostics)

    @property
    def coverage(self) -> Coverage:
        """How many kernels and loops the model saw (`tilecheck.lint.coverage`)."""
        if self.context is not None and not self.incomplete:
            from tilecheck.lint.coverage import measure

            return measure(self.context)  # not when incomplete: the model would be rebuilt, and fail again
        return self.measured or Coverage()

    def detached(self) -> FileAnalysis:
        """Without the CST and the model: what crosses a process boundary cheaply (the
        coverage counts, measured from the model, go along)."""
        return FileAnalysis(
            self.path, self.diagnostics, self.internal_error, self.text, measured=self.coverage
        )
