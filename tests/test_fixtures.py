"""Every fixture kernel gets exactly the diagnostics written in its `# expect:` comments."""

import pytest

from tests.fixture_expectations import FIXTURES, expectations
from tilecheck.engine import check_file
from tilecheck.types import Grade

LOOP_FIXTURES = sorted(
    path
    for folder in ("frontend", "nonrules", "examples", "rules")
    for path in (FIXTURES / folder).glob("*.py")
)


@pytest.mark.parametrize("path", LOOP_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture(path):
    expected = expectations(path.read_text())
    result = check_file(str(path))
    found = {(d.span.line, d.span.column + 1, d.code) for d in result.diagnostics}
    assert sorted(found) == sorted(expected)


@pytest.mark.parametrize("path", sorted((FIXTURES / "nonrules").glob("*.py")), ids=lambda p: p.name)
def test_non_rules_stay_clean(path):
    # Clean: nothing that fails a run. Optimization notes (e.g. TL303, TileLang's own
    # "lowered as a serial loop" warning) are allowed; test_fixture pins them exactly.
    failing = [d for d in check_file(str(path)).diagnostics if d.grade is not Grade.OPTIMIZATION]
    assert failing == []


def test_every_rule_has_a_violating_and_a_clean_fixture():
    codes = {code for path in LOOP_FIXTURES for _, _, code in expectations(path.read_text())}
    assert {"TL101", "TL102", "TL103", "TL104", "TL105"} <= codes
