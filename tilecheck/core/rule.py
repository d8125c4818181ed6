"""The rule API: one class per rule, its docstring is its documentation, its examples are its tests.

A rule declares its identity (`CODE`, kebab-case `NAME`), its `GRADE`, the model it reads
(`MODEL`), and answers TileLang's ten rule-design questions in `CHECKLIST`: the design notes,
maintainers' material kept beside the rule's code and never rendered into what users read (the
rule page, `tilecheck rule`, hovers, SARIF help). `check(ctx)` reads the kernel model and calls
`ctx.report(...)`.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, ClassVar

from tilecheck.core.types import Grade, Severity

if TYPE_CHECKING:
    from tilecheck.lint.context import Context

DOC_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Backends")


@dataclass(frozen=True)
class Checklist:
    """TileLang's rule-design checklist (loop-rules.md), answered for one rule."""

    grade: str  # 1. semantic invalidity, implementation contract or optimization condition, and why
    shape: str  # 2. the exact IR shape that identifies the construct where the check runs
    smallest_invalid: str  # 3. the smallest invalid example
    closest_valid: str  # 4. the closest valid example
    siblings: str  # 5. do siblings differ from nested ancestors?
    neutral_wrappers: str  # 6. does a neutral wrapper (serial, unroll, if, SeqStmt) change the answer?
    generated_ir: str  # 7. does generated IR use the same shape; does it need an exemption?
    proof: str  # 8. can the checker prove the violation, or only fail to prove safety?
    first_pass: str  # 9. which pass first relies on the invariant?
    rewrite: str  # 10. the legal rewrite the diagnostic suggests

    QUESTIONS: ClassVar[dict[str, str]] = {
        "grade": "Semantic, contract or optimization?",
        "shape": "What IR shape identifies it?",
        "smallest_invalid": "Smallest invalid example",
        "closest_valid": "Closest valid example",
        "siblings": "Siblings versus nested ancestors",
        "neutral_wrappers": "Neutral wrappers",
        "generated_ir": "Generated IR",
        "proof": "Proven or unproven?",
        "first_pass": "First pass that relies on it",
        "rewrite": "Legal rewrite",
    }

    def answers(self) -> Iterator[tuple[str, str, str]]:
        for item in fields(self):
            yield item.name, self.QUESTIONS[item.name], getattr(self, item.name)


@dataclass(frozen=True)
class Valid:
    """Source that the rule must accept (under `backend`, when given)."""

    code: str
    backend: str | None = None


@dataclass(frozen=True)
class Invalid:
    """Source the rule must report at exactly `at`: (line, column) pairs, 1-based as shown to users.

    `fixed` is the source after applying the rule's fix (unsafe fixes included).
    """

    code: str
    at: tuple[tuple[int, int], ...]
    fixed: str | None = None
    backend: str | None = None
    message: str | None = None  # a substring the first message must contain


_SECTION = re.compile(r"^## (.+?)\s*$", re.MULTILINE)


class Rule:
    CODE: ClassVar[str]
    NAME: ClassVar[str]
    GRADE: ClassVar[Grade]
    SEVERITY: ClassVar[Severity | None] = None  # None: derived from the grade
    MODEL: ClassVar[str] = "tilelang"  # "tilelang", "pypto" or "none"
    # The typed key of what the rule reports when the engine or a shared analysis finds it
    # (`core.meta.Problem`, `pypto.problems.PyptoProblem`), rather than its own `check`.
    REPORTS: ClassVar[enum.Enum | None] = None
    HELP: ClassVar[str] = ""  # what to do, one line
    # The checker of TileLang's pre-lower semantic check (`tilelang.analysis`) whose rejection the
    # rule predicts: in a release without it the finding is not proven, so it is a note there.
    CHECKER: ClassVar[str | None] = None
    CHECKLIST: ClassVar[Checklist | None] = None
    VALID: ClassVar[list[Valid]] = []
    INVALID: ClassVar[list[Invalid]] = []

    def check(self, ctx: Context) -> None:
        """Report findings through `ctx.report`. Meta rules are reported by the engine."""

    # -- documentation ---------------------------------------------------------------

    @classmethod
    def severity(cls) -> Severity:
        if cls.SEVERITY is not None:
            return cls.SEVERITY
        return Severity.INFO if cls.GRADE is Grade.OPTIMIZATION else Severity.ERROR

    @classmethod
    def summary(cls) -> str:
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0].strip() if doc else ""

    @classmethod
    def sections(cls) -> dict[str, str]:
        """The docstring's `## Heading` sections, in order."""
        doc = _dedent(cls.__doc__ or "")
        parts = _SECTION.split(doc)
        return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}

    @classmethod
    def fixable(cls) -> bool:
        return any(case.fixed is not None for case in cls.INVALID)


def _dedent(text: str) -> str:
    lines = text.expandtabs().splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    margin = min(indents) if indents else 0
    return "\n".join([lines[0].strip(), *(line[margin:] for line in lines[1:])]) if lines else ""
