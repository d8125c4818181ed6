"""Rules own their codes: outside `rules/`, tilecheck's code names a rule by a typed key the rule
declares (`REPORTS`) or by the rule class, never by a code string."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tilecheck.core.meta import Problem
from tilecheck.core.registry import builtin_rules, rule_reporting
from tilecheck.pypto.problems import PyptoProblem

PACKAGE = Path(__file__).resolve().parent.parent / "tilecheck"
CODE = re.compile(r"\bTL\d{3}\b")
# Syntax a message shows its user, with an example code (not a contract with any rule).
EXAMPLES = {
    ("cli/rule.py", "which rule? (`tilecheck rule TL101`, or `tilecheck rule --all`)"),
    ("lint/directives.py", "[TL101]`"),
}


def _docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_no_code_literal_outside_the_rules():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        relative = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and CODE.search(node.value)
                and (relative, node.value) not in EXAMPLES
            ):
                found.append(f"{relative}:{node.lineno}: {node.value!r}")
    assert found == []


def test_every_key_has_exactly_one_built_in_rule():
    reporters = [rule for rule in builtin_rules() if rule.REPORTS is not None]
    keys = [rule.REPORTS for rule in reporters]
    assert len(keys) == len(set(keys))
    for key in [*Problem, *PyptoProblem]:
        assert rule_reporting(key).REPORTS is key
    assert {rule.CODE for rule in builtin_rules() if rule.MODEL == "pypto"} == {
        rule_reporting(key).CODE for key in PyptoProblem
    }


def test_built_in_rules_are_known_by_the_registry_not_by_module_name():
    from tilecheck.core.registry import is_builtin
    from tilecheck.core.rule import Rule
    from tilecheck.core.types import Grade

    class Impostor(Rule):
        CODE = "XX001"
        NAME = "impostor"
        GRADE = Grade.SEMANTIC

    Impostor.__module__ = "tilecheck.rules.tilelang.impostor"
    assert not is_builtin(Impostor)
    assert all(is_builtin(rule) for rule in builtin_rules())
