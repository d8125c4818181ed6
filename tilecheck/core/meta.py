"""The engine's own findings as typed keys: each meta rule declares the one it reports.

Unreadable or unparsable files, budgets, crashes and suppression comments are found by the
engine, not by a rule's check. The engine reports each under the built-in rule whose `REPORTS`
is its key, so that rule alone owns the code, name, grade and documentation.
"""

from __future__ import annotations

import enum

from tilecheck.core.catalogue import code_reporting, entry_reporting
from tilecheck.core.types import Diagnostic, Span


class Problem(enum.Enum):
    SYNTAX_ERROR = "syntax-error"
    ENCODING_ERROR = "encoding-error"
    UNREADABLE_FILE = "unreadable-file"
    TOO_COMPLEX = "too-complex"  # too deep, too large, or beyond the per-file budget
    INTERNAL_ERROR = "internal-error"  # a crash: of a rule, of the model, of a worker
    UNMODELED_KERNEL_CODE = "unmodeled-kernel-code"
    PARSER_LIMITATION = "parser-limitation"
    UNUSED_SUPPRESSION = "unused-suppression"
    UNKNOWN_SUPPRESSION_CODE = "unknown-suppression-code"
    UNMATCHED_SUPPRESSION = "unmatched-suppression"
    INVALID_SUPPRESSION = "invalid-suppression"


# A file that could not be read, parsed or analyzed: reported whatever the selection, always an error.
ALWAYS_REPORTED = frozenset(
    {
        Problem.SYNTAX_ERROR,
        Problem.ENCODING_ERROR,
        Problem.UNREADABLE_FILE,
        Problem.TOO_COMPLEX,
        Problem.INTERNAL_ERROR,
        Problem.PARSER_LIMITATION,
    }
)
# Findings about the file itself, which no suppression comment hides.
UNSUPPRESSIBLE = ALWAYS_REPORTED | {Problem.UNMODELED_KERNEL_CODE}
SUPPRESSION_PROBLEMS = (
    Problem.UNUSED_SUPPRESSION,
    Problem.UNKNOWN_SUPPRESSION_CODE,
    Problem.UNMATCHED_SUPPRESSION,
    Problem.INVALID_SUPPRESSION,
)


def code_of(problem: Problem) -> str:
    return code_reporting(problem)


def codes_of(problems: frozenset[Problem] | tuple[Problem, ...]) -> frozenset[str]:
    return frozenset(code_of(problem) for problem in problems)


def is_problem(diagnostic: Diagnostic, *problems: Problem) -> bool:
    """Whether `diagnostic` reports one of `problems`."""
    return any(diagnostic.code == code_of(problem) for problem in problems)


def diagnostic(problem: Problem, path: str, span: Span, message: str) -> Diagnostic:
    """A finding of the engine's own, under the rule that reports `problem`."""
    rule = entry_reporting(problem)  # its identity: the rule's module is not imported
    return Diagnostic(path, span, rule.CODE, rule.NAME, rule.GRADE, rule.SEVERITY, message)


def at_start(problem: Problem, path: str, message: str) -> Diagnostic:
    """`diagnostic` at the file's first line: for findings about the whole file."""
    return diagnostic(problem, path, Span.point(1, 0), message)
