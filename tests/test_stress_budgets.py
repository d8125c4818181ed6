"""`make stress-budgets` (run by `.ci/run` after `make test`) must cover every test module that sets
a time or memory budget: those are the tests a slow or loaded machine could break."""

from __future__ import annotations

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS_A_BUDGET = re.compile(r"per-file-timeout|per_file_timeout|per-file-memory|per_file_memory|Budget\(")


def _listed() -> list[str]:
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as handle:
        text = handle.read().replace("\\\n", " ")
    match = re.search(r"^LOAD_SENSITIVE := (.*)$", text, re.MULTILINE)
    assert match is not None
    return match.group(1).split()


def _setting_a_budget() -> list[str]:
    found = []
    for directory, _, names in os.walk(os.path.join(ROOT, "tests")):
        for name in names:
            if name.startswith("test_") and name.endswith(".py") and name != "test_stress_budgets.py":
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    if SETS_A_BUDGET.search(handle.read()):
                        found.append(os.path.relpath(path, ROOT).replace(os.sep, "/"))
    return sorted(found)


def test_every_module_that_sets_a_budget_runs_under_load_in_ci():
    listed = _listed()
    assert sorted(set(_setting_a_budget()) - set(listed)) == []
    assert [path for path in listed if not os.path.isfile(os.path.join(ROOT, path))] == []


def test_ci_runs_them_under_load_after_the_suite():
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as handle:
        lines = [line.strip() for line in handle if line.strip() and not line.lstrip().startswith("#")]
    assert lines[-2:] == ["make test", "make stress-budgets"]
