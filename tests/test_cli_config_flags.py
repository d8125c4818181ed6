"""Configuration from the command line: `--config KEY=VALUE`, the exclude and per-file-ignores
flags, and the fixability settings (`fixable`, `unfixable`, `extend-safe-fixes`, `extend-unsafe-fixes`)."""

from __future__ import annotations

import pytest

from tests.support import KERNEL, run, write

UNUSED = "x = 1  # tilecheck: ignore[TL101]\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    write(tmp_path, {"k.py": KERNEL, "tests/t.py": KERNEL, "legacy/l.py": KERNEL})
    return tmp_path


def found(capsys, *args: str) -> list[tuple[str, int, str]]:
    outcome = run(capsys, ".", "--no-cache", "--output-format", "json", *args)
    assert outcome.status in (0, 1), outcome.err
    return [(path, line, code) for path, line, _, code in outcome.findings()]


def files(capsys, *args: str) -> list[str]:
    return run(capsys, ".", "--show-files", *args).out.splitlines()


def test_exclude_flags(project, capsys):
    assert files(capsys) == ["k.py", "legacy/l.py", "tests/t.py"]
    assert files(capsys, "--exclude", "legacy") == ["k.py", "tests/t.py"]
    assert files(capsys, "--exclude", "legacy,tests") == ["k.py"]
    assert files(capsys, "--extend-exclude", "tests", "--extend-exclude", "k.py") == ["legacy/l.py"]
    write(project, {"tilecheck.toml": 'extend-exclude = ["legacy"]\n'})
    assert files(capsys, "--extend-exclude", "tests") == ["k.py"]  # stacks on the file's
    assert files(capsys, "--exclude", "tests") == ["k.py"]  # `exclude` is not `extend-exclude`
    write(project, {"tilecheck.toml": 'exclude = ["legacy"]\n'})
    assert files(capsys) == ["k.py", "tests/t.py"]
    assert files(capsys, "--exclude", "tests") == ["k.py", "legacy/l.py"]  # replaces the file's exclude
    # `exclude` replaces the defaults, as in a file
    write(project, {".venv/v.py": KERNEL})
    assert files(capsys, "--exclude", "tests") == ["k.py", ".venv/v.py", "legacy/l.py"]


def test_per_file_ignores_flags(project, capsys):
    ignored = found(capsys, "--per-file-ignores", "tests/*.py:TL104,tests/*.py:TL105", "--select", "TL1")
    assert [f for f in ignored if f[0] == "t.py"] == [("t.py", 15, "TL101")]
    assert len([f for f in ignored if f[0] == "k.py"]) == 3
    write(project, {"tilecheck.toml": '[per-file-ignores]\n"legacy/**" = ["TL101"]\n'})
    replaced = found(capsys, "--per-file-ignores", "tests/*.py:TL101")
    assert [f[1:] for f in replaced if f[0] == "l.py"] == [(10, "TL104"), (12, "TL105"), (15, "TL101")]
    extended = found(capsys, "--extend-per-file-ignores", "tests/*.py:TL101")
    assert [f[1:] for f in extended if f[0] == "l.py"] == [(10, "TL104"), (12, "TL105")]
    assert [f[1:] for f in extended if f[0] == "t.py"] == [(10, "TL104"), (12, "TL105")]
    outcome = run(capsys, ".", "--per-file-ignores", "tests/*.py")
    assert (outcome.status, outcome.err) == (
        2,
        "tilecheck: error: --per-file-ignores: `tests/*.py` is not PATTERN:CODE (e.g. `tests/*.py:nested-parallel`)\n",
    )
    outcome = run(capsys, ".", "--extend-per-file-ignores", "tests/*.py:TL1O1")
    assert outcome.err == (
        'tilecheck: error: command line: `extend-per-file-ignores` "tests/*.py": unknown rule selector: '
        "`TL1O1` (did you mean `TL101`?)\n"
    )


def test_config_key_value_overrides_every_file(project, capsys):
    write(project, {"tests/tilecheck.toml": 'select = ["TL104"]\n'})
    assert found(capsys, "--config", 'select = ["TL101"]') == [
        ("k.py", 15, "TL101"), ("l.py", 15, "TL101"), ("t.py", 15, "TL101")]  # fmt: skip
    assert found(
        capsys, "--config", 'select=["TL105"]', "--config", 'extend-exclude=["legacy", "tests"]'
    ) == [("k.py", 12, "TL105")]
    write(project, {"tilecheck.toml": '[severity]\nTL105 = "warning"\n'})
    outcome = run(capsys, "k.py", "--config", 'severity.TL104 = "info"', "--output-format", "concise")
    assert [line.split(": ")[1] for line in outcome.out.splitlines()[:3]] == ["note", "warning", "error"]
    config = run(capsys, "k.py", "--config", "output-format = 'concise'", "--select", "TL101")
    assert config.out.splitlines()[0].startswith("k.py:15:22: error: TL101 [semantic] Nested")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("select=1", "--config `select=1`: `select` must be an array of rule codes, prefixes or names, got an integer"),
        ("selct=[]", "--config `selct=[]`: unknown key `selct` (did you mean `select`?); known keys: extend, "
         "select, extend-select, ignore, per-file-ignores, extend-per-file-ignores, exclude, extend-exclude, "
         "extend-include, fixable, unfixable, extend-safe-fixes, extend-unsafe-fixes, backend, tilelang-version, "
         "plugins, respect-gitignore, "
         "output-format, severity, backends, per-file-timeout, per-file-memory"),
        ("output-format=concise", '--config `output-format=concise`: not a TOML `KEY = VALUE` assignment (a TOML '
         'string needs quotes: output-format = "concise"): Invalid value (at line 1, column 15)'),
        ("select=TL101", '--config `select=TL101`: not a TOML `KEY = VALUE` assignment (a TOML array of strings: '
         'select = ["TL101"]): Invalid value (at line 1, column 8)'),
        ('extend="a.toml"', "--config `extend=\"a.toml\"`: `extend` names a file to inherit; give it as --config PATH"),
        ('per-file-timeout="x"', '--config `per-file-timeout="x"`: `per-file-timeout` must be a number of '
         "seconds, 0 or more (0: no limit), got `x`"),
        ('select=["TL1O1"]', "command line: `select`: unknown rule selector: `TL1O1` (did you mean `TL101`?)"),
    ],
)  # fmt: skip
def test_config_key_value_errors_name_the_key(project, capsys, value, message):
    outcome = run(capsys, ".", "--config", value)
    assert (outcome.status, outcome.err) == (2, f"tilecheck: error: {message}\n")


def test_config_path_and_assignments_combine(project, capsys):
    write(project, {"other.toml": 'select = ["TL104"]\n'})
    assert found(capsys, "--config", "other.toml", "--config", 'extend-select = ["TL105"]', "--extend-exclude=legacy,tests") == [
        ("k.py", 10, "TL104"), ("k.py", 12, "TL105")]  # fmt: skip
    outcome = run(capsys, ".", "--config", "other.toml", "--config", "k.py")
    assert (
        outcome.err
        == "tilecheck: error: --config: only one configuration file can be given (got other.toml and k.py)\n"
    )
    assert found(capsys, "--isolated", "--config", 'select = ["TL105"]', "--extend-exclude=legacy,tests") == [
        ("k.py", 12, "TL105")
    ]


def test_fixability_settings(project, capsys):
    write(project, {"k.py": KERNEL + UNUSED})

    def diff(*args: str) -> tuple[int, str]:
        outcome = run(capsys, "k.py", "--diff", "--no-cache", *args)
        return outcome.status, outcome.err

    assert diff() == (1, "Would fix 1 diagnostic (1 more fix available with `--unsafe-fixes`).\n")
    assert diff("--config", 'extend-safe-fixes = ["TL104"]') == (1, "Would fix 2 diagnostics.\n")
    assert diff("--config", 'unfixable = ["TL901"]') == (
        0, "No diagnostics would be fixed (1 fix available with `--unsafe-fixes`).\n")  # fmt: skip
    assert diff("--config", 'fixable = ["TL9"]') == (1, "Would fix 1 diagnostic.\n")
    assert diff("--config", 'extend-unsafe-fixes = ["TL9"]', "--config", 'unfixable = ["TL104"]') == (
        0, "No diagnostics would be fixed (1 fix available with `--unsafe-fixes`).\n")  # fmt: skip
    # Both lists: the more specific selector wins, a tie is unsafe.
    both = (
        "--config",
        'extend-safe-fixes = ["TL104", "TL9"]',
        "--config",
        'extend-unsafe-fixes = ["TL1", "TL901"]',
    )
    assert diff(*both) == (1, "Would fix 1 diagnostic (1 more fix available with `--unsafe-fixes`).\n")
    outcome = run(capsys, "k.py", "--output-format", "concise", "--config", 'unfixable = ["ALL"]')
    assert outcome.out.splitlines()[-1] == "Found 3 errors, 1 warning in 1 file."
    write(project, {"tilecheck.toml": 'unfixable = ["TL1O4"]\n'})
    assert run(capsys, "k.py").err == (
        "tilecheck: error: tilecheck.toml: `unfixable`: unknown rule selector: `TL1O4` (did you mean `TL104`?)\n"
    )


def test_fixability_changes_the_cached_result(project, capsys):
    write(project, {"k.py": KERNEL + UNUSED})
    first = run(capsys, "k.py", "--output-format", "concise").out.splitlines()[-1]
    assert first == "[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`)."
    write(project, {"tilecheck.toml": 'extend-safe-fixes = ["TL104"]\n'})
    assert (
        run(capsys, "k.py", "--output-format", "concise").out.splitlines()[-1]
        == "[*] 2 fixable with `--fix`."
    )
