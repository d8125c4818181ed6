"""Suppression comments in files with old-Mac (`\\r` alone) and mixed line endings: CPython breaks
lines at `\\r\\n`, `\\r` and `\\n`, and so do the diagnostics; a suppression must be read on the
same line numbers, and `--add-ignore` must write at the diagnostic's line, keeping the endings."""

from __future__ import annotations

import json

import pytest

from tests.support import run
from tilecheck.lint.baseline import add_ignores
from tilecheck.lint.directives import scan_comments
from tilecheck.lint.engine import check_source

LINES = [
    "import tilelang.language as T",
    "",
    "@T.prim_func",
    'def main(A: T.Tensor((64,), "float32")):',
    "    with T.Kernel(1, threads=128) as bx:",
    '        loc = T.alloc_local((64,), "float32")  # tilecheck: ignore[TL101]',  # unused: TL901
    "        for i in T.Parallel(64):",
    "            loc[i] = A[i]  # tilecheck: ignore[TL104]",  # used
    "        for i in T.Parallel(64):",
    "            # noqa: TL104",  # own line: covers line 11
    "            loc[i] = A[i]",
    "        for i in T.Parallel(64):",
    "            loc[i] = A[i]",  # not suppressed: TL104 at 13:13
]
EXPECTED = [(6, 48, "TL901"), (13, 13, "TL104")]


def found(source: str) -> list[tuple[int, int, str]]:
    return [(d.span.line, d.span.column + 1, d.code) for d in check_source(source, "k.py").diagnostics]


def mixed(lines: list[str]) -> str:
    """Each line ends in `\\n`, `\\r\\n` or `\\r` in turn."""
    endings = ("\n", "\r\n", "\r")
    return "".join(line + endings[number % 3] for number, line in enumerate(lines))


@pytest.mark.parametrize(
    "source",
    ["\n".join(LINES) + "\n", "\r".join(LINES) + "\r", "\r".join(LINES), mixed(LINES)],
    ids=["lf", "cr", "cr-no-final-newline", "mixed"],
)
def test_suppressions_follow_cpythons_line_breaks(source):
    assert found(source) == EXPECTED
    comments = [(c.line, c.column, c.own_line, c.first, c.last) for c in scan_comments(source)]
    assert comments == [(6, 47, False, 6, 6), (8, 27, False, 8, 8), (10, 12, True, 11, 11)]


def test_a_disable_enable_range_in_a_cr_only_file():
    lines = [
        *LINES[:6],
        "        # tilecheck: disable[TL104]",
        *LINES[6:],
        "        # tilecheck: enable[TL104]",
    ]
    assert found("\r".join(lines) + "\r") == [(6, 48, "TL901")]


def test_the_reviewers_cr_only_file_from_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = "\r".join([*LINES[:5], '        loc = T.alloc_local((64,), "float32")', *LINES[6:8]]) + "\r"
    (tmp_path / "cr_small.py").write_bytes(source.encode())
    outcome = run(capsys, "cr_small.py", "--isolated", "--no-cache", "--output-format", "json")
    assert (outcome.status, json.loads(outcome.out)) == (0, [])


def test_add_ignore_in_a_cr_only_file_writes_at_the_line_and_keeps_cr(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lines = [
        *LINES[:5],
        '        loc = T.alloc_local((64,), "float32")',
        "        for i in T.Parallel(64):",
        "            loc[i] = (A[i] +",
        "                      A[i])",
        "        for i in T.Parallel(64):",
        '            loc[i] = """x',  # a string spanning two lines: the comment goes after it
        '"""',
    ]
    (tmp_path / "k.py").write_bytes(("\r".join(lines) + "\r").encode())
    outcome = run(capsys, "k.py", "--isolated", "--no-cache", "--add-ignore=legacy")
    assert (outcome.status, outcome.err) == (0, "Added 2 suppression comments.\n")
    lines[7] += "  # tilecheck: ignore[TL104] legacy"
    lines[11] += "  # tilecheck: ignore[TL104] legacy"
    assert (tmp_path / "k.py").read_bytes() == ("\r".join(lines) + "\r").encode()
    again = run(capsys, "k.py", "--isolated", "--no-cache", "--output-format", "concise")
    assert (again.status, again.out) == (0, "All checks passed!\n")


def test_add_ignores_in_a_mixed_file_keeps_each_lines_ending():
    lines = [
        *LINES[:5],
        '        loc = T.alloc_local((64,), "float32")',
        *LINES[6:7],
        "            loc[i] = A[i]",
    ]
    source = mixed(lines)
    text, count = add_ignores(source, check_source(source, "k.py").diagnostics)
    lines[7] += "  # tilecheck: ignore[TL104]"
    assert (count, text) == (1, mixed(lines))
    assert found(text) == []


def test_fixing_an_unused_suppression_in_a_cr_only_file_removes_just_it():
    from tilecheck.lint.fixes import fix_text

    lines = [*LINES[:9], "            # tilecheck: ignore[TL101]", "            loc[i] = A[i]  # noqa: TL104"]
    source = "\r".join(lines) + "\r"
    assert found(source) == [(6, 48, "TL901"), (10, 13, "TL901")]
    outcome = fix_text(source, lambda text: check_source(text, "k.py"))
    del lines[9]
    lines[5] = '        loc = T.alloc_local((64,), "float32")'
    assert outcome.text == "\r".join(lines) + "\r"
    assert outcome.result.diagnostics == []
