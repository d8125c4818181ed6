"""The CI formats: `gitlab` (Code Quality), `junit` (JUnit XML) and ruff's `grouped`."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest

from tests.support import KERNEL, run, write
from tilecheck.core.types import Diagnostic, Grade, Severity, Span
from tilecheck.report import Run, junit

NOTE = "x = 1  # tilecheck: ignore[TL101]\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("TILECHECK_OUTPUT_FORMAT", "CI_PROJECT_DIR", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_gitlab_code_quality_issues(project, capsys):
    write(project, {"k.py": KERNEL, "sub/u.py": NOTE})
    outcome = run(capsys, ".", "--output-format", "gitlab", "--no-cache")
    assert outcome.status == 1
    issues = json.loads(outcome.out)
    assert [
        (i["check_name"], i["severity"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues
    ] == [("TL104", "major", "k.py", 10), ("TL105", "major", "k.py", 12), ("TL101", "major", "k.py", 15),
          ("TL901", "minor", "sub/u.py", 1)]  # fmt: skip
    assert issues[3]["description"] == "Unused suppression: no `TL101` diagnostic to suppress [meta]"
    for issue in issues:
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert len(issue["fingerprint"]) == 64 and int(issue["fingerprint"], 16) >= 0
    assert len({issue["fingerprint"] for issue in issues}) == 4


def test_gitlab_fingerprint_survives_lines_moving_and_paths_follow_ci_project_dir(
    project, capsys, monkeypatch
):
    write(project, {"k.py": KERNEL})
    before = [i["fingerprint"] for i in json.loads(run(capsys, "k.py", "--output-format", "gitlab").out)]
    write(project, {"k.py": "# a comment above\n" + KERNEL})
    moved = json.loads(run(capsys, "k.py", "--output-format", "gitlab").out)
    assert [i["fingerprint"] for i in moved] == before
    assert [i["location"]["lines"]["begin"] for i in moved] == [11, 13, 16]
    monkeypatch.chdir(project / "..")
    monkeypatch.setenv("CI_PROJECT_DIR", str(project))
    issues = json.loads(run(capsys, str(project / "k.py"), "--output-format", "gitlab").out)
    assert {i["location"]["path"] for i in issues} == {"k.py"}


def test_gitlab_clean_run_is_an_empty_array(project, capsys):
    write(project, {"k.py": "x = 1\n"})
    assert run(capsys, "k.py", "--output-format", "gitlab").out == "[]\n"


def test_junit_is_well_formed_and_counts_what_consumers_read(project, capsys):
    write(project, {"k.py": KERNEL, "u.py": NOTE})
    outcome = run(capsys, ".", "--output-format", "junit", "--no-cache")
    assert outcome.status == 1
    assert outcome.out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')
    root = ElementTree.fromstring(outcome.out.encode())
    assert (root.tag, root.get("name"), root.get("tests"), root.get("failures"), root.get("errors")) == (
        "testsuites", "tilecheck", "4", "4", "0")  # fmt: skip
    suites = root.findall("testsuite")
    assert [(s.get("name"), s.get("tests"), s.get("failures")) for s in suites] == [
        ("k.py", "3", "3"),
        ("u.py", "1", "1"),
    ]
    cases = root.findall("testsuite/testcase")
    assert [(c.get("name"), c.get("classname"), c.get("file"), c.get("line")) for c in cases] == [
        ("TL104 at k.py:10:13", "k.py", "k.py", "10"),
        ("TL105 at k.py:12:13", "k.py", "k.py", "12"),
        ("TL101 at k.py:15:22", "k.py", "k.py", "15"),
        ("TL901 at u.py:1:8", "u.py", "u.py", "1"),
    ]
    failure = cases[2].find("failure")
    assert failure is not None and failure.get("type") == "TL101"
    assert failure.get("message", "").startswith("Nested `T.Parallel` loop: it does not form a strict chain")
    assert (failure.text or "").splitlines()[-1] == (
        "help: Move `B[i, 0] = 0` into a `T.Parallel` loop of its own, then fuse the remaining pair into one "
        "`T.Parallel(M, N)`."
    )
    for suite in suites:  # each suite's counts add up, as Jenkins and GitLab sum them
        assert int(suite.get("tests", "")) == len(suite.findall("testcase"))
        assert int(suite.get("failures", "")) == len(suite.findall("testcase/failure"))


def test_junit_notes_pass_and_a_clean_run_is_one_passing_case():
    note = Diagnostic("k.py", Span(3, 4, 3, 9), "TL201", "r", Grade.OPTIMIZATION, Severity.INFO, "m\x0cx")
    root = ElementTree.fromstring(_render(Run([note], {}, 1)))
    case = root.find("testsuite/testcase")
    assert case is not None and case.find("failure") is None
    assert case.findtext("system-out") == "k.py:3:5: note: TL201 [optimization] m\ufffdx"
    assert root.get("failures") == "0"
    clean = ElementTree.fromstring(_render(Run([], {}, 1)))
    assert [(c.get("name"), c.find("failure")) for c in clean.iter("testcase")] == [
        ("All checks passed", None)
    ]
    assert (clean.get("tests"), clean.get("failures")) == ("1", "0")


def _render(report: Run) -> bytes:
    import io

    out = io.StringIO()
    junit.render(report, out)
    return out.getvalue().encode()


def test_grouped_lists_each_file_once(project, capsys):
    write(project, {"k.py": KERNEL, "u.py": NOTE})
    outcome = run(capsys, ".", "--output-format", "grouped", "--no-cache")
    lines = outcome.out.splitlines()
    assert [line[:40] for line in lines] == [
        expected[:40]
        for expected in (
            "k.py:",
            "  10:13 error: TL104 [semantic] Local buf",
            "  12:13 error: TL105 [contract] Fragment ",
            "  15:22 error: TL101 [semantic] Nested `T",
            "",
            "u.py:",
            "  1:8 warning: TL901 [*] [meta] Unused su",
            "",
            "Found 3 errors, 1 warning in 2 files.",
            "[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`).",
        )
    ]
    assert lines[-1] == "[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`)."
    assert outcome.status == 1
    assert (
        run(capsys, "u.py", "--output-format", "grouped", "-q").out
        == "u.py:\n  1:8 warning: TL901 [*] [meta] "
        "Unused suppression: no `TL101` diagnostic to suppress\n\n"
    )


def test_grouped_aligns_lines_and_columns():
    found = [
        Diagnostic(
            "k.py", Span(line, column, line, column + 1), "TL101", "r", Grade.SEMANTIC, Severity.ERROR, "m"
        )
        for line, column in ((9, 0), (120, 14))
    ]
    import io

    from tilecheck.report import grouped

    out = io.StringIO()
    grouped.render(Run(found, {}, 1, quiet=True), out)
    assert (
        out.getvalue() == "k.py:\n    9:1  error: TL101 [semantic] m\n  120:15 error: TL101 [semantic] m\n\n"
    )


# -- control characters in file names ----------------------------------------------------------

NAME = "a\nb\x1bc.py"  # a newline and an ESC: neither may split or repaint a line of a report
SHOWN = "a\\nb\\x1bc.py"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--output-format", "concise"), [f"{SHOWN}:15:22: error: TL101 [semantic] Nested"]),
        (
            ("--output-format", "full"),
            [f"{SHOWN}:15:22: error: TL101", f"  ::: {SHOWN}:13:18", f"  ::: {SHOWN}:14:13"],
        ),
        (("--output-format", "grouped"), [f"{SHOWN}:", "  15:22 error: TL101"]),
        (
            ("--output-format", "github"),
            ["::error title=tilecheck (TL101),file=a%0Ab\x1bc.py,line=15,col=22,"],
        ),
        (("--output-format", "junit"), [f'  <testsuite name="{SHOWN}" ']),
        (("--statistics",), [f"        1      4  {SHOWN}"]),
        (("--diff", "--unsafe-fixes", "--select", "TL104"), [f"--- a/{SHOWN}", f"+++ b/{SHOWN}"]),
        (("--show-files",), [SHOWN]),
    ],
)
def test_a_control_character_in_a_file_name_is_escaped_in_every_line_oriented_report(
    project, capsys, args, expected
):
    write(project, {NAME: KERNEL})
    outcome = run(capsys, ".", "--select", "TL101", "--no-cache", *args)
    lines = outcome.out.splitlines()
    for start in expected:
        assert any(line.startswith(start) for line in lines), (start, lines)
    assert "\x1b" not in outcome.out or args == ("--output-format", "github")  # there: the file as it is
    assert not any(
        line.startswith(("b", "b\\x1b", "c.py")) for line in lines
    )  # no line begun by the name's tail


def test_machine_formats_carry_a_control_character_in_a_file_name_as_it_is(project, capsys):
    write(project, {NAME: KERNEL})
    outcome = run(capsys, ".", "--select", "TL101", "--no-cache", "--output-format", "json")
    assert [d["path"] for d in json.loads(outcome.out)] == [NAME]
    outcome = run(capsys, ".", "--select", "TL101", "--no-cache", "--output-format", "gitlab")
    assert [i["location"]["path"] for i in json.loads(outcome.out)] == [NAME]
