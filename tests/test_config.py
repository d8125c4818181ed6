"""Configuration discovery, inheritance, validation, per-file settings and debug-config."""

import json
import os

import pytest

from tests.support import ALL_FINDINGS, KERNEL, run, write
from tilecheck.config.patterns import PatternTable
from tilecheck.config.resolver import ConfigError, Overrides, PathPatterns, Resolver


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    return tmp_path


def codes(outcome):
    return [(line, column, code) for _, line, column, code in outcome.findings()]


def located(outcome):
    return [
        (d["path"].replace(os.sep, "/"), d["line"], d["column"], d["code"]) for d in json.loads(outcome.out)
    ]


# -- discovery -------------------------------------------------------------------------------


def test_no_configuration_means_every_rule(project, capsys):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "k.py", "--output-format", "json")
    assert codes(outcome) == ALL_FINDINGS
    assert outcome.status == 1


def test_pyproject_table_applies(project, capsys):
    write(
        project,
        {"pyproject.toml": '[tool.tilecheck]\nignore = ["TL104", "nested-parallel"]\n', "k.py": KERNEL},
    )
    assert codes(run(capsys, "k.py", "--output-format", "json")) == [(12, 13, "TL105")]


def test_nearest_configuration_wins_without_inheriting(project, capsys):
    write(
        project,
        {
            "pyproject.toml": '[tool.tilecheck]\nignore = ["TL104"]\n',
            "sub/tilecheck.toml": 'ignore = ["TL105"]\n',
            "sub/k.py": KERNEL,
            "k.py": KERNEL,
        },
    )
    outcome = run(capsys, ".", "--output-format", "json")
    assert outcome.findings() == [
        ("k.py", 12, 13, "TL105"),
        ("k.py", 15, 22, "TL101"),
        ("k.py", 10, 13, "TL104"),  # sub/k.py: only the nearest file applies
        ("k.py", 15, 22, "TL101"),
    ]
    paths = [d["path"] for d in json.loads(outcome.out)]
    assert paths == ["k.py", "k.py", os.path.join("sub", "k.py"), os.path.join("sub", "k.py")]


def test_pyproject_without_table_is_skipped(project, capsys):
    write(
        project,
        {
            "tilecheck.toml": 'ignore = ["TL104"]\n',
            "sub/pyproject.toml": "[tool.ruff]\nline-length = 100\n",
            "sub/k.py": KERNEL,
        },
    )
    assert codes(run(capsys, "sub/k.py", "--output-format", "json")) == [(12, 13, "TL105"), (15, 22, "TL101")]


def test_file_precedence_in_one_directory(project):
    write(
        project,
        {
            "pyproject.toml": '[tool.tilecheck]\nignore = ["TL101"]\n',
            "tilecheck.toml": 'ignore = ["TL102"]\n',
            ".tilecheck.toml": 'ignore = ["TL103"]\n',
        },
    )
    resolver = Resolver(cwd=str(project))
    assert resolver.for_directory(str(project)).config.path == str(project / ".tilecheck.toml")
    os.remove(project / ".tilecheck.toml")
    assert Resolver(cwd=str(project)).for_directory(str(project)).config.path == str(
        project / "tilecheck.toml"
    )


def test_extend_inherits_and_selection_stacks(project, capsys):
    write(
        project,
        {
            "pyproject.toml": '[tool.tilecheck]\nselect = ["TL1"]\nignore = ["TL104"]\n',
            "sub/tilecheck.toml": 'extend = "../pyproject.toml"\nextend-select = ["TL104"]\nignore = ["TL101"]\n',
            "sub/k.py": KERNEL,
        },
    )
    assert codes(run(capsys, "sub/k.py", "--output-format", "json")) == [(10, 13, "TL104"), (12, 13, "TL105")]


def test_select_in_nearer_file_starts_over(project, capsys):
    write(
        project,
        {
            "pyproject.toml": '[tool.tilecheck]\nignore = ["TL104"]\nextend-exclude = ["skipme"]\n',
            "sub/tilecheck.toml": 'extend = "../pyproject.toml"\nselect = ["TL104"]\n',
            "sub/k.py": KERNEL,
        },
    )
    assert codes(run(capsys, "sub/k.py", "--output-format", "json")) == [(10, 13, "TL104")]


def test_command_line_wins_over_configuration(project, capsys):
    write(project, {"tilecheck.toml": 'select = ["TL104"]\n', "k.py": KERNEL})
    outcome = run(capsys, "k.py", "--select", "TL101,TL105", "--ignore", "TL105", "--output-format", "json")
    assert codes(outcome) == [(15, 22, "TL101")]
    outcome = run(capsys, "k.py", "--extend-select", "TL105", "--output-format", "json")
    assert codes(outcome) == [(10, 13, "TL104"), (12, 13, "TL105")]


def test_most_specific_selector_wins(project, capsys):
    write(project, {"tilecheck.toml": 'select = ["TL104"]\nignore = ["TL1"]\n', "k.py": KERNEL})
    assert codes(run(capsys, "k.py", "--output-format", "json")) == [(10, 13, "TL104")]


def test_config_flag_and_isolated(project, capsys):
    write(
        project,
        {"tilecheck.toml": 'ignore = ["TL1"]\n', "other.toml": 'select = ["TL105"]\n', "k.py": KERNEL},
    )
    assert codes(run(capsys, "k.py", "--output-format", "json")) == []
    assert codes(run(capsys, "k.py", "--config", "other.toml", "--output-format", "json")) == [
        (12, 13, "TL105")
    ]
    assert codes(run(capsys, "k.py", "--isolated", "--output-format", "json")) == ALL_FINDINGS


# -- per-file settings -------------------------------------------------------------------------


def test_per_file_ignores(project, capsys):
    write(
        project,
        {
            "pyproject.toml": '[tool.tilecheck.per-file-ignores]\n"legacy/*.py" = ["TL104"]\n'
            '"test_*.py" = ["symbolic-parallel-fragment", "TL101"]\n',
            "legacy/k.py": KERNEL,
            "test_k.py": KERNEL,
            "legacy/deep/k.py": KERNEL,
        },
    )
    outcome = run(capsys, ".", "--output-format", "json")
    assert located(outcome) == [
        ("legacy/deep/k.py", 10, 13, "TL104"),  # `*` does not cross directories
        ("legacy/deep/k.py", 12, 13, "TL105"),
        ("legacy/deep/k.py", 15, 22, "TL101"),
        ("legacy/k.py", 12, 13, "TL105"),
        ("legacy/k.py", 15, 22, "TL101"),
        ("test_k.py", 10, 13, "TL104"),  # a pattern without `/` matches the file name anywhere
    ]


def test_per_file_ignores_paths(project, capsys):
    write(
        project,
        {
            "pyproject.toml": '[tool.tilecheck.per-file-ignores]\n"legacy/**" = ["TL1"]\n',
            "legacy/deep/k.py": KERNEL,
            "k.py": KERNEL,
        },
    )
    outcome = run(capsys, ".", "--output-format", "json")
    assert [(d["path"], d["code"]) for d in json.loads(outcome.out)] == [
        ("k.py", "TL104"),
        ("k.py", "TL105"),
        ("k.py", "TL101"),
    ]


def test_exclude_and_extend_exclude(project, capsys):
    write(
        project,
        {
            "pyproject.toml": '[tool.tilecheck]\nextend-exclude = ["generated", "kernels/old_*.py"]\n',
            "generated/k.py": KERNEL,
            "kernels/old_k.py": KERNEL,
            "kernels/k.py": KERNEL,
            "build/k.py": KERNEL,  # excluded by default
        },
    )
    outcome = run(capsys, ".", "--output-format", "json")
    assert {d["path"] for d in json.loads(outcome.out)} == {os.path.join("kernels", "k.py")}
    # Explicit paths are checked anyway, unless --force-exclude (as pre-commit passes them).
    assert codes(run(capsys, "kernels/old_k.py", "--output-format", "json")) == ALL_FINDINGS
    outcome = run(capsys, "kernels/old_k.py", "generated/k.py", "--force-exclude", "--output-format", "json")
    assert (outcome.status, outcome.findings()) == (0, [])


def test_exclude_replaces_the_defaults(project, capsys):
    write(
        project,
        {
            "pyproject.toml": '[tool.tilecheck]\nexclude = ["vendor"]\n',
            "build/k.py": KERNEL,
            "vendor/k.py": KERNEL,
        },
    )
    outcome = run(capsys, ".", "--output-format", "json")
    assert {d["path"] for d in json.loads(outcome.out)} == {os.path.join("build", "k.py")}


def test_severity_configured_down(project, capsys):
    write(project, {"tilecheck.toml": 'select = ["TL105"]\n[severity]\ncontract = "info"\n', "k.py": KERNEL})
    outcome = run(capsys, "k.py", "--output-format", "concise")
    assert outcome.status == 0
    assert outcome.out.splitlines()[-1] == "Found 1 note in 1 file."
    write(
        project, {"tilecheck.toml": 'select = ["TL105"]\n[severity]\ncontract = "info"\nTL105 = "warning"\n'}
    )
    outcome = run(capsys, "k.py", "--output-format", "json")
    assert (outcome.status, json.loads(outcome.out)[0]["severity"]) == (1, "warning")


def test_optimization_findings_cannot_be_configured_up(project, capsys):
    write(project, {"tilecheck.toml": '[severity]\noptimization = "error"\n', "k.py": KERNEL})
    outcome = run(capsys, "k.py")
    assert outcome.status == 2
    assert "tilecheck.toml: `severity`: optimization findings are never errors" in outcome.err


def test_backend_from_configuration(project, capsys, monkeypatch):
    import tilecheck.lint.engine

    original = tilecheck.lint.engine.check_source
    record = project / "seen.txt"  # files are checked in worker processes: spy through a file

    def spy(data, path="<string>", rules=None, backend=None, **kwargs):
        with open(record, "a") as handle:
            handle.write(f"{backend}\n")
        return original(data, path, rules, backend, **kwargs)

    def seen():
        found = record.read_text().splitlines() if record.exists() else []
        record.unlink(missing_ok=True)
        return found

    monkeypatch.setattr(tilecheck.lint.engine, "check_source", spy)
    write(
        project,
        {
            "tilecheck.toml": 'backend = "cuda-sm90"\n',
            "k.py": KERNEL,
            "sub/tilecheck.toml": 'backend = "mine"\n[backends.mine]\nbase = "cuda-sm80"\n',
            "sub/k.py": KERNEL,
        },
    )
    run(capsys, "k.py", "sub/k.py")
    assert seen() == ["cuda-sm90", "mine"]
    run(capsys, "k.py", "--backend", "hip-gfx942")
    assert seen() == ["hip-gfx942"]


@pytest.mark.parametrize(
    ("files", "args", "message"),
    [
        (
            {"tilecheck.toml": 'selct = ["TL1"]\n'},
            [],
            "tilecheck.toml: unknown key `selct` (did you mean `select`?)",
        ),
        (
            {"tilecheck.toml": 'select = "TL1"\n'},
            [],
            "tilecheck.toml: `select` must be an array of rule codes, prefixes or names, got `TL1`",
        ),
        (
            {"tilecheck.toml": 'select = ["TL777"]\n'},
            [],
            "tilecheck.toml: `select`: unknown rule selector: `TL777`",
        ),
        (
            {"pyproject.toml": '[tool.tilecheck]\nignore = ["nested-paralel"]\n'},
            [],
            "pyproject.toml [tool.tilecheck]: `ignore`: unknown rule selector: `nested-paralel`",
        ),
        (
            {"tilecheck.toml": '[per-file-ignores]\n"a/*.py" = ["XX1"]\n'},
            [],
            'tilecheck.toml: `per-file-ignores` "a/*.py": unknown rule selector: `XX1`',
        ),
        (
            {"tilecheck.toml": 'output-format = "xml"\n'},
            [],
            "tilecheck.toml: `output-format` must be one of full, concise, grouped, json, json-lines, sarif, github, gitlab, junit, got `xml`",
        ),
        (
            {"tilecheck.toml": 'backend = "cuda-sm70"\n'},
            [],
            "tilecheck.toml: `backend`: unknown backend `cuda-sm70` (known: cuda-sm80",
        ),
        (
            {"tilecheck.toml": "backends = 3\n"},
            [],
            "tilecheck.toml: `backends` must be a table of backend profile tables, got an integer",
        ),
        ({"tilecheck.toml": "select = [\n"}, [], "Invalid TOML in tilecheck.toml: "),
        (
            {"tilecheck.toml": 'extend = "missing.toml"\n'},
            [],
            "tilecheck.toml: `extend`: no such file missing.toml",
        ),
        (
            {"tilecheck.toml": 'extend = "b.toml"\n', "b.toml": 'extend = "tilecheck.toml"\n'},
            [],
            "Circular `extend` in configuration: tilecheck.toml -> b.toml -> tilecheck.toml",
        ),
        (
            {"tilecheck.toml": '[severity]\ncontract = "fatal"\n'},
            [],
            "tilecheck.toml: `severity` must be a table of grade or rule",
        ),
        ({}, ["--config", "nope.toml"], "--config: no such file nope.toml"),
        ({}, ["--backend", "gpu9000"], "--backend: unknown backend `gpu9000`"),
        ({}, ["--select", "TL777"], "Unknown rule selector: `TL777`"),
        ({}, ["--grade", "semantik"], "--grade: unknown grade `semantik`"),
        ({}, ["--output-format", "xml"], "--output-format: unknown output format `xml`"),
    ],
)
def test_bad_configuration_is_a_clear_error(project, capsys, files, args, message):
    write(project, {"k.py": KERNEL, **files})
    outcome = run(capsys, "k.py", *args)
    assert outcome.status == 2
    assert outcome.out == ""
    assert message in outcome.err, outcome.err
    assert "Traceback" not in outcome.err
    assert outcome.err.count("\n") <= 3


def test_undecodable_configuration(project, capsys):
    (project / "tilecheck.toml").write_bytes(b'select = ["\xff"]\n')
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "k.py")
    assert outcome.status == 2
    assert "tilecheck.toml" in outcome.err and "Traceback" not in outcome.err


def test_environment_output_format(project, capsys, monkeypatch):
    write(project, {"k.py": KERNEL, "tilecheck.toml": 'output-format = "github"\n'})
    assert run(capsys, "k.py").out.startswith("::error title=tilecheck (TL104)")
    monkeypatch.setenv("TILECHECK_OUTPUT_FORMAT", "concise")
    assert run(capsys, "k.py").out.startswith("k.py:10:13: error: TL104 [semantic] ")
    assert run(capsys, "k.py", "--output-format", "json-lines").out.startswith('{"path":"k.py","line":10,')
    monkeypatch.setenv("TILECHECK_OUTPUT_FORMAT", "yaml")
    outcome = run(capsys, "k.py")
    assert (outcome.status, outcome.err.strip()) == (
        2,
        "tilecheck: error: TILECHECK_OUTPUT_FORMAT: unknown output format `yaml` "
        "(choose from full, concise, grouped, json, json-lines, sarif, github, gitlab, junit)",
    )


# -- debug-config -------------------------------------------------------------------------------


def test_debug_config_shows_origins(project, capsys):
    write(
        project,
        {
            "pyproject.toml": '[tool.tilecheck]\nselect = ["TL1"]\nbackend = "cuda-sm90"\n',
            "sub/tilecheck.toml": 'extend = "../pyproject.toml"\nignore = ["TL104"]\n[per-file-ignores]\n"k.py" = ["TL105"]\n',
            "sub/k.py": KERNEL,
        },
    )
    outcome = run(capsys, "debug-config", "sub/k.py", "--extend-select", "TL9")
    lines = outcome.out.splitlines()
    assert outcome.status == 0
    assert lines[:4] == [
        "File: sub/k.py",
        "Configuration: sub/tilecheck.toml",
        "  extends: pyproject.toml [tool.tilecheck]",
        "Excluded: no",
    ]
    assert '  select                  = ["TL1"]  # pyproject.toml [tool.tilecheck]' in lines
    assert '  ignore                  = ["TL104"]  # sub/tilecheck.toml' in lines
    assert '  extend-select           = ["TL9"]  # command line' in lines
    assert '  backend                 = "cuda-sm90"  # pyproject.toml [tool.tilecheck]' in lines
    assert '  per-file-ignores        = {"k.py": ["TL105"]}  # sub/tilecheck.toml' in lines
    rules = lines[lines.index("Rules enabled for this file (13):") + 1 :]
    assert rules[0] == "  TL001  syntax-error  [meta, error]"
    assert [row.split()[0] for row in rules] == [
        "TL001", "TL002", "TL003", "TL004", "TL005", "TL007", "TL101", "TL102", "TL103", "TL901", "TL902", "TL903",
        "TL904",
    ]  # fmt: skip


def test_debug_config_of_an_excluded_file(project, capsys):
    write(project, {"build/k.py": KERNEL})
    outcome = run(capsys, "debug-config", "build/k.py", "--isolated")
    assert outcome.out.splitlines()[:3] == [
        "File: build/k.py",
        "Configuration: (--isolated; defaults)",
        "Excluded: yes (checked only when given explicitly, without --force-exclude)",
    ]


def test_debug_config_json(project, capsys):
    write(project, {"tilecheck.toml": 'select = ["TL104"]\n', "k.py": KERNEL})
    data = json.loads(run(capsys, "debug-config", "k.py", "--output-format", "json").out)
    assert data["configuration"] == ["tilecheck.toml"]
    assert data["settings"]["select"] == {"value": ["TL104"], "origin": "tilecheck.toml"}
    assert data["rules"] == ["TL001", "TL002", "TL003", "TL004", "TL005", "TL007", "TL104"]
    assert data["excluded"] is False


def test_debug_config_reports_bad_configuration(project, capsys):
    write(project, {"tilecheck.toml": "ignore = [1]\n", "k.py": KERNEL})
    outcome = run(capsys, "debug-config", "k.py")
    assert outcome.status == 2
    assert (
        "tilecheck.toml: `ignore` must be an array of rule codes, prefixes or names, got an array"
        in outcome.err
    )


# -- units ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("build", "build/x.py", True),
        ("build", "src/build/x.py", True),
        ("build", "src/builder/x.py", False),
        ("build/", "src/build/x.py", True),
        ("*_gen.py", "a/b/k_gen.py", True),
        ("kernels/*.py", "kernels/k.py", True),
        ("kernels/*.py", "kernels/sub/k.py", False),
        ("kernels/**/*.py", "kernels/sub/deep/k.py", True),
        ("kernels/**/*.py", "kernels/k.py", True),
        ("kernels/old", "kernels/old/k.py", True),
        ("./kernels/old/", "kernels/old/k.py", True),
        ("k[0-9].py", "k1.py", True),
        ("k[!0-9].py", "k1.py", False),
        ("other/*.py", "../other/k.py", False),
    ],
)
def test_path_patterns(tmp_path, pattern, path, expected):
    patterns = PathPatterns((pattern,), str(tmp_path / "root"))
    assert patterns.match(os.path.normpath(str(tmp_path / "root" / path))) is expected


def test_configuration_files_are_read_once_per_directory(project, monkeypatch):
    write(project, {"pyproject.toml": '[tool.tilecheck]\nignore = ["TL104"]\n'})
    for name in "abcde":
        (project / "pkg" / name).mkdir(parents=True)
    import tilecheck.config.file

    reads = []
    original = tilecheck.config.file.read_table
    monkeypatch.setattr(
        tilecheck.config.file, "read_table", lambda path: reads.append(path) or original(path)
    )
    resolver = Resolver(Overrides(), cwd=str(project))
    for name in "abcde":
        resolver.for_path(str(project / "pkg" / name / "k.py"))
    assert reads == [str(project / "pyproject.toml")]  # found and loaded with one read


def test_config_error_is_an_exception_not_exit(project):
    write(project, {"tilecheck.toml": "nope = 1\n"})
    with pytest.raises(ConfigError, match="unknown key `nope`"):
        Resolver(cwd=str(project)).for_directory(str(project))


# -- issue 12 §5: configuration defects ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[severity]\nTL104 = "fatal"\n',
            'tilecheck.toml: `severity` must be a table of grade or rule = "error" | "warning" | "info", '
            "but `TL104` is `fatal`",
        ),
        (
            "[severity]\nTL104 = 3\n",
            'tilecheck.toml: `severity` must be a table of grade or rule = "error" | "warning" | "info", '
            "but `TL104` is an integer",
        ),
        (
            "ignore = [1]\n",
            "tilecheck.toml: `ignore` must be an array of rule codes, prefixes or names, "
            "got an array containing an integer (`1`)",
        ),
        (
            '[per-file-ignores]\n"a/*.py" = "TL104"\n',
            "tilecheck.toml: `per-file-ignores` must be a table of glob pattern = array of rule codes, "
            "but `a/*.py` is `TL104`",
        ),
        (
            "[backends]\nmine = 1\n",
            "tilecheck.toml: `backends` must be a table of backend profile tables, but `mine` is an integer",
        ),
    ],
)
def test_wrong_types_are_named(project, capsys, text, message):
    write(project, {"tilecheck.toml": text, "k.py": KERNEL})
    outcome = run(capsys, "k.py")
    assert (outcome.status, outcome.err) == (2, f"tilecheck: error: {message}\n")


@pytest.mark.parametrize("kind", ["fifo", "directory", "symlink loop", "device", "broken symlink"])
def test_a_configuration_file_that_is_not_a_regular_file_is_an_error(project, capsys, kind):
    write(project, {"sub/k.py": KERNEL})
    target = project / "sub" / "pyproject.toml"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "directory":
        target.mkdir()
    elif kind == "symlink loop":
        os.symlink(target, target)
    elif kind == "device":
        os.symlink("/dev/zero", target)
    else:
        os.symlink(project / "nowhere.toml", target)
    expected = {
        "fifo": "it is a FIFO",
        "directory": "it is a directory",
        "symlink loop": "Too many levels of symbolic links",
        "device": "it is a device",
        "broken symlink": "it is a broken symbolic link",
    }[kind]
    outcome = run(capsys, "sub/k.py")
    assert (outcome.status, outcome.out) == (2, "")
    assert outcome.err == (
        f"tilecheck: error: Cannot read configuration file {os.path.join('sub', 'pyproject.toml')}: {expected}\n"
    )


def test_config_flag_naming_a_fifo_is_an_error_not_a_hang(project, capsys):
    os.mkfifo(project / "pipe.toml")
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "k.py", "--config", "pipe.toml")
    assert (outcome.status, outcome.err) == (
        2,
        "tilecheck: error: Cannot read configuration file pipe.toml: it is a FIFO\n",
    )


def test_deeply_nested_toml_is_a_configuration_error(project, capsys):
    write(project, {"tilecheck.toml": "x = " + "[" * 50_000 + "]" * 50_000 + "\n", "k.py": KERNEL})
    outcome = run(capsys, "k.py")
    assert outcome.status == 2
    assert outcome.err.startswith("tilecheck: error: Invalid TOML in tilecheck.toml: ")


def test_a_large_per_file_ignores_table_costs_only_the_candidates(project):
    entries = "".join(f'"kernels/gen_{i}/*.py" = ["TL104", "nested-parallel"]\n' for i in range(20_000))
    write(
        project,
        {"pyproject.toml": "[tool.tilecheck.per-file-ignores]\n" + entries + '"*_old.py" = ["TL1"]\n'},
    )
    settings = Resolver(cwd=str(project)).for_directory(str(project))
    ((table, codes),) = settings.per_file_ignores
    assert codes[7] == ("TL104", "nested-parallel")
    assert table.hits(str(project / "kernels" / "gen_7" / "k.py")) == [7]
    assert table.hits(str(project / "kernels" / "gen_7" / "k_old.py")) == [7, 20_000]
    assert table.hits(str(project / "other" / "k.py")) == []
    assert len(table._compiled) <= 3  # only the candidates were compiled, not 20,001 patterns
    rules = {rule.CODE for rule in settings.for_file(str(project / "kernels" / "gen_7" / "k.py")).rules}
    assert "TL104" not in rules and "TL101" not in rules and "TL105" in rules


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("build", "src/build/x.py", True),
        ("*_gen.py", "a/b/k_gen.py", True),
        ("kernels/*.py", "kernels/k.py", True),
        ("kernels/*.py", "kernels/sub/k.py", False),
        ("kernels/**/*.py", "kernels/sub/deep/k.py", True),
        ("kernels/old", "kernels/old/k.py", True),
        ("./kernels/old/", "kernels/old/k.py", True),
        ("k*/old/*.py", "kx/old/k.py", True),
        ("other/*.py", "../other/k.py", False),
        ("k.py", "../other/k.py", True),
    ],
)
def test_pattern_table_agrees_with_path_patterns(tmp_path, pattern, path, expected):
    root = str(tmp_path / "root")
    absolute = os.path.normpath(str(tmp_path / "root" / path))
    assert PathPatterns((pattern,), root).match(absolute) is expected
    assert PatternTable(["unrelated/x.py", pattern], root).hits(absolute) == ([1] if expected else [])


# -- severity of findings that say a file could not be analyzed --------------------------------------


@pytest.mark.parametrize("key", ["meta", "TL001", "syntax-error", "TL005"])
def test_meta_findings_cannot_be_configured_down(project, capsys, key):
    write(project, {"tilecheck.toml": f'[severity]\n{json.dumps(key)} = "info"\n', "k.py": "def (:\n"})
    outcome = run(capsys, "k.py")
    assert outcome.status == 2
    assert outcome.err == (
        f"tilecheck: error: tilecheck.toml: `severity`: `{key}` cannot be configured: a file that cannot be "
        "read, parsed or analyzed is always an error (suppression findings can be configured by code, "
        'e.g. TL901 = "warning")\n'
    )


def test_a_prefix_severity_leaves_syntax_errors_errors(project, capsys):
    write(project, {"tilecheck.toml": '[severity]\nTL = "info"\nTL901 = "warning"\n', "k.py": "def (:\n"})
    outcome = run(capsys, "k.py", "--output-format", "json")
    assert outcome.status == 1
    assert [(d["code"], d["severity"]) for d in json.loads(outcome.out)] == [("TL001", "error")]
    write(project, {"k.py": "x = 1  # tilecheck: ignore[TL104]\n"})
    outcome = run(capsys, "k.py", "--output-format", "json")
    assert [(d["code"], d["severity"]) for d in json.loads(outcome.out)] == [("TL901", "warning")]
    assert outcome.status == 1
