"""ruff's command-line habits: colour, suggestions, -q/-s, --fix-only/--no-fix, the --diff hint."""

from __future__ import annotations

import io

import pytest

from tests.support import KERNEL, run, write
from tilecheck.cli.style import wants_color


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("TILECHECK_OUTPUT_FORMAT", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# -- colour ------------------------------------------------------------------------------------


def test_colour_follows_the_flag_then_no_color_then_force_color_then_the_terminal():
    terminal, pipe = Terminal(), io.StringIO()
    assert wants_color("auto", terminal, {}) is True
    assert wants_color("auto", pipe, {}) is False
    assert wants_color("auto", None, {}) is False  # a report file
    assert wants_color("auto", terminal, {"TERM": "dumb"}) is False
    assert wants_color("auto", terminal, {"NO_COLOR": "1"}) is False
    assert wants_color("auto", terminal, {"NO_COLOR": ""}) is True  # set but empty: not set
    assert wants_color("auto", pipe, {"FORCE_COLOR": "1"}) is True
    assert wants_color("auto", pipe, {"FORCE_COLOR": "1", "NO_COLOR": "1"}) is False
    assert wants_color("always", pipe, {"NO_COLOR": "1"}) is True
    assert wants_color("never", terminal, {"FORCE_COLOR": "1"}) is False


def test_coloured_report_paints_the_headline_excerpt_and_summary(project, capsys):
    write(project, {"k.py": KERNEL})
    out = run(capsys, "k.py", "--select", "TL101", "--color", "always", "--no-cache").out.splitlines()
    assert out[0] == (
        "\x1b[1mk.py\x1b[0m:15:22: \x1b[1;31merror\x1b[0m: \x1b[1;31mTL101\x1b[0m [semantic] Nested "
        "`T.Parallel` loop: it does not form a strict chain with the enclosing `T.Parallel` at line 13, "
        "because the outer body also contains the statement `B[i, 0] = 0` (line 14)"
    )
    assert out[2] == "\x1b[1;34m15\x1b[0m \x1b[1;34m|\x1b[0m             for j in T.Parallel(64):"
    assert out[3] == "   \x1b[1;34m|\x1b[0m                      \x1b[1;31m" + "^" * 14 + "\x1b[0m"
    assert out[-1] == "\x1b[1mFound 1 error in 1 file.\x1b[0m"


def test_colour_is_off_in_a_pipe_and_with_no_color(project, capsys, monkeypatch):
    write(project, {"k.py": KERNEL})
    assert "\x1b[" not in run(capsys, "k.py", "--no-cache").out  # capsys is not a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[1;31mTL101" in run(capsys, "k.py", "--no-cache").out
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run(capsys, "k.py", "--no-cache").out
    assert (
        "\x1b[" not in run(capsys, "k.py", "--no-cache", "--color", "always", "--output-format", "json").out
    )


def test_clean_run_is_green_with_colour(project, capsys):
    write(project, {"k.py": "x = 1\n"})
    assert run(capsys, "k.py", "--color", "always").out == "\x1b[1;32mAll checks passed!\x1b[0m\n"


# -- suggestions --------------------------------------------------------------------------------


def test_mistyped_flag_names_the_similar_one(project, capsys):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "k.py", "--selct", "TL101")
    assert outcome.status == 2
    assert outcome.err.splitlines()[-1] == (
        "tilecheck: error: unrecognized arguments: --selct TL101 (a similar argument exists: '--select')"
    )
    outcome = run(capsys, "lower", "k.py", "--exitzero")
    assert outcome.err.splitlines()[-1] == (
        "tilecheck: error: unrecognized arguments: --exitzero (a similar argument exists: '--exit-zero')"
    )
    assert (
        run(capsys, "k.py", "--zzzz").err.splitlines()[-1]
        == "tilecheck: error: unrecognized arguments: --zzzz"
    )


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (("k.py", "--selct", "TL101"), "usage: tilecheck check [options] [PATH ...]"),
        (("check", "--selct", "TL101"), "usage: tilecheck check [options] [PATH ...]"),
        (("explain", "k.py", "--bogus"), "usage: tilecheck explain [options] FILE[:LINE]"),
        (("explain",), "usage: tilecheck explain [options] FILE[:LINE]"),  # the subcommand's own error
        (("lower", "k.py", "--exitzero"), "usage: tilecheck lower [options] FILE [FILE ...]"),
        (("rule", "--zz"), "usage: tilecheck rule [options] [CODE]"),
    ],
)
def test_a_usage_error_shows_the_subcommand_usage(project, capsys, argv, usage):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, *argv)
    assert outcome.status == 2
    assert outcome.err.splitlines()[0] == usage
    assert outcome.err.splitlines()[1].startswith("tilecheck: error: ")


def test_mistyped_code_suggests_the_code(project, capsys):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "k.py", "--select", "TL1O1")
    assert (outcome.status, outcome.err) == (
        2,
        "tilecheck: error: Unknown rule selector: `TL1O1` (did you mean `TL101`?)\n",
    )
    outcome = run(capsys, "rule", "TL1O1")
    assert (outcome.status, outcome.err) == (
        2,
        "tilecheck: error: unknown rule `TL1O1` (did you mean `TL101`? `tilecheck rules` lists them)\n",
    )
    assert run(capsys, "k.py", "--ignore", "TLl0").err == (
        "tilecheck: error: Unknown rule selector: `TLl0` (did you mean `TL10`?)\n"
    )
    # A code that is merely near another is no typo of it.
    assert (
        run(capsys, "k.py", "--select", "TL777").err == "tilecheck: error: Unknown rule selector: `TL777`\n"
    )


def test_an_empty_selection_warns_that_nothing_is_checked(project, capsys):
    write(project, {"k.py": KERNEL, "bad.py": "def f(:\n"})
    warning = (
        "tilecheck: warning: No rules are selected (`--select` was given no rule code), so only files "
        "that cannot be read or parsed are reported\n"
    )
    outcome = run(capsys, "k.py", "--select", "", "--no-cache")
    assert (outcome.status, outcome.out, outcome.err) == (0, "All checks passed!\n", warning)
    assert run(capsys, "k.py", "--select", ",", "--no-cache").err == warning
    outcome = run(capsys, "k.py", "bad.py", "--select", "", "--no-cache", "--output-format", "concise")
    assert (outcome.status, outcome.err) == (1, warning)
    assert outcome.out.splitlines()[0] == "bad.py:1:7: error: TL001 [meta] Syntax error: invalid syntax"
    # rules added after the empty selection are a selection; -s silences the warning
    outcome = run(capsys, "k.py", "--select", "", "--extend-select", "TL101", "--no-cache")
    assert (outcome.status, outcome.err) == (1, "")
    assert run(capsys, "k.py", "--select", "", "-s", "--no-cache").err == ""


# -- quiet and silent ---------------------------------------------------------------------------


def test_quiet_prints_the_diagnostics_only(project, capsys):
    write(project, {"k.py": KERNEL, "c.py": "x = 1\n"})
    outcome = run(capsys, "k.py", "-q", "--output-format", "concise")
    assert outcome.status == 1
    assert [line.split(":")[1] for line in outcome.out.splitlines()] == ["10", "12", "15"]
    outcome = run(capsys, "c.py", "--quiet")
    assert (outcome.status, outcome.out, outcome.err) == (0, "", "")
    assert run(capsys, "k.py", "-q", "--diff", "--unsafe-fixes").err == ""


def test_silent_prints_nothing_but_keeps_the_exit_status(project, capsys):
    write(project, {"k.py": KERNEL, "c.py": "x = 1\n"})
    assert (run(capsys, "k.py", "-s").status, run(capsys, "k.py", "-s").out) == (1, "")
    outcome = run(capsys, "k.py", "--silent", "--diff", "--unsafe-fixes")
    assert (outcome.status, outcome.out, outcome.err) == (1, "", "")
    outcome = run(capsys, "k.py", "--silent", "--select", "TL1O1")  # errors still say why
    assert outcome.status == 2 and "did you mean `TL101`" in outcome.err
    assert run(capsys, "k.py", "-q", "-s").status == 2


# -- --fix-only, --no-fix, and the --diff hint --------------------------------------------------

UNUSED = "x = 1  # tilecheck: ignore[TL101]\n"


def test_fix_only_fixes_without_reporting_what_is_left(project, capsys):
    write(project, {"k.py": KERNEL + UNUSED})
    outcome = run(capsys, "k.py", "--fix-only", "--no-cache")
    assert (outcome.status, outcome.out, outcome.err) == (0, "", "Fixed 1 diagnostic.\n")
    assert (project / "k.py").read_text() == KERNEL + "x = 1\n"
    outcome = run(capsys, "k.py", "--fix-only", "--no-cache")  # nothing left to fix: nothing to say
    assert (outcome.status, outcome.out, outcome.err) == (0, "", "")
    write(project, {"k.py": KERNEL + UNUSED})
    assert run(capsys, "k.py", "--fix-only", "--exit-non-zero-on-fix", "--no-cache").status == 1


def test_no_fix_overrides_an_earlier_fix(project, capsys):
    write(project, {"k.py": KERNEL + UNUSED})
    outcome = run(capsys, "k.py", "--fix", "--no-fix", "--output-format", "concise", "--no-cache")
    assert outcome.status == 1
    assert (project / "k.py").read_text() == KERNEL + UNUSED
    assert outcome.out.splitlines()[-2:] == [
        "Found 3 errors, 1 warning in 1 file.",
        "[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`).",
    ]
    assert run(capsys, "k.py", "--no-fix", "--fix", "--no-cache").status == 1
    assert (project / "k.py").read_text() == KERNEL + "x = 1\n"
    outcome = run(capsys, "k.py", "--fix-only", "--no-fix")
    assert (outcome.status, outcome.err) == (
        2,
        "tilecheck: error: --fix-only and --no-fix cannot be combined\n",
    )


def test_diff_with_only_unsafe_fixes_hints_unsafe_fixes(project, capsys):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "k.py", "--diff", "--no-cache")
    assert (outcome.status, outcome.out) == (0, "")
    assert outcome.err == "No diagnostics would be fixed (1 fix available with `--unsafe-fixes`).\n"
    write(project, {"k.py": KERNEL + UNUSED})
    outcome = run(capsys, "k.py", "--diff", "--no-cache")
    assert outcome.status == 1
    assert outcome.err == "Would fix 1 diagnostic (1 more fix available with `--unsafe-fixes`).\n"
    assert run(capsys, "k.py", "--diff", "--unsafe-fixes", "--no-cache").err == "Would fix 2 diagnostics.\n"


# -- explain -o, explain FILE:LINE past the end, debug-config without FILE ----------------------


def test_explain_writes_the_picture_to_a_file(project, capsys):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "explain", "k.py", "-o", "pictures/k.html", "--output-format", "html")
    assert (outcome.status, outcome.out) == (0, "")
    assert (project / "pictures" / "k.html").read_text().startswith("<!DOCTYPE html>")
    outcome = run(capsys, "explain", "k.py:15", "--output-file", "pictures/k.html")
    assert (project / "pictures" / "k.html").read_text().splitlines()[
        0
    ] == "k.py:15  (backend: none selected)"
    assert [p.name for p in (project / "pictures").iterdir()] == ["k.html"]  # no temporary left


def test_explain_a_line_past_the_end_is_an_error(project, capsys):
    write(project, {"k.py": KERNEL})
    for target, line in (("k.py:99", 99), ("k.py:0", 0)):
        outcome = run(capsys, "explain", target)
        assert (outcome.status, outcome.out, outcome.err) == (
            2,
            "",
            f"tilecheck: error: {target}: no line {line} in k.py (it has 16 lines)\n",
        )
    assert run(capsys, "explain", "k.py:16").status == 0


def test_debug_config_without_a_file_shows_the_working_directory(project, capsys):
    write(project, {"tilecheck.toml": 'select = ["TL1"]\n'})
    outcome = run(capsys, "debug-config")
    assert outcome.status == 0
    lines = outcome.out.splitlines()
    assert lines[:2] == ["File: .", "Configuration: tilecheck.toml"]
    assert '  select                  = ["TL1"]  # tilecheck.toml' in lines
    outcome = run(capsys, "debug-config", "--config", 'select = ["TL2"]')
    assert '  select                  = ["TL2"]  # command line' in outcome.out.splitlines()
    assert outcome.out.splitlines()[1] == "Configuration: tilecheck.toml"


def test_tl006_on_a_plain_helper_says_to_make_it_a_macro(project, capsys):
    helper = (
        "import tilelang.language as T\n\n\ndef fill(A):\n    for i in T.Parallel(8):\n        A[i] = 0\n\n\n"
        '@T.prim_func\ndef main(A: T.Tensor((8,), "float32")):\n    with T.Kernel(1) as bx:\n        fill(A)\n'
    )
    write(project, {"h.py": helper})
    (found,) = __import__("json").loads(run(capsys, "h.py", "--output-format", "json").out)
    assert (found["code"], found["line"], found["column"]) == ("TL006", 5, 14)
    assert found["help"] == (
        "Make `fill` a `@T.macro`, which TileLang inlines into the kernel that calls it (and tilecheck "
        "checks there); or move its loops into the `@T.prim_func`."
    )
    write(project, {"h.py": helper.replace("import tilelang.language as T", "from mypkg.tl import T")})
    (found,) = __import__("json").loads(run(capsys, "h.py", "--output-format", "json").out)
    assert found["help"].startswith(
        "Import TileLang as `import tilelang.language as T`"
    )  # that is the fix there
