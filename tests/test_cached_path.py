"""A fully cached run pays for nothing heavy: settings, the rule set's identity and the cache
lookup import neither libcst, nor a rule module, nor the kernel model (`core.catalogue`), and its
output is the uncached run's, byte for byte."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tilecheck.core import catalogue
from tilecheck.core.catalogue import RuleEntry, builtin_entries
from tilecheck.core.registry import builtin_rules

KERNEL = """\
import tilelang.language as T


def build(M):
    @T.prim_func
    def main(A: T.Tensor((M,), "float32")):
        with T.Kernel(1) as bx:
            for k in T.serial(0, 4, 0):
                A[k] = 1.0

    return main
"""

PROBE = (
    "import json, sys\n"
    "from tilecheck.__main__ import main\n"
    "status = main(json.loads(sys.argv[1]))\n"
    "print(json.dumps([status, sorted(sys.modules)]), file=sys.stderr)\n"
)


def run(arguments: list[str], cwd: Path) -> tuple[int, list[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(arguments)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    status, modules = json.loads(done.stderr.strip().splitlines()[-1])
    return status, modules, done.stdout


# The measured TileLang releases and their specifiers: data the settings key on, not the model.
RELEASE_DATA = ("tilecheck.tilelang.versions", "tilecheck.tilelang.versions_data")


# What only a file that is checked (or a notebook, a rewrite, an error message, a new cache
# entry) needs: each was once imported by every cached run. `report.statistics` only with
# `--statistics`; `tomllib` only where a configuration file is read, the requirements reader
# where a requirements file is (none here).
DEFERRED = (
    "tilecheck.lint.engine",
    "tilecheck.core.registry",
    "tilecheck.core.rule",
    "tilecheck.app.workers",
    "tilecheck.app.notebooks",
    "tilecheck.source.notebook",
    "tilecheck.source.guards",
    "tilecheck.source.python_ast",
    "tilecheck.source.kernel_code",
    "tilecheck.config.requirements",
    "tomllib",
    "datetime",
    "difflib",
    "traceback",
    "secrets",
    "tempfile",
    "random",
    "signal",
    "pkgutil",
)


def deferred(modules: list[str], flags: list[str]) -> list[str]:
    unwanted = [*DEFERRED, *([] if "--statistics" in flags else ["tilecheck.report.statistics"])]
    return [name for name in unwanted if name in modules]


def heavy(modules: list[str]) -> list[str]:
    """libcst, the rule modules (not the generated table) and the kernel model's modules."""
    return [
        name
        for name in modules
        if name.split(".")[0] == "libcst"
        or (name.startswith("tilecheck.rules.") and name != catalogue.CATALOGUE_MODULE)
        or (
            name.startswith(("tilecheck.tilelang.", "tilecheck.pypto.", "tilecheck.lint.context"))
            and name not in RELEASE_DATA
        )
    ]


@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["--output-format", "json"],
        ["--statistics"],
        ["--output-format", "json", "--statistics"],
        ["--output-format", "concise", "--select", "TL2"],
    ],
)
def test_a_fully_cached_run_imports_nothing_heavy_and_prints_the_same(tmp_path, flags):
    (tmp_path / "k.py").write_text(KERNEL)
    (tmp_path / "clean.py").write_text("import tilelang.language as T\n\nX = 1\n")
    arguments = ["check", "k.py", "clean.py", "--cache-dir", str(tmp_path / "cache"), *flags]
    uncached = run([*arguments[:3], "--no-cache", *flags], tmp_path)
    first = run(arguments, tmp_path)
    second = run(arguments, tmp_path)
    assert uncached[0] == first[0] == second[0] == 1
    assert uncached[2] == first[2] == second[2]
    assert "TL205" in second[2]
    assert heavy(second[1]) == []
    assert deferred(second[1], flags) == []
    assert list(tmp_path.joinpath("cache").rglob("*.json"))  # the second run did read entries


def test_the_generated_table_is_current():
    """`make docs` regenerates it; a stale table is correct (the rules are imported) but slow."""
    assert catalogue._from_table() is not None
    assert Path(catalogue.rules_directory(), "_catalogue.py").read_text() == catalogue.render_table()


def test_the_table_states_what_the_rule_classes_state():
    assert builtin_entries() == tuple(RuleEntry.of(rule) for rule in builtin_rules())
    assert all(entry.load() is rule for entry, rule in zip(builtin_entries(), builtin_rules(), strict=True))


def test_a_changed_rule_file_makes_the_table_stale(tmp_path, monkeypatch):
    directory = tmp_path / "rules"
    directory.joinpath("meta").mkdir(parents=True)
    module = directory / "meta" / "some_rule.py"
    module.write_text("CODE = 1\n")
    recorded = catalogue.source_digests(str(directory))
    assert list(recorded) == ["meta/some_rule.py"]
    module.write_text("CODE = 2\n")
    assert catalogue.source_digests(str(directory)) != recorded
    module.write_text("CODE = 1\n")
    directory.joinpath("meta", "another.py").write_text("")
    assert catalogue.source_digests(str(directory)) != recorded
    monkeypatch.setattr(catalogue, "rules_directory", lambda: str(directory))
    assert catalogue._from_table() is None  # the real table's files are not these


def test_entry_points_are_looked_for_without_importlib_metadata(tmp_path, monkeypatch):
    from tilecheck.config import plugins

    site = tmp_path / "site"
    other = site / "other-1.0.dist-info"
    other.mkdir(parents=True)
    other.joinpath("entry_points.txt").write_text("[console_scripts]\nother = other:main\n")
    monkeypatch.setattr(sys, "path", [str(site), str(tmp_path / "missing")])
    assert plugins.may_declare_entry_points() is False
    declaring = site / "extra-1.0.dist-info"
    declaring.mkdir()
    declaring.joinpath("entry_points.txt").write_text("[tilecheck.rules]\nextra = extra\n")
    assert plugins.may_declare_entry_points() is True
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing")])
    assert plugins.may_declare_entry_points() is False
    (tmp_path / "bundle.zip").write_bytes(b"")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "bundle.zip")])
    assert plugins.may_declare_entry_points() is True  # cannot see inside: ask importlib.metadata
