"""Which imports a file follows depends on how often it mentions each bound name
(`tilelang.project._mentions`): it must count exactly what listing every identifier counts."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from tilecheck.tilelang.project import _IDENTIFIER, _mentions

NAMES = ["T", "tl", "tilelang", "np", "T1", "_x", "é"]
PIECES = st.sampled_from([*NAMES, " ", ".", "_", "1", "é", "x", "\n", "# ", "'", "(", "T.", ".T"])


@given(st.lists(PIECES, max_size=40).map("".join), st.sets(st.sampled_from(NAMES)))
def test_mentions_count_what_every_identifier_counts(source, names):
    every = Counter(_IDENTIFIER.findall(source))
    assert _mentions(names, source) == Counter({name: every[name] for name in names if every[name]})


def test_a_name_inside_a_longer_name_or_after_a_dot_is_no_mention():
    assert _mentions({"T", "tl"}, "T.x; xT; T1; .T; tl.T; Té; (T)") == Counter({"T": 2, "tl": 1})
