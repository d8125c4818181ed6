"""The cases `make fuzz` runs: a seed text (a fixture or a PyPTO program) mutated one to three
times by hypothesis. Apart from `fuzz` (which writes and runs the cases, and judges them) so
that adding a mutation touches only this file.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable

from hypothesis import strategies as st

LOOPS = [
    "T.Parallel", "T.serial", "T.Pipelined", "T.unroll", "T.vectorized", "T.Persistent", "range",
    "pl.range", "pl.pipeline", "pl.unroll", "pl.parallel",
]  # fmt: skip
_LOOP = re.compile("|".join(re.escape(loop) for loop in sorted(LOOPS, key=len, reverse=True)))
_TOKEN = re.compile(r"\w+|\s+|.", re.DOTALL)
DEPTHS = [50, 150, 199, 201, 300, 1000, 1300, 2000, 9000]


# -- mutations: each takes hypothesis's `draw` and the case's text ---------------------------------


def delete_tokens(draw: st.DrawFn, text: str) -> str:
    tokens = _TOKEN.findall(text)
    if not tokens:
        return text
    start = draw(st.integers(0, len(tokens) - 1))
    return "".join(tokens[:start] + tokens[start + draw(st.integers(1, 3)) :])


def duplicate_tokens(draw: st.DrawFn, text: str) -> str:
    tokens = _TOKEN.findall(text)
    if not tokens:
        return text
    start = draw(st.integers(0, len(tokens) - 1))
    end = start + draw(st.integers(1, 4))
    return "".join(tokens[:end] + tokens[start:end] * draw(st.integers(1, 3)) + tokens[end:])


def flip_bytes(draw: st.DrawFn, text: str) -> str:
    data = bytearray(text.encode("utf-8", "surrogateescape"))
    for _ in range(draw(st.integers(1, 4))):
        if data:
            position = draw(st.integers(0, len(data) - 1))
            data[position] ^= 1 << draw(st.integers(0, 7))
    return data.decode("utf-8", "surrogateescape")


def truncate(draw: st.DrawFn, text: str) -> str:
    return text[: draw(st.integers(0, len(text)))]


def reindent(draw: st.DrawFn, text: str) -> str:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    index = draw(st.integers(0, len(lines) - 1))
    body = lines[index].lstrip(" \t")
    indent = draw(st.sampled_from(["", " ", "\t", "    ", "        ", " " * 13, "\t    "]))
    lines[index] = indent + body
    return "".join(lines)


def swap_loop(draw: st.DrawFn, text: str) -> str:
    sites = list(_LOOP.finditer(text))
    if not sites:
        return text
    site = draw(st.sampled_from(sites))
    return text[: site.start()] + draw(st.sampled_from(LOOPS)) + text[site.end() :]


def _nested(kind: str, depth: int) -> str:
    if kind == "parens":
        return "x = " + "(" * depth + "0" + ")" * depth
    if kind == "parens-per-line":
        return "x = " + "(\n" * depth + "0" + ")" * depth
    if kind == "lists":
        return "x = " + "[" * depth + "]" * depth
    if kind == "calls":
        return "x = " + "T.max(" * depth + "0" + ", 1)" * depth
    if kind == "not":
        return "x = " + "not " * depth + "y"
    if kind == "chain":
        return "x = y" + "()" * depth
    if kind == "sum":
        return "x = " + " + ".join(["1"] * depth)
    if kind == "pipelines":
        depth = min(depth, 12)
        return "".join(f"{'    ' * n}for i{n} in pl.pipeline(0, 64, 1, stage=8):\n" for n in range(depth)) + (
            "    " * depth + "t = pl.tile.load(a, [i0], [16])"
        )
    depth = min(depth, 120)  # nested T.Parallel loops: the indentation limit is 100
    return (
        "".join(f"{'    ' * n}for i{n} in T.Parallel(4):\n" for n in range(depth))
        + "    " * depth
        + "B[i0] = 0"
    )


NESTINGS = ["parens", "parens-per-line", "lists", "calls", "not", "chain", "sum", "pipelines", "parallel"]
HOSTILE = [
    "x = " + "9" * 4301,
    "x = 10**4096 * 10**4096",
    "x = (10**4096)**4096",
    'x = "a" * 10**10',
    "x = [0] * 10**9",
    "x = 1 << 10**9",
    "x = [" + "0, " * 50000 + "]",
    "(pars): bool = True",
    "x = 1\x00",
    "for i in T.Parallel(10**20):\n    B[i] = 0",
    "for c in range(10**6):\n    B[c] = 0",
    "for i in pl.pipeline(0, 10**12, 1, stage=4):\n    t = pl.tile.load(a, [i], [16])",
    "for i in pl.pipeline(0, n, 1, stage=10**6):\n    t = pl.tile.load(a, [i], [16])",
    "@T.macro\ndef m(x):\n    m(x)\nm(1)",
    "def g():\n    return g()\ng()",
    "x: int = (y := 1)",
    "\ufeffx = 1",
    "# -*- coding: klingon -*-",
    "x = '\\N{LATIN SMALL LETTER A}' + '\udcff'",
    "lambda: (yield)",
]


def insert_statement(draw: st.DrawFn, text: str, statement: str) -> str:
    """`statement` before a random line, indented like it."""
    lines = text.splitlines(keepends=True) or [""]
    index = draw(st.integers(0, len(lines) - 1))
    indent = lines[index][: len(lines[index]) - len(lines[index].lstrip(" \t"))]
    block = textwrap.indent(statement, indent, lambda line: True) + "\n"
    return "".join(lines[:index]) + block + "".join(lines[index:])


def deep_nesting(draw: st.DrawFn, text: str) -> str:
    return insert_statement(
        draw, text, _nested(draw(st.sampled_from(NESTINGS)), draw(st.sampled_from(DEPTHS)))
    )


def hostile_construct(draw: st.DrawFn, text: str) -> str:
    return insert_statement(draw, text, draw(st.sampled_from(HOSTILE)))


# A mutation: the mutated text of a case, drawing its choices with hypothesis's `draw`.
Mutation = Callable[[st.DrawFn, str], str]
MUTATIONS: list[Mutation] = [
    delete_tokens, duplicate_tokens, flip_bytes, truncate, reindent, swap_loop, deep_nesting, hostile_construct,
]  # fmt: skip


def cases(sources: list[str]) -> st.SearchStrategy[bytes]:
    @st.composite
    def case(draw: st.DrawFn) -> bytes:
        text = draw(st.sampled_from(sources))
        for _ in range(draw(st.integers(1, 3))):
            text = draw(st.sampled_from(MUTATIONS))(draw, text)
        return text.encode("utf-8", "surrogateescape")

    return case()
