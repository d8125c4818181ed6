"""Tile-ness of unannotated results, inferred as the DSL dispatches (issue 10 §5), and TL492."""

from __future__ import annotations

import pytest

from tests.pypto.helpers import lower_notes
from tilecheck.pypto import lower_source

_HEADER = "import pypto.language as pl\n\n\n@pl.function\ndef f(a: pl.Tensor, w: pl.Tensor, x, t0: pl.Tile[[16, 16], pl.FP32]):\n"


def _tag(pair: str) -> str:
    return f'attrs={{"pipeline_membership": "{pair}"}}'


def _lowered(body: str) -> str:
    source = _HEADER + body
    for templates in (True, False):  # the template path and the full rewrite agree
        result = lower_source(source, "k.py", clone_templates=templates)
        assert result.changed
    assert lower_source(source, "k.py").source == result.source
    return result.source[len(_HEADER) :]


def test_a_load_and_a_unified_op_on_it_are_tiles():
    body = "    for i in pl.pipeline(0, 2, 1, stage=2):\n        t = pl.load(a, [i * 16, 0], [16, 16])\n        u = pl.add(t, t)\n"
    assert _lowered(body) == (
        "    for i in pl.pipeline(0, 2, 2, stage=1):\n"
        f"        t = pl.load(a, [i * 16, 0], [16, 16], {_tag('0:0')})\n"
        f"        u = pl.add(t, t, {_tag('0:0')})\n"
        f"        t_1 = pl.load(a, [(i + 1) * 16, 0], [16, 16], {_tag('0:1')})\n"
        f"        u_1 = pl.add(t_1, t_1, {_tag('0:1')})\n"
    )
    assert lower_notes(_HEADER + body) == []


@pytest.mark.parametrize(
    ("statement", "tagged"),
    [
        ("u = pl.add(t0, t0)", True),  # a parameter annotated pl.Tile
        ("u = pl.add(w, w)", False),  # a pl.Tensor parameter: a tensor op
        ("u = pl.add(w[0:16, :], w)", False),  # not a name: PyPTO decides, tilecheck does not tag
        ("u = pl.matmul(t0, t0)", False),  # a tile matmul lives in Acc: never tagged
        ("u = pl.tile.add(x, x)", True),  # a tile op by name
    ],
)
def test_operands_decide(statement, tagged):
    body = f"    for i in pl.pipeline(0, 2, 1, stage=2):\n        {statement}\n"
    assert ("pipeline_membership" in _lowered(body)) is tagged


def test_a_slice_of_a_tensor_is_a_tensor():
    body = "    for i in pl.pipeline(0, 2, 1, stage=2):\n        ws = w[i * 16 : (i + 1) * 16, :]\n        u = pl.add(ws, ws)\n"
    assert "pipeline_membership" not in _lowered(body)
    assert lower_notes(_HEADER + body) == []


def test_an_iter_arg_seeded_by_a_tile_is_a_tile():
    body = (
        "    s = pl.load(a, [0, 0], [16, 16])\n"
        "    for i, (acc,) in pl.pipeline(0, 2, 1, stage=2, init_values=(s,)):\n"
        "        nxt = pl.add(acc, acc)\n        r = pl.yield_(nxt)\n"
    )
    lowered = _lowered(body)
    assert f"nxt = pl.add(acc, acc, {_tag('0:0')})" in lowered
    assert f"nxt_1 = pl.add(nxt, nxt, {_tag('0:1')})" in lowered


def test_an_operand_of_unknown_type_leaves_the_result_untagged_with_a_note():
    body = "    for i in pl.pipeline(0, 2, 1, stage=2):\n        u = pl.add(x, x)\n        v = pl.mul(u, x)\n"
    assert "pipeline_membership" not in _lowered(body)
    message = (
        "`{}` is left without a pipeline_membership tag: whether pl.{}() returns a tile here depends "
        "on the type of its first operand, which tilecheck cannot read"
    )
    assert lower_notes(_HEADER + body) == [
        ("TL492", 7, 9, message.format("u", "add")),
        ("TL492", 8, 9, message.format("v", "mul")),
    ]
