"""Coverage: how many kernels and loops the model saw per file, in `--statistics` and SARIF,
through the worker pool and the content cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import run, write
from tilecheck.app.workspace import Options, Workspace
from tilecheck.lint.coverage import Coverage
from tilecheck.lint.engine import check_source

# The README's `--statistics` example project (docs/examples/statistics/kernels):
# tile.py: one kernel definition built twice (two factory calls); loops: the 2-D `T.Parallel` (one
# loop), the macro's two loops (inlined twice, counted once each) and the `T.serial` unrolled by the
# Python `for` (counted once): 4. pto.py: two DSL functions; loops: `pl.pipeline` and `pl.range` (a
# Python `range` is not a DSL loop). wrapped.py: TileLang code under a decorator tilecheck does not
# understand: nothing modeled, TL006.
EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "statistics" / "kernels"
TILE, PTO, WRAPPED = ((EXAMPLE / name).read_text() for name in ("tile.py", "pto.py", "wrapped.py"))
FILES = {"tile.py": TILE, "pto.py": PTO, "wrapped.py": WRAPPED, "plain.py": "x = 1\n"}


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    write(tmp_path, {"pyproject.toml": "[tool.tilecheck]\n", **FILES})
    return tmp_path


@pytest.mark.parametrize(
    ("name", "expected"),
    [("tile.py", Coverage(1, 4)), ("pto.py", Coverage(2, 2)), ("wrapped.py", Coverage(0, 0))],
)
def test_counts_come_from_the_model(name, expected):
    analysis = check_source(FILES[name], name)
    assert analysis.coverage == expected
    assert analysis.detached().coverage == expected  # measured before the model is dropped


def test_an_unparsable_file_has_nothing_modeled():
    assert check_source("def (:\n", "bad.py").coverage == Coverage(0, 0)


STATISTICS = """\
1  TL006      unmodeled-kernel-code
Found 1 note in 1 file.

Modeled: 3 kernels, 6 loops in 2 of 4 files
  kernels  loops  file
        2      2  pto.py
        1      4  tile.py
        0      0  wrapped.py  (kernel code not modeled: TL006)
"""


def test_statistics_lists_the_kernels_and_loops_modeled_per_file(project, capsys):
    outcome = run(capsys, ".", "--statistics", "--no-cache")
    assert (outcome.status, outcome.out) == (0, STATISTICS)


def test_statistics_of_a_clean_run_without_kernels(project, capsys):
    outcome = run(capsys, "plain.py", "--statistics", "--no-cache")
    assert outcome.out == "All checks passed!\n\nModeled: no kernels in 1 file\n"


def test_machine_formats_keep_their_shape(project, capsys):
    """`json` stays a list of diagnostics and `--statistics --output-format json` a list of
    rules, as ruff's: the coverage record is in SARIF only, where a property bag is allowed."""
    diagnostics = json.loads(run(capsys, ".", "--output-format", "json", "--no-cache").out)
    assert [d["code"] for d in diagnostics] == ["TL006"]
    rules = json.loads(run(capsys, ".", "--statistics", "--output-format", "json", "--no-cache").out)
    assert rules == [
        {"code": "TL006", "name": "unmodeled-kernel-code", "count": 1, "fixable": False, "fix": None}
    ]


def _record(uri: str, kernels: int, loops: int, unmodeled: bool) -> dict[str, object]:
    location = {"uri": uri, "uriBaseId": "%SRCROOT%"}
    return {"artifactLocation": location, "kernels": kernels, "loops": loops, "unmodeledCode": unmodeled}


SARIF_COVERAGE = {
    "filesChecked": 4,
    "kernels": 3,
    "loops": 6,
    "files": [
        _record("pto.py", 2, 2, False),
        _record("tile.py", 1, 4, False),
        _record("wrapped.py", 0, 0, True),
    ],
}


def test_sarif_has_a_coverage_record_per_file_in_run_properties(project, capsys):
    document = json.loads(run(capsys, ".", "--output-format", "sarif", "--no-cache").out)
    assert document["runs"][0]["properties"] == {"coverage": SARIF_COVERAGE}


def test_coverage_survives_the_cache_and_the_worker_pool(project, capsys):
    first = run(capsys, ".", "--output-format", "sarif", "--jobs", "2")
    second = run(capsys, ".", "--output-format", "sarif", "--jobs", "2")  # every result from the cache
    for outcome in (first, second):
        assert json.loads(outcome.out)["runs"][0]["properties"] == {"coverage": SARIF_COVERAGE}
    workspace = Workspace(Options(cache=True), cwd=str(project))
    checked = workspace.check_files(workspace.discover(["."]), jobs=2)
    cache = workspace.result_cache()
    assert cache is not None and (cache.hits, cache.misses) == (4, 0)
    found = {Path(path).name: analysis.coverage for path, analysis in checked.analyses.items()}
    assert found == {
        "tile.py": Coverage(1, 4),
        "pto.py": Coverage(2, 2),
        "wrapped.py": Coverage(0, 0),
        "plain.py": Coverage(0, 0),
    }


def test_a_cache_entry_without_coverage_is_a_miss(project):
    workspace = Workspace(Options(cache=True), cwd=str(project))
    workspace.check_files(workspace.discover(["tile.py"]), jobs=1)
    entries = list((project / ".tilecheck_cache").rglob("*.json"))
    assert len(entries) == 1
    from tilecheck.app import cache_store

    entry = json.loads(entries[0].read_bytes().split(b"\n", 1)[1])  # after the format and MAC line
    assert entry["coverage"] == [1, 4, None]  # no backend selected: no shared-memory counts
    del entry["coverage"]  # as format 1 wrote it, sealed as an entry of this user's would be
    entries[0].write_bytes(cache_store.seal(cache_store.user_secret(), entries[0].stem, entry))
    again = Workspace(Options(cache=True), cwd=str(project))
    checked = again.check_files(again.discover(["tile.py"]), jobs=1)
    cache = again.result_cache()
    assert cache is not None and (cache.hits, cache.misses) == (0, 1)
    assert [analysis.coverage for analysis in checked.analyses.values()] == [Coverage(1, 4)]


def test_a_model_that_failed_is_not_built_again_for_the_counts(monkeypatch):
    """TL004 (the model is too large) and TL005 (it crashed): nothing modeled, and the model is
    built once, by the rules, not again when the counts are measured."""
    import tilecheck.lint.context

    calls = []
    analyze = tilecheck.lint.context.analyze

    def counting(module, imports, kernels=None):
        calls.append(1)
        return analyze(module, imports, kernels)

    monkeypatch.setattr(tilecheck.lint.context, "analyze", counting)
    levels = "".join(f"{'    ' * (2 + n)}for c{n} in {list(range(60))}:\n" for n in range(4))
    runaway = (
        "import tilelang.language as T\n\n\n@T.prim_func\n"
        'def main(A: T.Tensor((64,), "float32")):\n    with T.Kernel(1) as bx:\n'
        + levels
        + "    " * 6
        + "A[c3] = 0\n"
    )
    analysis = check_source(runaway, "k.py")
    assert [d.code for d in analysis.diagnostics] == ["TL004"]
    built = len(calls)
    assert analysis.detached().coverage == Coverage(0, 0)
    assert len(calls) == built

    def broken(module, imports, kernels=None):
        calls.append(1)
        raise ValueError("model bug")

    monkeypatch.setattr(tilecheck.lint.context, "analyze", broken)
    calls.clear()
    crashed = check_source(TILE, "k.py")
    assert [d.code for d in crashed.diagnostics] == ["TL005"]
    assert (crashed.detached().coverage, len(calls)) == (Coverage(0, 0), 1)


def test_kernels_written_with_t_from_a_project_module_are_counted(tmp_path, monkeypatch, capsys):
    """No `tilelang` in the file itself: `T` comes from a helper module of the project."""
    monkeypatch.chdir(tmp_path)
    kernel = WRAPPED.replace(
        "import tilelang.language as T\nfrom mylib import my_wrap\n", "from .tl_utils import T\n"
    )
    kernel = kernel.replace("@my_wrap\ndef main(A):", '@T.prim_func\ndef main(A: T.Tensor((8,), "float32")):')
    write(tmp_path, {"__init__.py": "", "tl_utils.py": "import tilelang.language as T\n", "k.py": kernel})
    assert check_source(kernel, str(tmp_path / "k.py")).coverage == Coverage(1, 1)
    outcome = run(capsys, "k.py", "--statistics", "--no-cache", "--isolated")
    assert outcome.out.endswith(
        "Modeled: 1 kernel, 1 loop in 1 of 1 file\n  kernels  loops  file\n        1      1  k.py\n"
    )
