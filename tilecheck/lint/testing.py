"""Run a rule's VALID and INVALID examples as tests (for built-in and third-party rules).

    import pytest
    from tilecheck.lint.testing import documentation_problems, example_cases

    @pytest.mark.parametrize("case", example_cases([MyRule]), ids=lambda case: case.id)
    def test_examples(case):
        case.run()

    def test_documentation():
        assert documentation_problems(MyRule) == []

An INVALID example must be reported exactly at its `at` positions (1-based line and column)
and nowhere else; with `fixed`, applying the reported fixes (unsafe ones too) must give it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tilecheck.core.registry import builtin_rules
from tilecheck.core.rule import DOC_SECTIONS, Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.lint.engine import check_source


@dataclass
class ExampleCase:
    rule: type[Rule]
    example: Valid | Invalid
    index: int

    @property
    def id(self) -> str:
        kind = "VALID" if isinstance(self.example, Valid) else "INVALID"
        return f"{self.rule.CODE}-{kind}-{self.index}"

    def run(self) -> None:
        rules: list[type[Rule]] = [self.rule]
        if self.rule.GRADE is Grade.META:  # suppression rules judge the other rules' findings
            rules = [*(r for r in builtin_rules() if r is not self.rule), self.rule]
        result = check_source(self.example.code, f"<{self.id}>", rules, backend=self.example.backend)
        found = [d for d in result.diagnostics if d.code == self.rule.CODE]
        others = [d for d in result.diagnostics if d.code != self.rule.CODE]
        assert not others, f"{self.id}: unexpected diagnostics {others}"
        positions = [(d.span.line, d.span.column + 1) for d in found]
        if isinstance(self.example, Valid):
            assert not found, f"{self.id}: expected no {self.rule.CODE}, got {positions}: {found[0].message}"
            return
        expected = sorted(self.example.at)
        assert sorted(positions) == expected, f"{self.id}: expected {expected}, got {positions}"
        if self.example.message is not None:
            assert self.example.message in found[0].message, (
                f"{self.id}: message {found[0].message!r} lacks {self.example.message!r}"
            )
        if self.example.fixed is not None:
            from tilecheck.lint.fixes import apply_fixes

            fixed = apply_fixes(self.example.code, [d.fix for d in found if d.fix is not None])
            assert fixed == self.example.fixed, f"{self.id}: fix produced\n{fixed}"


def example_cases(rules: Iterable[type[Rule]]) -> list[ExampleCase]:
    cases: list[ExampleCase] = []
    for rule in rules:
        cases += [ExampleCase(rule, example, i) for i, example in enumerate(rule.VALID)]
        cases += [ExampleCase(rule, example, i) for i, example in enumerate(rule.INVALID)]
    return cases


MIN_SUMMARY = 24  # the shortest built-in summary: "The file cannot be read."


def summary_problems(summary: str) -> list[str]:
    """What is wrong with a rule summary: too short, or a message template cut at a placeholder
    (`"Mismatch:."`, `"..., got."`, `"not pl.."`)."""
    problems = []
    if len(summary) < MIN_SUMMARY:
        problems.append(f"has a summary shorter than {MIN_SUMMARY} characters: {summary!r}")
    if summary.endswith((":.", " got.", "..")) and not summary.endswith("..."):
        problems.append(f"has a summary cut off where a message placeholder was: {summary!r}")
    return problems


def documentation_problems(rule: type[Rule]) -> list[str]:
    """What a rule's documentation lacks: doc sections, the summary, checklist answers, help."""
    problems = []
    sections = rule.sections()
    for heading in DOC_SECTIONS:
        if not sections.get(heading):
            problems.append(f"{rule.CODE} lacks the `## {heading}` section")
    summary = rule.summary()
    if not summary:
        problems.append(f"{rule.CODE} has no summary (the docstring's first line)")
    else:
        problems.extend(f"{rule.CODE} {problem}" for problem in summary_problems(summary))
    if rule.GRADE is not Grade.META:
        if not isinstance(rule.CHECKLIST, Checklist):
            problems.append(f"{rule.CODE} lacks the rule-design checklist (CHECKLIST)")
        else:
            for name, _, answer in rule.CHECKLIST.answers():
                if not answer.strip():
                    problems.append(f"{rule.CODE} has no answer for checklist item `{name}`")
        if not rule.HELP:
            problems.append(f"{rule.CODE} has no HELP line")
    return problems
