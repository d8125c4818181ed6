"""Suppression comments: where they apply, what they cannot do, and the TL9xx diagnostics about them."""

import pytest

from tests.support import KERNEL, run, write
from tilecheck.core.registry import by_code
from tilecheck.lint.baseline import add_ignores
from tilecheck.lint.directives import scan_comments
from tilecheck.lint.engine import check_source

HEAD = KERNEL.split("        loc = ")[0]  # imports, kernel signature, `with T.Kernel(...)`: 6 lines
LOCAL = HEAD + '        loc = T.alloc_local((64,), "float32")\n        for i in T.Parallel(64):\n'  # 8 lines


def found(source, rules=None):
    result = check_source(source, "k.py", rules)
    return [(d.span.line, d.span.column + 1, d.code) for d in result.diagnostics]


def test_unsuppressed_baseline():
    assert found(LOCAL + "            loc[i] = A[i, 0]\n") == [(9, 13, "TL104")]


@pytest.mark.parametrize(
    "line",
    [
        "            loc[i] = A[i, 0]  # tilecheck: ignore[TL104]\n",
        "            loc[i] = A[i, 0]  # tilecheck: ignore[parallel-indexed-local]\n",
        "            loc[i] = A[i, 0]  # tilecheck:ignore[ tl104 ]  reason: legacy\n",
        "            loc[i] = A[i, 0]  # noqa: TL104\n",
        "            loc[i] = A[i, 0]  # NOQA:E501,TL104\n",
        "            loc[i] = A[i, 0]  # some words  # tilecheck: ignore[TL104]\n",
        "            # tilecheck: ignore[TL104]\n            loc[i] = A[i, 0]\n",
        "            # tilecheck: ignore[TL104]\n            # another comment\n\n            loc[i] = A[i, 0]\n",
    ],
)
def test_line_suppressions(line):
    assert found(LOCAL + line) == []


def test_partially_used_suppression_reports_the_unused_code():
    source = LOCAL + "            loc[i] = A[i, 0]  # tilecheck:ignore[ tl104 ,TL101]  reason: legacy\n"
    assert found(source) == [(9, 31, "TL901")]


def test_other_tools_noqa_is_left_alone():
    source = LOCAL + "            loc[i] = A[i, 0]  # noqa: E501\n"
    assert found(source) == [(9, 13, "TL104")]
    assert found(LOCAL + "            loc[i] = A[i, 0]  # noqa\n") == [(9, 13, "TL104")]  # no blanket ignore


def test_suppression_works_on_any_line_of_a_multiline_statement():
    body = "            loc[i] = T.max(\n                A[i, 0],\n                A[i, 1],\n            )"
    assert found(LOCAL + body + "\n") == [(9, 13, "TL104")]
    assert found(LOCAL + body + "  # tilecheck: ignore[TL104]\n") == []
    lines = body.split("\n")
    lines[1] += "  # tilecheck: ignore[TL104]"
    assert found(LOCAL + "\n".join(lines) + "\n") == []
    own_line = body.replace("A[i, 0],\n", "A[i, 0],\n                # tilecheck: ignore[TL104]\n")
    assert found(LOCAL + own_line + "\n") == []


def test_suppression_inside_a_multiline_subscript_reaches_the_access():
    source = (
        LOCAL + "            B[i, 0] = loc[\n                i  # tilecheck: ignore[TL104]\n            ]\n"
    )
    assert found(source) == []


def test_a_suppression_covers_only_its_logical_line():
    source = (
        LOCAL + "            loc[i] = A[i, 0]\n            B[i, 0] = A[i, 0]  # tilecheck: ignore[TL104]\n"
    )
    assert found(source) == [(9, 13, "TL104"), (10, 32, "TL901")]
    # own-line, two statements below: applies only to the next one
    source = (
        LOCAL
        + "            # tilecheck: ignore[TL104]\n            B[i, 0] = A[i, 0]\n            loc[i] = A[i, 0]\n"
    )
    assert found(source) == [(9, 13, "TL901"), (11, 13, "TL104")]


def test_a_suppression_in_a_string_is_not_a_comment():
    source = LOCAL + '            loc[i] = A[i, 0]\n        s = "# tilecheck: ignore[TL104]"\n'
    assert found(source) == [(9, 13, "TL104")]


def test_disable_enable_range():
    source = (
        HEAD
        + '        loc = T.alloc_local((64,), "float32")\n'
        + "        # tilecheck: disable[TL104]\n"
        + "        for i in T.Parallel(64):\n            loc[i] = A[i, 0]\n"
        + "        for i in T.Parallel(64):\n            B[i, 0] = loc[i]\n"
        + "        # tilecheck: enable[TL104]\n"
        + "        for i in T.Parallel(64):\n            loc[i] = A[i, 1]\n"
    )
    assert found(source) == [(15, 13, "TL104")]


def test_ranges_nest_per_code():
    source = (
        HEAD
        + '        loc = T.alloc_local((64,), "float32")\n'
        + "        # tilecheck: disable[TL104, TL101]\n"
        + "        for i in T.Parallel(64):\n            loc[i] = A[i, 0]\n"
        + "        # tilecheck: enable[TL101]\n"
        + "        for i in T.Parallel(64):\n            loc[i] = A[i, 1]\n"
        + "        # tilecheck: enable[TL104]\n"
    )
    # TL101 had nothing to suppress in its range; TL104 did, twice.
    assert found(source) == [(8, 9, "TL901")]


def test_unmatched_disable_still_applies_to_the_end():
    source = (
        LOCAL.replace("        for i", "        # tilecheck: disable[TL104]\n        for i")
        + "            loc[i] = A[i, 0]\n"
    )
    assert found(source) == [(8, 9, "TL903")]


def test_file_ignore_anywhere():
    source = LOCAL + "            loc[i] = A[i, 0]\n# tilecheck: file-ignore[TL104]\n"
    assert found(source) == []


def test_invalid_and_blanket_suppressions_suppress_nothing():
    source = LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore\n"
    assert found(source) == [(9, 13, "TL104"), (9, 31, "TL904")]
    source = LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore-all[TL104]\n"
    assert found(source) == [(9, 13, "TL104"), (9, 31, "TL904")]


def test_unknown_codes():
    source = LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL014]\n"
    assert found(source) == [(9, 13, "TL104"), (9, 31, "TL902")]
    assert found("x = 1  # noqa: TL999, F401\n") == [(1, 8, "TL902")]


def test_suppressions_of_rules_that_did_not_run_are_not_unused():
    source = LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL104, TL101]\n"
    rules = [by_code(code) for code in ("TL104", "TL901")]
    assert found(source, rules) == []


def test_suppression_diagnostics_can_be_suppressed_and_deselected():
    source = "x = 1  # tilecheck: ignore[TL101]\n"
    assert found(source) == [(1, 8, "TL901")]
    assert found(source + "# tilecheck: file-ignore[TL901]\n") == []
    assert found(source, [by_code("TL101")]) == []


def test_meta_findings_about_the_file_cannot_be_suppressed():
    assert [c for _, _, c in found("def f(:  # tilecheck: file-ignore[TL001]\n")] == ["TL001"]


def test_files_without_suppression_comments_are_not_tokenized(monkeypatch):
    import tilecheck.lint.suppressions

    def boom(*args):
        raise AssertionError("tokenized")

    monkeypatch.setattr(tilecheck.lint.suppressions.Suppressions, "from_source", boom)
    assert found(LOCAL + "            loc[i] = A[i, 0]\n") == [(9, 13, "TL104")]


def test_tokenizer_failure_falls_back_to_a_line_scan():
    # CPython 3.11's tokenizer rejects nested same-quote f-strings that libcst parses.
    comments = scan_comments('x = f"{d["k"]}"  # tilecheck: ignore[TL104]\n')
    assert [(c.line, c.column, c.text) for c in comments] in (
        [(1, 17, "# tilecheck: ignore[TL104]")],
        [(1, 16, "# tilecheck: ignore[TL104]")],
    )


def test_logical_lines_of_comments():
    text = "a = f(\n    1,  # one\n    2,\n)  # close\n# above\n\nb = 2\n# tail\n"
    assert [(c.line, c.first, c.last, c.own_line) for c in scan_comments(text)] == [
        (2, 1, 4, False),
        (4, 1, 4, False),
        (5, 7, 7, True),
        (8, 8, 8, True),
    ]


# -- fixes and the baseline -------------------------------------------------------------------------


def test_fix_removes_unused_suppressions(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = (
        LOCAL
        + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL104, TL101]\n"
        + "        # tilecheck: ignore[TL103]\n"
        + "        B[0, 0] = 1  # noqa: E501, TL102\n"
        + "        # tilecheck: enable[TL105]\n"
    )
    write(tmp_path, {"k.py": source})
    outcome = run(capsys, "k.py", "--fix", "--output-format", "concise")
    assert (tmp_path / "k.py").read_text() == (
        LOCAL
        + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL104]\n"
        + "        B[0, 0] = 1  # noqa: E501\n"
    )
    assert outcome.out == "Fixed 4 diagnostics.\nAll checks passed!\n"
    assert outcome.status == 0


def test_add_ignore_writes_a_baseline(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": KERNEL.replace("loc[i] = A[i, 0]", "loc[i] = A[i, 0]  # note")})
    outcome = run(capsys, "k.py", "--add-ignore=legacy kernel")
    assert (outcome.status, outcome.err) == (0, "Added 3 suppression comments.\n")
    text = (tmp_path / "k.py").read_text()
    assert (
        text.splitlines()[9]
        == "            loc[i] = A[i, 0]  # note  # tilecheck: ignore[TL104] legacy kernel"
    )
    assert text.splitlines()[11] == "            frag[i] = 0  # tilecheck: ignore[TL105] legacy kernel"
    assert (
        text.splitlines()[14]
        == "            for j in T.Parallel(64):  # tilecheck: ignore[TL101] legacy kernel"
    )
    again = run(capsys, "k.py", "--output-format", "concise")
    assert (again.status, again.out) == (0, "All checks passed!\n")
    assert run(capsys, "--add-ignore", "k.py").err == "Added 0 suppression comments.\n"  # k.py is a path


def test_add_ignore_merges_into_an_existing_directive_and_avoids_continuations():
    source = LOCAL + "            loc[i] = \\\n                A[i, 0]\n"
    diagnostics = check_source(source, "k.py").diagnostics
    text, count = add_ignores(source, diagnostics)
    assert (count, text) == (
        1,
        LOCAL + "            loc[i] = \\\n                A[i, 0]  # tilecheck: ignore[TL104]\n",
    )
    assert found(text) == []
    source = LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL101] why\n"
    diagnostics = [d for d in check_source(source, "k.py").diagnostics if d.code == "TL104"]
    text, count = add_ignores(source, diagnostics)
    assert text == LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL101, TL104] why\n"


def test_add_ignore_keeps_crlf_line_endings(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_bytes(KERNEL.replace("\n", "\r\n").encode())
    run(capsys, "k.py", "--add-ignore")
    data = (tmp_path / "k.py").read_bytes()
    assert data.count(b"\r\n") == KERNEL.count("\n") and b"\n" not in data.replace(b"\r\n", b"")
    assert b"loc[i] = A[i, 0]  # tilecheck: ignore[TL104]\r\n" in data


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("x = 1  # tilecheck: ignore[TL101]  # other\n", "x = 1  # other\n"),
        ("x = 1  # other  # tilecheck: ignore[TL101]\n", "x = 1  # other\n"),
        ("x = 1  # other  # tilecheck: ignore[TL101] because  # more\n", "x = 1  # other  # more\n"),
        ("y = 0\n    # tilecheck: ignore[TL101]\nx = 1\n", "y = 0\nx = 1\n"),
        ("x = 1  # noqa: TL101 TL102\n", "x = 1\n"),
        ("x = 1  # noqa: TL101 E501\n", "x = 1  # noqa: E501\n"),
        ("x = 1  # tilecheck: ignore[TL101, TL102]  # tilecheck: ignore[TL103]\n", "x = 1\n"),
        ("x = 1  # tilecheck: ignore[TL101]", "x = 1"),
        ("x = 1  # tilecheck: ignore[TL101] legacy layout, see #42\n", "x = 1\n"),
        ("x = 1  # tilecheck: ignore[TL101] see #42  # other\n", "x = 1  # other\n"),
    ],
)
def test_removal_shapes(before, after):
    from tilecheck.lint.fixes import fix_text

    outcome = fix_text(before, lambda text: check_source(text, "k.py"))
    assert outcome.text == after
    assert outcome.result.diagnostics == []


@pytest.mark.parametrize("reason", ["legacy\nimport os", "a\rb", "see # 42"])
def test_add_ignore_reason_must_be_one_comment_line(tmp_path, capsys, monkeypatch, reason):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(LOCAL)
    outcome = run(capsys, "k.py", f"--add-ignore={reason}")
    assert outcome.status == 2
    assert "--add-ignore reason must be one line without `#`" in outcome.err
    assert (tmp_path / "k.py").read_text() == LOCAL


def test_add_ignore_on_a_line_whose_comment_ends_with_a_backslash():
    """A backslash that ends a comment continues nothing: the line takes the directive."""
    source = LOCAL + "            loc[i] = A[i, 0]  # C:\\temp\\\n"
    diagnostics = check_source(source, "k.py").diagnostics
    assert [d.code for d in diagnostics] == ["TL104"]
    text, count = add_ignores(source, diagnostics)
    assert (count, text) == (
        1,
        LOCAL + "            loc[i] = A[i, 0]  # C:\\temp\\  # tilecheck: ignore[TL104]\n",
    )
    assert found(text) == []
