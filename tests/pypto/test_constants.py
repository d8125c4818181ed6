"""Module constants PyPTO folds into loop bounds: single and tuple-unpacked assignments."""

from __future__ import annotations

import pytest

from tests.pypto.helpers import lower_notes
from tilecheck.pypto import lower_source

_KERNEL = (
    "import pypto.language as pl\n\n{constants}\n\n@pl.function\ndef f(a):\n"
    "    for i in pl.pipeline(0, {stop}, 1, stage=4):\n        x = pl.load(a, [i * 16], [16])\n"
)


def test_tuple_unpacked_constants_fold_like_single_assignments():
    unpacked = _KERNEL.format(constants="T, K, N, KC = 32, 4096, 128, 512\n", stop="K // KC")
    single = _KERNEL.format(constants="T = 32\nK = 4096\nN = 128\nKC = 512\n", stop="K // KC")
    result = lower_source(unpacked, "k.py")
    assert result.diagnostics == []  # static: no TL490
    assert "pl.pipeline(0, 8, 4, stage=1)" in result.source and "unroll_rem" not in result.source
    lowered_single = lower_source(single, "k.py").source
    assert result.source.split("@pl.function")[1] == lowered_single.split("@pl.function")[1]


@pytest.mark.parametrize(
    ("constants", "name"),
    [
        ("X, *Y = 8, 2, 3\n", "X"),  # a starred target: not a plain pairing
        ("X, Y = 8, 2, 3\n", "X"),  # lengths differ (a ValueError in Python)
        ("X, Y = pair\n", "X"),  # not a tuple display
        ("X, Y = 8, 2\nX = 4\n", "X"),  # assigned twice
        ("(X, Y), Z = 8, 2\n", "X"),  # the nested target has no tuple to pair with
    ],
)
def test_unpacking_that_is_not_a_plain_pairing_stays_unknown(constants, name):
    source = _KERNEL.format(constants=constants, stop="X")
    row = source.splitlines().index("    for i in pl.pipeline(0, X, 1, stage=4):") + 1
    assert lower_notes(source) == [
        ("TL490", row, 14, f"cannot resolve `{name}` statically; lowering this loop with dynamic bounds")
    ]


def test_nested_tuple_targets_pair_their_plain_names():
    source = _KERNEL.format(constants="(A, B), C = (1, 2), 8\n", stop="C")
    assert lower_notes(source) == []


def test_a_constants_module_libcsts_validation_refuses_is_still_read(tmp_path):
    """`else(` (LibCST issue #1061) made libcst's node validation raise a TypeError while the
    constants of an imported module were read: every PyPTO rule crashed (TL005). The constants
    module is parsed as the checked file is (`source.cst_parse`), and its constants still fold."""
    from tilecheck.app.workspace import Workspace

    (tmp_path / "sizes.py").write_text("K = 4096\nKC = 512\nodd = () if 0 else(lambda: ())\n")
    kernel = _KERNEL.format(constants="from sizes import K, KC\n", stop="K // KC")
    (tmp_path / "k.py").write_text(kernel)
    analysis = Workspace(cwd=str(tmp_path)).check_file(str(tmp_path / "k.py"))
    assert [(d.code, d.span.line, d.span.column) for d in analysis.diagnostics] == []
    lowered = lower_source(kernel, str(tmp_path / "k.py"))
    assert lowered.diagnostics == []  # K // KC folded to 8: no TL490
    assert "pl.pipeline(0, 8, 4, stage=1)" in lowered.source
