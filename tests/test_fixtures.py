"""Every fixture kernel gets exactly the diagnostics written in its `# expect:` comments."""

import pytest

from tests.fixture_expectations import FIXTURES, file_expectations
from tilecheck.core.types import Grade
from tilecheck.lint.engine import check_file

LOOP_FIXTURES = sorted(
    path for folder in ("frontend", "nonrules", "examples") for path in (FIXTURES / folder).glob("*.py")
)


@pytest.mark.parametrize("path", LOOP_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture(path):
    expected = file_expectations(path)
    result = check_file(str(path))
    found = [(d.span.line, d.span.column + 1, d.code) for d in result.diagnostics]
    assert sorted(found) == sorted(expected)  # a list: a duplicated diagnostic fails too


@pytest.mark.parametrize("path", sorted((FIXTURES / "nonrules").glob("*.py")), ids=lambda p: p.name)
def test_non_rules_stay_clean(path):
    # Clean: nothing that fails a run. Optimization notes (e.g. TL303, TileLang's own
    # "lowered as a serial loop" warning) are allowed; test_fixture pins them exactly.
    failing = [d for d in check_file(str(path)).diagnostics if d.grade is not Grade.OPTIMIZATION]
    assert failing == []


def test_every_loop_rule_has_a_violating_fixture_and_clean_fixtures_exist():
    expected = {path: file_expectations(path) for path in LOOP_FIXTURES}
    codes = {code for found in expected.values() for _, _, code in found}
    assert {"TL101", "TL102", "TL103", "TL104", "TL105"} <= codes
    clean = [path for path, found in expected.items() if not found]
    assert len(clean) >= 5, "the nearest-legal kernels (non-rules among them) must stay in the suite"
