"""docs/rules.md is generated from the rule classes and must stay in sync with them."""

import pathlib

import pytest

from tilecheck.explain_rule import document, main
from tilecheck.registry import builtin_rules
from tilecheck.testing import documentation_problems

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def test_rules_md_is_in_sync():
    expected = document(builtin_rules())
    assert DOCS.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `python -m tilecheck.explain_rule docs/rules.md`"
    )


def test_every_rule_has_an_entry_and_an_anchor():
    text = DOCS.read_text(encoding="utf-8")
    for rule in builtin_rules():
        assert f"\n## {rule.NAME} ({rule.CODE})\n" in text
        assert (
            f"| [{rule.CODE}](#{rule.NAME}-{rule.CODE.lower()}) | {rule.NAME} | {rule.GRADE.value} |" in text
        )


@pytest.mark.parametrize("rule", builtin_rules(), ids=lambda rule: rule.CODE)
def test_built_in_rules_are_fully_documented(rule):
    assert documentation_problems(rule) == []


def test_generator_writes_the_file(tmp_path, capsys):
    target = tmp_path / "rules.md"
    assert main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == document(builtin_rules())
    assert main([]) == 0
    assert capsys.readouterr().out == document(builtin_rules())


def test_documentation_problems_names_what_is_missing():
    from tilecheck.rule import Rule
    from tilecheck.types import Grade

    class Bare(Rule):
        """Summary only.

        ## What it does
        Something.
        """

        CODE = "XX001"
        NAME = "bare"
        GRADE = Grade.SEMANTIC

    assert documentation_problems(Bare) == [
        "XX001 lacks the `## Why is this bad?` section",
        "XX001 lacks the `## Example` section",
        "XX001 lacks the `## Use instead` section",
        "XX001 lacks the `## Backends` section",
        "XX001 has a summary shorter than 24 characters: 'Summary only.'",
        "XX001 lacks the rule-design checklist (CHECKLIST)",
        "XX001 has no HELP line",
    ]
