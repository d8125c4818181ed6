"""Every VALID and INVALID example of every built-in rule, and the rules' documentation."""

import re

import pytest

from tilecheck.core.registry import builtin_rules
from tilecheck.core.rule import DOC_SECTIONS, Checklist
from tilecheck.core.types import Grade
from tilecheck.lint.testing import example_cases

CASES = example_cases(builtin_rules())


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_example(case):
    case.run()


def test_every_loop_rule_has_examples():
    for rule in builtin_rules():
        if rule.GRADE is not Grade.META:
            assert rule.VALID and rule.INVALID, rule.CODE


@pytest.mark.parametrize("rule", builtin_rules(), ids=lambda rule: rule.CODE)
def test_documentation_is_complete(rule):
    sections = rule.sections()
    for heading in DOC_SECTIONS:
        assert sections.get(heading), f"{rule.CODE} lacks the `## {heading}` section"
    assert rule.summary(), rule.CODE
    assert re.fullmatch(r"TL\d{3}", rule.CODE)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.NAME)
    if rule.GRADE is not Grade.META:
        assert isinstance(rule.CHECKLIST, Checklist), f"{rule.CODE} lacks the rule-design checklist"
        for field, _, answer in rule.CHECKLIST.answers():
            assert answer.strip(), f"{rule.CODE} has no answer for checklist item `{field}`"
        assert rule.HELP, rule.CODE


@pytest.mark.parametrize("rule", builtin_rules(), ids=lambda rule: rule.CODE)
def test_module_class_and_name_agree(rule):
    group, module = rule.__module__.rsplit(".", 2)[-2:]
    prefix = "pypto-" if group == "pypto" else ""  # rules/pypto/zero_step.py: pypto-zero-step
    assert prefix + module.replace("_", "-") == rule.NAME
    camel = "".join(part.capitalize() for part in (prefix + module).replace("-", "_").split("_"))
    assert rule.__name__ in (camel, camel + "Rule")


def test_codes_and_names_are_unique():
    rules = builtin_rules()
    assert len({r.CODE for r in rules}) == len(rules)
    assert len({r.NAME for r in rules}) == len(rules)
