"""The command line: exit codes, grades, statistics, rule documentation and the default command."""

import json
import os
import textwrap

import pytest

from tests.support import CLEAN, KERNEL, run, write
from tilecheck.core.registry import builtin_rules

SLOW_RULE = '''
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade, Span


class SlowCopy(Rule):
    """A copy that will not be vectorized.

    ## What it does
    Reports `slow`.
    """

    CODE = "OPT301"
    NAME = "slow-copy"
    GRADE = Grade.OPTIMIZATION
    HELP = "Make it fast."

    def check(self, ctx):
        if "slow" in ctx.source:
            ctx.report_at(Span(1, 0, 1, 4), "This copy will not be vectorized")
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    return tmp_path


def test_exit_codes(project, capsys):
    write(project, {"clean.py": CLEAN, "k.py": KERNEL})
    assert run(capsys, "clean.py").status == 0
    assert run(capsys, "k.py").status == 1
    assert run(capsys, "k.py", "--exit-zero").status == 0
    assert run(capsys, "k.py", "--select", "nope").status == 2
    missing = run(capsys, "missing.py", "--output-format", "json")
    assert (missing.status, missing.out, missing.err) == (
        2,
        "",
        "tilecheck: error: missing.py: no such file or directory\n",
    )
    assert run(capsys, "k.py", "--fix", "--add-ignore").status == 2


def test_default_command_and_path(project, capsys):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "--output-format", "json")
    assert [f[3] for f in outcome.findings()] == ["TL104", "TL105", "TL101"]
    assert run(capsys).status == 1
    assert run(capsys, "check", "k.py").status == 1


def test_optimization_findings_never_fail_and_are_notes(project, capsys, monkeypatch):
    write(
        project, {"tilecheck.toml": 'plugins = ["slow_rules"]\n', "slow_rules.py": textwrap.dedent(SLOW_RULE)}
    )
    write(project, {"k.py": "slow = 1\n"})
    monkeypatch.setattr("sys.dont_write_bytecode", True)
    monkeypatch.setenv("TILECHECK_ALLOW_PLUGINS", "1")
    outcome = run(capsys, "k.py", "--output-format", "concise")
    assert outcome.status == 0
    assert outcome.out.splitlines() == [
        "k.py:1:1: note: OPT301 [optimization] This copy will not be vectorized",
        "Found 1 note in 1 file.",
    ]
    assert run(capsys, "k.py", "--output-format", "github").out.startswith(
        "::notice title=tilecheck (OPT301)"
    )
    assert json.loads(run(capsys, "k.py", "--output-format", "json").out)[0]["severity"] == "info"
    write(project, {"tilecheck.toml": 'plugins = ["slow_rules"]\n[severity]\nOPT301 = "error"\n'})
    assert run(capsys, "k.py").status == 0  # cannot be configured into an error


def test_grade_filter(project, capsys):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "k.py", "--grade", "semantic", "--output-format", "json")
    assert [f[3] for f in outcome.findings()] == ["TL104", "TL101"]
    outcome = run(capsys, "k.py", "--grade", "contract", "--output-format", "json")
    assert [f[3] for f in outcome.findings()] == ["TL105"]
    outcome = run(capsys, "k.py", "--grade", "semantic,contract", "--output-format", "json")
    assert [f[3] for f in outcome.findings()] == ["TL104", "TL105", "TL101"]
    # A suppression for a rule filtered out by --grade is not "unused".
    write(project, {"k.py": KERNEL.replace("frag[i] = 0", "frag[i] = 0  # tilecheck: ignore[TL105]")})
    assert [
        f[3] for f in run(capsys, "k.py", "--grade", "semantic", "--output-format", "json").findings()
    ] == [
        "TL104",
        "TL101",
    ]


def test_statistics(project, capsys):
    write(project, {"k.py": KERNEL, "j.py": KERNEL, "u.py": "x = 1  # tilecheck: ignore[TL101]\n"})
    outcome = run(capsys, ".", "--statistics")
    assert outcome.out.splitlines() == [
        "2  TL101      nested-parallel",
        "2  TL104  [-] parallel-indexed-local",
        "2  TL105      symbolic-parallel-fragment",
        "1  TL901  [*] unused-suppression",
        "Found 6 errors, 1 warning in 3 files.",
        "",
        "Modeled: 2 kernels, 8 loops in 2 of 3 files",
        "  kernels  loops  file",
        "        1      4  j.py",
        "        1      4  k.py",
    ]
    assert outcome.status == 1
    outcome = run(capsys, ".", "--statistics", "--unsafe-fixes", "--output-format", "json")
    assert json.loads(outcome.out)[1] == {
        "code": "TL104",
        "name": "parallel-indexed-local",
        "count": 2,
        "fixable": True,
        "fix": "unsafe",
    }


def test_full_output(project, capsys):
    write(project, {"u.py": "x = 1  # tilecheck: ignore[TL101]\n"})
    assert run(capsys, "u.py").out.splitlines() == [
        "u.py:1:8: warning: TL901 [meta] Unused suppression: no `TL101` diagnostic to suppress",
        "  |",
        "1 | x = 1  # tilecheck: ignore[TL101]",
        "  |        ^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "  = help: Remove the unused suppression (`tilecheck --fix` does it).",
        "  = fix: Remove the suppression",
        "",
        "Found 1 warning in 1 file.",
        "[*] 1 fixable with `--fix`.",
    ]


# -- explaining rules --------------------------------------------------------------------------------


def test_rules_listing(project, capsys):
    lines = run(capsys, "rules").out.splitlines()
    assert [line.split()[0] for line in lines] == [rule.CODE for rule in builtin_rules()]
    assert any(line.startswith("TL101  nested-parallel ") and " semantic " in line for line in lines)
    listing = json.loads(run(capsys, "rules", "--output-format", "json").out)
    assert listing[0] == {
        "code": "TL001",
        "name": "syntax-error",
        "grade": "meta",
        "summary": "The file is not valid Python.",
        "fixable": False,
    }
    assert {"code": "TL901", "fixable": True}.items() <= next(
        r for r in listing if r["code"] == "TL901"
    ).items()


def test_rule_explanation(project, capsys):
    text = run(capsys, "rule", "TL104").out
    assert text.startswith(
        "# parallel-indexed-local (TL104)\n\nA `T.alloc_local` buffer indexed by an enclosing `T.Parallel` loop variable.\n\n"
        "Grade: **semantic**. Default severity: error.\nFix is sometimes available.\n\n## What it does\n"
    )
    for heading in (
        "## Why is this bad?",
        "## Example",
        "## Use instead",
        "## Backends",
    ):
        assert f"\n{heading}\n" in text
    assert "Design notes" not in text and "Legal rewrite" not in text  # maintainers' notes stay in the code
    assert run(capsys, "rule", "nested-parallel").out.startswith("# nested-parallel (TL101)\n")
    data = json.loads(run(capsys, "rule", "TL101", "--output-format", "json").out)
    assert (data["code"], data["grade"], "checklist" in data) == ("TL101", "semantic", False)
    everything = json.loads(run(capsys, "rule", "--all", "--output-format", "json").out)
    assert [r["code"] for r in everything] == [rule.CODE for rule in builtin_rules()]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rule", "TL777"], "tilecheck: error: unknown rule `TL777` (`tilecheck rules` lists them)\n"),
        (["rule"], "tilecheck: error: which rule? (`tilecheck rule TL101`, or `tilecheck rule --all`)\n"),
        (["rule", "TL101", "--all"], "tilecheck: error: give a rule code or --all, not both\n"),
    ],
)
def test_rule_errors(project, capsys, args, message):
    outcome = run(capsys, *args)
    assert (outcome.status, outcome.err) == (2, message)


def test_settings_are_resolved_once_per_directory(project, capsys, monkeypatch):
    import tilecheck.config.resolver

    calls = []
    original = tilecheck.config.resolver.Settings._file_settings
    monkeypatch.setattr(
        tilecheck.config.resolver.Settings,
        "_file_settings",
        lambda self, hits, tilelang: calls.append(hits) or original(self, hits, tilelang),
    )
    write(project, {f"k{i}.py": CLEAN for i in range(20)})
    assert run(capsys, ".").status == 0
    assert calls == [()]


def test_public_api_and_a_fast_version(project):
    import subprocess
    import sys

    import tilecheck

    for name in tilecheck.__all__:
        assert getattr(tilecheck, name) is not None
    with pytest.raises(AttributeError):
        _ = tilecheck.nothing_here
    code = "import sys, tilecheck; print(tilecheck.__version__, 'libcst' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == f"{tilecheck.__version__} False\n"


def test_an_internal_failure_is_one_line_not_a_traceback(project, capsys, monkeypatch):
    write(project, {"k.py": KERNEL})
    monkeypatch.delenv("TILECHECK_TRACEBACK", raising=False)

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("tilecheck.app.supervisor.run_isolated", broken)  # in this process, not a worker
    outcome = run(capsys, "k.py")
    assert outcome.status == 2
    assert outcome.err.startswith("tilecheck: internal error: disk on fire (RuntimeError at test_cli.py:")
    assert outcome.err.endswith("; set TILECHECK_TRACEBACK=1 for details\n")
    monkeypatch.setenv("TILECHECK_TRACEBACK", "1")
    with pytest.raises(RuntimeError):
        run(capsys, "k.py")


def test_parallel_jobs_give_the_same_report_as_one_process(capsys):
    from pathlib import Path

    fixtures = str(Path(__file__).resolve().parent.parent / "fixtures")
    parallel = run(capsys, fixtures, "--output-format", "json", "--jobs", "2")
    serial = run(capsys, fixtures, "--output-format", "json", "--jobs", "1")
    assert parallel.status == serial.status == 1
    assert parallel.out == serial.out
    assert len(json.loads(parallel.out)) > 100


def test_jobs_must_be_positive(capsys):
    outcome = run(capsys, ".", "--jobs", "0")
    assert outcome.status == 2
    assert "--jobs must be at least 1" in outcome.err


# -- issue 13 §1: the first ten minutes -------------------------------------------------------------


@pytest.mark.parametrize(("typo", "meant"), [("rulez", "rule"), ("chek", "check"), ("explian", "explain")])
def test_a_mistyped_subcommand_is_a_usage_error(project, capsys, typo, meant):
    outcome = run(capsys, typo, "TL104")
    assert (outcome.status, outcome.out) == (2, "")
    assert outcome.err == f"tilecheck: error: unrecognized subcommand '{typo}' (did you mean '{meant}'?)\n"


def test_an_existing_path_named_like_a_subcommand_is_checked(project, capsys):
    write(project, {"rulez": KERNEL})  # a file (no .py) named on the command line is checked
    assert run(capsys, "rulez", "--output-format", "json").findings() == [
        ("rulez", 10, 13, "TL104"),
        ("rulez", 12, 13, "TL105"),
        ("rulez", 15, 22, "TL101"),
    ]


@pytest.mark.parametrize(
    "command",
    [
        ["nope.py"],
        ["check", "k.py", "nope.py"],
        ["explain", "nope.py"],
        ["explain", "nope.py:12"],
        ["debug-config", "nope.py"],
        ["inventory", "k.py", "nope.py"],
        ["lower", "k.py", "nope.py"],
        ["lower", "--write", "k.py", "nope.py"],
    ],
)
def test_a_missing_path_named_explicitly_is_a_usage_error_everywhere(project, capsys, command):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, *command)
    assert (outcome.status, outcome.out, outcome.err) == (
        2,
        "",
        "tilecheck: error: nope.py: no such file or directory\n",
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--select", "nested-paralel"],
            "Unknown rule selector: `nested-paralel` (did you mean `nested-parallel`?)",
        ),
        (
            ["--ignore", "parallel-indexd-local"],
            "Unknown rule selector: `parallel-indexd-local` (did you mean `parallel-indexed-local`?)",
        ),
        (["--select", "TL777"], "Unknown rule selector: `TL777`"),
    ],
)
def test_mistyped_selectors_get_suggestions(project, capsys, args, message):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "k.py", *args)
    assert (outcome.status, outcome.err) == (2, f"tilecheck: error: {message}\n")


def test_mistyped_selector_in_configuration_gets_a_suggestion(project, capsys):
    write(project, {"k.py": KERNEL, "tilecheck.toml": 'ignore = ["nested-paralel"]\n'})
    outcome = run(capsys, "k.py")
    assert outcome.err == (
        "tilecheck: error: tilecheck.toml: `ignore`: unknown rule selector: `nested-paralel` "
        "(did you mean `nested-parallel`?)\n"
    )


def test_mistyped_rule_name_gets_a_suggestion(project, capsys):
    outcome = run(capsys, "rule", "nested-paralel")
    assert (outcome.status, outcome.err) == (
        2,
        "tilecheck: error: unknown rule `nested-paralel` (did you mean `nested-parallel`? "
        "`tilecheck rules` lists them)\n",
    )


def test_python_m_tilecheck_does_not_import_the_checked_trees_modules(tmp_path):
    import subprocess
    import sys

    marker = tmp_path / "imported"
    plant = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    write(tmp_path, {"tomllib.py": plant, "libcst/__init__.py": plant, "k.py": KERNEL})
    result = subprocess.run(
        [sys.executable, "-m", "tilecheck", "k.py", "--isolated", "--output-format", "concise"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={key: value for key, value in os.environ.items() if key != "PYTHONPATH"},
    )
    assert not marker.exists(), marker.read_text()
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("k.py:10:13: ") and " TL104 [semantic] " in result.stdout.splitlines()[0]
