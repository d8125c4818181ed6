"""Run a rule's VALID and INVALID examples as tests (for built-in and third-party rules).

import pytest
from tilecheck.testing import example_cases

@pytest.mark.parametrize("case", example_cases([MyRule]))
def test_examples(case):
    case.run()
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tilecheck.engine import check_source
from tilecheck.rule import Invalid, Rule, Valid


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
        result = check_source(self.example.code, f"<{self.id}>", [self.rule], backend=self.example.backend)
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
            from tilecheck.fixes import apply_fixes

            fixed = apply_fixes(self.example.code, [d.fix for d in found if d.fix is not None])
            assert fixed == self.example.fixed, f"{self.id}: fix produced\n{fixed}"


def example_cases(rules: Iterable[type[Rule]]) -> list[ExampleCase]:
    cases: list[ExampleCase] = []
    for rule in rules:
        cases += [ExampleCase(rule, example, i) for i, example in enumerate(rule.VALID)]
        cases += [ExampleCase(rule, example, i) for i, example in enumerate(rule.INVALID)]
    return cases
