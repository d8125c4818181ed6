"""Fixtures under every shipped backend profile and with no backend (issue 4).

Each fixture's `# expect:` comments hold everywhere; `# expect[profiles]:` comments hold only
under the listed profiles (`none` = no backend). The boundary matrix of nested pipelines
(fixtures/backends/a_* .. e_*) and the non-rules (fixtures/nonrules) are covered here, as are
the example kernels.
"""

from __future__ import annotations

import pytest

from tests.fixture_expectations import FIXTURES, applies, expectations, file_expectations
from tilecheck.backends import get_profile, load_profiles, names
from tilecheck.core.types import Grade
from tilecheck.lint.engine import check_file, check_source

PROFILES = [None, *names()]
FOLDERS = ("backends", "nonrules", "examples")  # frontend/ fixtures run without a backend only
PATHS = sorted(path for folder in FOLDERS for path in (FIXTURES / folder).glob("*.py"))
CASES = [(path, profile) for path in PATHS for profile in PROFILES]


def _found(result) -> list[tuple[int, int, str]]:
    return sorted((d.span.line, d.span.column + 1, d.code) for d in result.diagnostics)


@pytest.mark.parametrize(
    ("path", "profile"), CASES, ids=[f"{p.parent.name}/{p.name}@{b or 'none'}" for p, b in CASES]
)
def test_fixture_under_profile(path, profile):
    backend = get_profile(profile) if profile is not None else None
    result = check_file(str(path), backend=backend)
    assert _found(result) == sorted(file_expectations(path, profile))


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p or "none")
@pytest.mark.parametrize("path", sorted((FIXTURES / "nonrules").glob("*.py")), ids=lambda p: p.name)
def test_non_rules_are_never_semantic_errors(path, profile):
    """A non-rule is never reported as invalid TileLang; at most a backend contract or a note."""
    backend = get_profile(profile) if profile is not None else None
    diagnostics = check_file(str(path), backend=backend).diagnostics
    assert [d for d in diagnostics if d.grade is Grade.SEMANTIC] == []
    if profile is None:
        assert [d for d in diagnostics if d.grade is not Grade.OPTIMIZATION] == []


def test_every_profile_is_exercised_by_some_profile_specific_expectation():
    texts = [path.read_text() for path in (FIXTURES / "backends").glob("*.py")]
    for profile in names():
        assert any(expectations(text, profile) != expectations(text, None) for text in texts), profile


def test_applies():
    assert applies(None, None) and applies(None, "cpu")
    assert applies("cpu,hip-gfx942", "cpu") and not applies("cpu", "cuda-sm80")
    assert applies("cuda-*", "cuda-sm90") and not applies("cuda-*", None)
    assert applies("none", None) and not applies("none", "cpu")
    assert applies("all", "ascend") and not applies("all", None)


NESTED = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for ko in T.Pipelined(4, num_stages=3):
            for ki in T.Pipelined(4, order=[0, 1], stage=[0, 1]):
                A[ko, ki] = 0
                A[ki, ko] = 1
"""


def test_a_user_profile_with_hierarchical_manual_schedules_accepts_everything():
    """(a) in full: a backend that plans nested num_stages *and* manual schedules accepts both."""
    profile = load_profiles({"npu": {"base": "ascend", "manual_schedule": "planned"}})["npu"]
    assert check_source(NESTED, "<nested>", backend=profile).diagnostics == []


def test_b_overriding_a_shipped_profile_changes_the_verdict():
    codes = [d.code for d in check_source(NESTED, "<nested>", backend=get_profile("cuda-sm80")).diagnostics]
    assert codes == ["TL201"]
    relaxed = get_profile("cuda-sm80", {"cuda-sm80": {"hierarchical_pipelines": True}})
    assert check_source(NESTED, "<nested>", backend=relaxed).diagnostics == []


def test_b_message_names_backend_and_outer_loop():
    (diagnostic,) = check_source(NESTED, "<nested>", backend=get_profile("webgpu")).diagnostics
    assert diagnostic.message.startswith("Backend webgpu does not support nested software pipelines")
    assert "the pipelined loop at line 7 (`T.Pipelined(4, num_stages=3)`, num_stages=3)" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.column + 1) == (8, 23)
    assert diagnostic.grade is Grade.CONTRACT


def test_c_no_backend_never_reports_nested_pipelines():
    assert check_source(NESTED, "<nested>").diagnostics == []
    assert check_source(NESTED, "<nested>", backend=None).diagnostics == []


def test_backend_may_be_given_by_name():
    codes = [d.code for d in check_source(NESTED, "<nested>", backend="metal").diagnostics]
    assert codes == ["TL201"]


def test_every_issue4_rule_fires_in_some_fixture():
    from tilecheck.core.registry import builtin_rules

    wanted = {rule.CODE for rule in builtin_rules() if rule.CODE[:3] in ("TL2", "TL3")}
    found = {
        code for path in PATHS for profile in PROFILES for _, _, code in file_expectations(path, profile)
    }
    assert wanted <= found, sorted(wanted - found)
