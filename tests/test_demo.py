"""The demo kernels (`make demo`) read like a kernel author's code; their expectations are sidecars."""

from __future__ import annotations

import pytest

from tests.fixture_expectations import FIXTURES, file_expectations, sidecar_expectations

DEMO = sorted((FIXTURES / "examples").glob("*.py"))


@pytest.mark.parametrize("path", DEMO, ids=lambda p: p.name)
def test_demo_kernels_carry_no_test_annotations(path):
    assert "expect" not in path.read_text()
    assert path.with_suffix(".expect").exists()


def test_sidecar_expectations_hold_per_backend():
    softmax = FIXTURES / "examples" / "softmax_mistakes.py"
    assert sorted(file_expectations(softmax)) == [
        (21, 17, "TL104"),
        (22, 26, "TL101"),
        (23, 47, "TL104"),
        (26, 30, "TL101"),
        (29, 17, "TL103"),
        (31, 26, "TL102"),
        (32, 21, "TL105"),
    ]
    gemm = FIXTURES / "examples" / "gemm.py"
    assert file_expectations(gemm) == set()
    assert file_expectations(gemm, "cpu") == {(20, 23, "TL301")}


def test_a_sidecar_that_no_longer_matches_its_kernel_fails_loudly():
    source = "x = 1\ny = 2\n"
    assert sidecar_expectations("2: expect: TL101:1  <-  y = 2\n", source) == {(2, 1, "TL101")}
    with pytest.raises(ValueError, match="line 1 of the kernel is not `y = 2`"):
        sidecar_expectations("1: expect: TL101:1  <-  y = 2\n", source)
    with pytest.raises(ValueError, match="expected `LINE: expect: CODE:COLUMN  <-  source`"):
        sidecar_expectations("2 TL101:1\n", source)
