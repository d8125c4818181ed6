"""Hostile trees: a symlink that leaves the checked tree is not followed (an explicit path is);
a directory that cannot be listed, or is beyond PATH_MAX, is TL003 and the run goes on; a
directory that cannot be searched has no configuration; no file name breaks a report; every
setting is checked where it enters, and an `extend` cycle through a link is called a cycle."""

from __future__ import annotations

import json
import os

import pytest

from tests.support import ALL_FINDINGS, KERNEL, run, write


@pytest.fixture
def tree(tmp_path, monkeypatch):
    root = tmp_path / "tree"
    write(root, {"pyproject.toml": "[tool.tilecheck]\n", "a.py": KERNEL})
    monkeypatch.chdir(root)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    return root


def concise(capsys, *args: str):
    return run(capsys, "check", "--no-cache", "--output-format", "concise", *args)


A_FINDINGS = [f"a.py:{line}:{column}: error: {code}" for line, column, code in ALL_FINDINGS]


def findings(out: str) -> list[str]:
    return [line.split(" [")[0] for line in out.splitlines() if ": error: " in line]


def test_a_symlink_out_of_the_tree_is_not_followed(tree, tmp_path, capsys):
    secret = tmp_path / "secret.py"
    secret.write_text("TOKEN = 'hunter2'\nfor\n")  # a syntax error: its line would be quoted
    (tree / "env.py").symlink_to(secret)
    (tree / "inside.py").symlink_to(tree / "a.py")  # a link that stays inside is checked
    outcome = run(capsys, "check", "--no-cache", "--output-format", "full", ".")
    assert "hunter2" not in outcome.out
    assert findings(concise(capsys, ".").out) == A_FINDINGS + [
        f.replace("a.py", "inside.py") for f in A_FINDINGS
    ]
    explicit = concise(capsys, "env.py")  # named on the command line: the user's choice
    assert findings(explicit.out) == ["env.py:2:4: error: TL001"]


def test_a_directory_that_cannot_be_listed_is_tl003_and_the_run_goes_on(tree, capsys, monkeypatch):
    write(tree, {"locked/b.py": KERNEL, "open/c.py": KERNEL})
    locked = str(tree / "locked")
    real_scandir = os.scandir

    def scandir(path="."):  # as for a directory without read permission (the tests run as root)
        if os.path.abspath(os.fsdecode(path)) == locked:
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    outcome = concise(capsys, ".")
    assert "locked:1:1: error: TL003 [meta] Cannot read directory: Permission denied" in outcome.out
    assert findings(outcome.out) == [
        *A_FINDINGS,
        "locked:1:1: error: TL003",
        *[f.replace("a.py", "open/c.py") for f in A_FINDINGS],
    ]
    assert outcome.status == 1


def test_a_directory_that_cannot_be_searched_has_no_configuration(tree, capsys, monkeypatch):
    write(tree, {"noexec/b.py": KERNEL})
    real_stat = os.stat
    noexec = str(tree / "noexec") + os.sep

    def stat(path, *args, **kwargs):  # as for a directory without search permission
        if os.fsdecode(path).startswith(noexec) and os.path.basename(os.fsdecode(path)) != "b.py":
            raise PermissionError(13, "Permission denied", path)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    outcome = concise(capsys, ".")
    assert "Cannot read configuration" not in outcome.err
    assert findings(outcome.out) == [*A_FINDINGS, *[f.replace("a.py", "noexec/b.py") for f in A_FINDINGS]]


def test_a_tree_deeper_than_path_max_costs_its_deep_part_only(tree, capsys):
    directory = os.open(tree, os.O_RDONLY)
    depth = 0
    try:
        while depth * 201 < 5000:  # past PATH_MAX (4096)
            os.mkdir("d" * 200, dir_fd=directory)
            inner = os.open("d" * 200, os.O_RDONLY, dir_fd=directory)
            os.close(directory)
            directory, depth = inner, depth + 1
        os.close(os.open("x.py", os.O_WRONLY | os.O_CREAT, dir_fd=directory))
    finally:
        os.close(directory)
    outcome = concise(capsys, ".")
    assert findings(outcome.out)[:3] == A_FINDINGS
    (deep,) = [line for line in outcome.out.splitlines() if "TL003" in line]
    assert deep.endswith(":1:1: error: TL003 [meta] Cannot read directory: File name too long")
    assert deep.startswith("/".join(["d" * 200] * 20))


@pytest.mark.parametrize("output_format", ["json", "json-lines", "sarif", "concise", "full", "github"])
def test_a_file_name_that_is_not_utf8_is_shown_as_ruff_shows_it(tree, capsys, output_format):
    with open(os.path.join(os.fsencode(tree), b"k\xff.py"), "w") as out:
        out.write(KERNEL)
    (tree / "a.py").unlink()
    outcome = run(capsys, "check", "--no-cache", "--output-format", output_format, ".")
    assert outcome.status == 1
    outcome.out.encode("utf-8")  # valid Unicode (no surrogate escapes): it encodes as UTF-8
    if output_format == "json":
        assert {item["path"] for item in json.loads(outcome.out)} == {"k\ufffd.py"}
    elif output_format == "sarif":
        results = json.loads(outcome.out)["runs"][0]["results"]
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
        assert uris == {"k%FF.py"}
    elif output_format == "concise":
        assert findings(outcome.out) == [f.replace("a.py", "k\ufffd.py") for f in A_FINDINGS]


@pytest.mark.parametrize(
    ("flag", "value", "reason"),
    [
        ("--per-file-timeout", "nan", "not a finite number"),
        ("--per-file-timeout", "inf", "not a finite number"),
        ("--per-file-timeout", "-1", "must be 0 (no limit) or more"),
        ("--per-file-timeout", "1e400", "not a finite number"),
        ("--per-file-timeout", "9" * 5000, "must be at most 1000000"),
        ("--per-file-memory", "99999999999999999999", "must be at most 1073741824"),
        ("--per-file-memory", "9" * 5000, "must be at most 1073741824"),
        ("--per-file-memory", "nan", "not a whole number: 'nan'"),
        ("--per-file-memory", "1.5", "not a whole number: '1.5'"),
    ],
)
def test_a_budget_flag_out_of_range_is_a_usage_error(tree, capsys, flag, value, reason):
    outcome = concise(capsys, flag, value, "a.py")
    assert outcome.status == 2
    assert outcome.err.splitlines()[-1] == f"tilecheck: error: argument {flag}: {reason}"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("per-file-timeout = nan", "`per-file-timeout` must be a number of seconds, 0 or more (0: no limit), got nan (not a finite number)"),
        ("per-file-timeout = inf", "`per-file-timeout` must be a number of seconds, 0 or more (0: no limit), got inf (not a finite number)"),
        ("per-file-memory = 99999999999999999999", "`per-file-memory` must be a whole number of MiB, 0 or more (0: no limit), got 99999999999999999999 (must be at most 1073741824)"),
        ("per-file-timeout = 1" + "0" * 4999, "Invalid TOML in pyproject.toml: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits"),
    ],
)  # fmt: skip
def test_a_budget_setting_out_of_range_is_a_configuration_error(tree, capsys, setting, message):
    (tree / "pyproject.toml").write_text(f"[tool.tilecheck]\n{setting}\n")
    outcome = concise(capsys, "a.py")
    assert outcome.status == 2
    prefix = "" if message.startswith("Invalid") else "pyproject.toml: "
    assert outcome.err == f"tilecheck: error: {prefix}{message}\n"


def test_extend_of_a_directory_is_a_configuration_error(tree, capsys):
    (tree / "pyproject.toml").write_text('[tool.tilecheck]\nextend = "."\n')
    outcome = concise(capsys, "a.py")
    assert (outcome.status, outcome.err) == (
        2,
        "tilecheck: error: Cannot read configuration file .: it is a directory\n",
    )


def test_an_extend_cycle_through_a_symlink_is_called_a_cycle(tree, capsys):
    (tree / "pyproject.toml").write_text('[tool.tilecheck]\nextend = "l/pyproject.toml"\n')
    (tree / "l").symlink_to(".")
    outcome = concise(capsys, "a.py")
    assert (outcome.status, outcome.err) == (
        2,
        "tilecheck: error: Circular `extend` in configuration: pyproject.toml -> l/pyproject.toml\n",
    )


def test_a_memory_budget_of_one_mib_is_the_budget_not_a_parser_limitation(tree):
    """As a user runs it (a worker of this test process has libcst loaded already)."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "tilecheck", "check", "--no-cache", "--output-format", "concise"]
    outcome = subprocess.run([*command, "--per-file-memory", "1", "a.py"], capture_output=True, text=True)
    assert outcome.stdout == (
        "a.py:1:1: error: TL004 [meta] File is too complex to analyze within the budget: checking it "
        "needed more than 1 MiB (per-file-memory); no rule was run on it\nFound 1 error in 1 file.\n"
    )
