"""The PyPTO rule classes are the one source of each code's name, grade, message, help and docs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.pypto.helpers import program
from tilecheck.core.registry import builtin_rules
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade
from tilecheck.lint.engine import check_source
from tilecheck.lint.testing import documentation_problems
from tilecheck.pypto import lower_source
from tilecheck.pypto.findings import pypto_rule
from tilecheck.pypto.rulebase import PyptoRule

PYPTO_RULES = {rule.CODE: rule for rule in builtin_rules() if issubclass(rule, PyptoRule)}


@pytest.mark.parametrize(
    "summary",
    [
        "Mismatch:.",
        "Internal error: loop body must yield, got.",
        "LowerPipelineLoops: step must be a compile-time integer constant, got.",
        "stage= is only supported on pl.pipeline(), not pl..",
        "ForStmt in function.",
    ],
)
def test_documentation_problems_rejects_cut_down_message_templates(summary):
    class Cut(Rule):
        __doc__ = f"{summary}\n\n## What it does\nx\n## Why is this bad?\nx\n## Example\nx\n## Use instead\nx\n## Backends\nx\n"
        CODE = "XX002"
        NAME = "cut"
        GRADE = Grade.META

    problems = documentation_problems(Cut)
    assert problems and all(problem.startswith("XX002 has a summary ") for problem in problems)


def test_every_pypto_code_is_a_documented_rule():
    assert sorted(PYPTO_RULES) == [f"TL{n}" for n in range(401, 424)] + ["TL490", "TL491", "TL492"]
    for rule in PYPTO_RULES.values():
        assert documentation_problems(rule) == [], rule.CODE
        assert rule.REPORTS is not None and pypto_rule(rule.REPORTS) is rule
    assert PYPTO_RULES["TL412"].summary() == "A loop's iter_args and `init_values` differ in number."


def test_checklists_answer_each_rule_on_its_own():
    for rule in PYPTO_RULES.values():
        if rule.CHECKLIST is None:
            assert rule.GRADE is Grade.META, rule.CODE
            continue
        assert rule.CHECKLIST.smallest_invalid != rule.CHECKLIST.closest_valid, rule.CODE
        assert rule.CHECKLIST.rewrite != rule.HELP, rule.CODE


def test_a_problem_without_a_rule_is_a_bug():
    with pytest.raises(KeyError):
        pypto_rule("TL104")  # type: ignore[arg-type]  # a code is not a problem key


def test_check_and_lower_give_the_same_tailored_help():
    source = program("for i in pl.pipeline(8, stage=2, foo=1):\n    x = i\n")
    [checked] = [d for d in check_source(source, "k.py").diagnostics if d.code == "TL405"]
    [lowered] = lower_source(source, "k.py").diagnostics
    assert checked == lowered
    assert checked.help == "Supported keywords for pl.pipeline(): init_values, stage, attrs"
    assert (checked.span.line, checked.span.column + 1) == (6, 38)


@pytest.mark.parametrize(
    ("code", "name", "severity"),
    [
        ("TL490", "pypto-pipeline-bounds-unresolved", "info"),
        ("TL491", "pypto-pipeline-not-lowered", "warning"),
    ],
)
def test_lower_diagnostics_are_documented_rules(code, name, severity):
    rule = PYPTO_RULES[code]
    assert (rule.NAME, rule.GRADE, rule.severity().value) == (name, Grade.META, severity)
    completed = subprocess.run(
        [sys.executable, "-m", "tilecheck", "rule", code], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith(f"# {name} ({code})\n")
