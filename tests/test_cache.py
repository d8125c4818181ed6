"""The content cache: hits, misses, invalidation by content, configuration and sibling modules,
concurrent writers and corrupt entries."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
from pathlib import Path

import pytest

from tests.support import ALL_FINDINGS, CLEAN, KERNEL
from tilecheck.app.cache import CACHE_DIR_ENV, ResultCache, clean, default_cache_dir, settings_fingerprint
from tilecheck.app.workspace import Options, Workspace

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def check(root: Path, *paths: str, cache_dir: Path | None = None, **options):
    """(findings as (file, line, column, code), hits, misses) of one cached run in `root`."""
    workspace = Workspace(
        Options(cache=True, cache_dir=str(cache_dir) if cache_dir else None, **options), cwd=str(root)
    )
    run = workspace.check_files(workspace.discover([str(root / p) for p in paths or (".",)]), jobs=1)
    cache = workspace.result_cache()
    assert cache is not None
    found = [(os.path.relpath(d.path, root), d.span.line, d.span.column, d.code) for d in run.diagnostics]
    return found, cache.hits, cache.misses, run


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(
        tmp_path, {"pyproject.toml": "[tool.tilecheck]\n", "a.py": KERNEL, "b.py": CLEAN, "sub/c.py": KERNEL}
    )
    return tmp_path


# ALL_FINDINGS has the report's 1-based columns; spans are 0-based.
EXPECTED = [("a.py", line, column - 1, code) for line, column, code in ALL_FINDINGS] + [
    (os.path.join("sub", "c.py"), line, column - 1, code) for line, column, code in ALL_FINDINGS
]


def test_a_second_run_reads_every_result_from_the_cache(project):
    first, hits, misses, _ = check(project)
    assert (first, hits, misses) == (EXPECTED, 0, 3)
    second, hits, misses, run = check(project)
    assert (second, hits, misses) == (EXPECTED, 3, 0)
    cold = Workspace(Options(), cwd=str(project)).check_files(run.files, jobs=1)
    assert run.diagnostics == cold.diagnostics  # fixes, help, related: all of it
    assert run.analyses[str(project / "a.py")].text == KERNEL  # the report's snippets need it


def test_the_cache_lives_in_the_project_root_with_a_tag_and_a_gitignore(project):
    check(project / "sub", cache_dir=None)  # no configuration in sub/: the root's applies
    cache = project / ".tilecheck_cache"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"


def test_cache_dir_option_and_environment(project, tmp_path_factory, monkeypatch):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.setenv(CACHE_DIR_ENV, str(elsewhere / "env"))
    assert default_cache_dir(str(project)) == str(elsewhere / "env")
    assert default_cache_dir(str(project), str(elsewhere / "flag")) == str(elsewhere / "flag")
    check(project)
    assert (elsewhere / "env" / "CACHEDIR.TAG").is_file()
    assert not (project / ".tilecheck_cache").exists()
    monkeypatch.delenv(CACHE_DIR_ENV)
    assert default_cache_dir(str(project)) == str(project / ".tilecheck_cache")


def test_a_changed_file_misses_alone(project):
    check(project)
    (project / "b.py").write_text(CLEAN + "\nx = 1\n")
    _, hits, misses, _ = check(project)
    assert (hits, misses) == (2, 1)
    (project / "a.py").write_text(CLEAN)
    found, hits, misses, _ = check(project)
    assert (hits, misses) == (2, 1)
    assert found == EXPECTED[3:]


def test_a_configuration_change_invalidates_exactly_the_files_it_affects(project):
    write(project, {"sub/tilecheck.toml": "\n"})
    check(project)
    write(project, {"sub/tilecheck.toml": 'ignore = ["TL104"]\n'})
    found, hits, misses, _ = check(project)
    assert (hits, misses) == (2, 1)  # a.py and b.py keep their results
    assert found == EXPECTED[:3] + [e for e in EXPECTED[3:] if e[3] != "TL104"]
    write(project, {"sub/tilecheck.toml": '[severity]\nTL105 = "info"\n'})
    _, hits, misses, run = check(project)
    assert (hits, misses) == (2, 1)
    severities = {d.code: d.severity.value for d in run.diagnostics if d.path.endswith("c.py")}
    assert severities == {"TL104": "error", "TL105": "info", "TL101": "error"}
    write(project, {"sub/tilecheck.toml": "\n"})
    _, hits, misses, _ = check(project)
    assert (hits, misses) == (3, 0)  # back to the first configuration: its entries are still there


def test_command_line_selection_and_backend_are_part_of_the_key(project):
    check(project)
    found, hits, misses, _ = check(project, select=("TL101",))
    assert (hits, misses) == (0, 3)
    assert [e[3] for e in found] == ["TL101", "TL101"]
    _, hits, misses, _ = check(project, backend="cuda-sm90")
    assert (hits, misses) == (0, 3)
    _, hits, misses, _ = check(project)
    assert (hits, misses) == (3, 0)


def test_the_settings_fingerprint_covers_rules_backend_and_severities(project):
    workspace = Workspace(Options(), cwd=str(project))
    base = workspace.file_settings(str(project / "a.py"))
    other = Workspace(Options(ignore=("TL104",)), cwd=str(project)).file_settings(str(project / "a.py"))
    backend = Workspace(Options(backend="cuda-sm90"), cwd=str(project)).file_settings(str(project / "a.py"))
    prints = {settings_fingerprint(s) for s in (base, other, backend)}
    assert len(prints) == 3
    again = Workspace(Options(), cwd=str(project)).file_settings(str(project / "a.py"))
    assert settings_fingerprint(again) == settings_fingerprint(base)


def test_a_changed_sibling_constant_module_invalidates_the_pypto_file_that_reads_it(tmp_path):
    shutil.copytree(FIXTURES / "pypto" / "model", tmp_path / "model")
    write(tmp_path, {"pyproject.toml": "[tool.tilecheck]\n"})
    # TL422: values the kernels carry by reassignment, which PyPTO's own pass does not carry
    mlp = [(os.path.join("model", "mlp.py"), line, 16, "TL422") for line in (18, 19)]
    found, _, misses, _ = check(tmp_path)
    assert (found, misses) == ([*mlp, (os.path.join("model", "rmsnorm.py"), 19, 12, "TL422")], 4)
    config = tmp_path / "model" / "config.py"
    config.write_text(config.read_text().replace("STAGES = 4", "STAGES = 0"))
    found, hits, misses, _ = check(tmp_path)
    # config.py itself, and the two kernels that import from it; __init__.py imports nothing
    assert (hits, misses) == (1, 3)
    assert found == [*mlp, (os.path.join("model", "rmsnorm.py"), 15, 48, "TL403")]


def test_a_new_module_in_an_import_location_invalidates(tmp_path):
    shutil.copytree(FIXTURES / "pypto" / "model", tmp_path / "model")
    write(tmp_path, {"pyproject.toml": "[tool.tilecheck]\n"})
    check(tmp_path)
    # `from .config import ...` now finds a package first: config/__init__.py is not looked at
    # (config.py wins), but `import helpers` looks at model/helpers.py, which now exists.
    write(
        tmp_path, {"model/rmsnorm.py": "import helpers\n" + (tmp_path / "model" / "rmsnorm.py").read_text()}
    )
    check(tmp_path)
    write(tmp_path, {"model/helpers.py": "X = 1\n"})
    _, hits, misses, _ = check(tmp_path)
    assert (hits, misses) == (3, 2)  # rmsnorm.py, which looked for it, and helpers.py, new


def _corrupt_every_entry(cache: Path, how: str) -> int:
    entries = [p for p in cache.rglob("*.json")]
    for entry in entries:
        if how == "truncate":
            entry.write_bytes(entry.read_bytes()[:37])
        elif how == "garbage":
            entry.write_bytes(b"\xff\x00 not json")
        else:  # valid JSON of the wrong shape
            entry.write_text(json.dumps({"content": 1, "diagnostics": "no"}))
    return len(entries)


@pytest.mark.parametrize("how", ["truncate", "garbage", "shape"])
def test_corrupt_entries_are_misses_never_errors(project, how):
    check(project)
    assert _corrupt_every_entry(project / ".tilecheck_cache", how) == 3
    found, hits, misses, _ = check(project)
    assert (found, hits, misses) == (EXPECTED, 0, 3)
    found, hits, misses, _ = check(project)  # rewritten
    assert (found, hits, misses) == (EXPECTED, 3, 0)


def test_an_entry_for_other_content_is_a_miss(project):
    check(project)
    entry = next((project / ".tilecheck_cache").rglob("*.json"))
    data = json.loads(entry.read_bytes().split(b"\n", 1)[1])  # after the format and MAC line
    (project / data["path"]).write_text(KERNEL + "\n")  # same entry file, other bytes
    _, hits, misses, _ = check(project)
    assert (hits, misses) == (2, 1)


def _run_in_child(root: str, cache_dir: str, queue) -> None:
    found, *_ = check(Path(root), cache_dir=Path(cache_dir))
    queue.put(found)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_concurrent_runs_write_the_same_cache_without_corrupting_it(project, tmp_path_factory):
    write(project, {f"many/k{i}.py": KERNEL if i % 2 else CLEAN for i in range(24)})
    cache_dir = tmp_path_factory.mktemp("shared") / "cache"
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    children = [
        context.Process(target=_run_in_child, args=(str(project), str(cache_dir), queue)) for _ in range(4)
    ]
    for child in children:
        child.start()
    results = [queue.get(timeout=300) for _ in children]
    for child in children:
        child.join(timeout=60)
        assert child.exitcode == 0
    assert all(result == results[0] for result in results)
    assert not [p for p in cache_dir.rglob("*") if p.name.startswith(".tmp-")]  # no leftovers
    found, hits, misses, _ = check(project, cache_dir=cache_dir)
    assert (found, hits, misses) == (results[0], 27, 0)


def test_internal_errors_are_not_stored(project, monkeypatch):
    from tilecheck.rules.tilelang.nested_parallel import NestedParallel

    def crash(self, ctx):
        raise RuntimeError("boom")

    monkeypatch.setattr(NestedParallel, "check", crash)
    _, _, misses, run = check(project, "a.py")
    assert misses == 1 and run.internal_error
    monkeypatch.undo()
    found, hits, misses, _ = check(project, "a.py")
    assert (found, hits, misses) == (EXPECTED[:3], 0, 1)


def test_an_unwritable_cache_directory_only_costs_the_cache(project):
    blocker = project / "blocked"
    blocker.write_text("a file where the cache directory should be\n")
    found, _, misses, _ = check(project, cache_dir=blocker / "cache")
    assert (found, misses) == (EXPECTED, 3)


def test_clean_removes_the_cache(project):
    check(project)
    assert clean(str(project / ".tilecheck_cache")) is True
    assert not (project / ".tilecheck_cache").exists()
    assert clean(str(project / ".tilecheck_cache")) is False


def test_a_new_tilecheck_source_changes_the_tool_fingerprint(tmp_path, monkeypatch):
    import tilecheck.app.cache as cache_module

    first = ResultCache(str(tmp_path)).tool
    monkeypatch.setattr(cache_module, "__version__", "99.0")
    assert ResultCache(str(tmp_path)).tool != first


# -- the command line ------------------------------------------------------------------------------


@pytest.fixture
def cli_project(project, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    monkeypatch.delenv(CACHE_DIR_ENV, raising=False)
    return project


def test_the_command_line_caches_by_default_and_reports_the_same(cli_project, capsys):
    from tests.support import run

    cold = run(capsys, "check", "--output-format", "full")
    assert (cli_project / ".tilecheck_cache" / "CACHEDIR.TAG").is_file()
    warm = run(capsys, "check", "--output-format", "full")
    assert (warm.status, warm.out, warm.err) == (cold.status, cold.out, cold.err) == (1, cold.out, "")
    assert "   |\n10 |             loc[i] = A[i, 0]\n" in warm.out  # snippets come from the cached text


def test_no_cache_neither_reads_nor_writes(cli_project, capsys):
    from tests.support import run

    assert run(capsys, "check", "--no-cache").status == 1
    assert not (cli_project / ".tilecheck_cache").exists()


def test_cache_dir_flag_and_clean(cli_project, capsys, tmp_path_factory):
    from tests.support import run

    elsewhere = tmp_path_factory.mktemp("cache") / "here"
    run(capsys, "check", "--cache-dir", str(elsewhere))
    assert (elsewhere / "CACHEDIR.TAG").is_file()
    outcome = run(capsys, "clean", "--cache-dir", str(elsewhere))
    assert (outcome.status, elsewhere.exists()) == (0, False)
    run(capsys, "check")
    outcome = run(capsys, "clean")
    assert outcome.status == 0
    assert outcome.err == "Removed .tilecheck_cache\n"
    assert not (cli_project / ".tilecheck_cache").exists()
    assert run(capsys, "clean").err == "No cache at .tilecheck_cache\n"


def test_results_that_gave_up_on_a_file_are_checked_again(project):
    write(project, {"deep.py": "x = " + "+".join(["1"] * 20000) + "\n"})
    found, _, misses, _ = check(project, "deep.py")
    assert [f[3] for f in found] == ["TL004"] and misses == 1
    _, hits, misses, _ = check(project, "deep.py")
    assert (hits, misses) == (0, 1)


def _entry_of(cache: Path) -> dict:
    (entry,) = cache.rglob("*.json")
    return json.loads(entry.read_bytes().split(b"\n", 1)[1])


def test_an_absent_package_is_recorded_once_and_anything_made_in_it_invalidates(tmp_path):
    source = "import tilelang.language as T\nfrom deep.pkg.mod import X\n"
    write(tmp_path, {"pyproject.toml": "[tool.tilecheck]\n", "k.py": source})
    check(tmp_path)
    entry = _entry_of(tmp_path / ".tilecheck_cache")
    deep = str(tmp_path / "deep")
    assert deep in entry["absent"]  # not deep/pkg/mod.py, deep/pkg/mod/__init__.py, ...
    assert not [
        p for p in [*entry["absent"], *(d for d, _ in entry["dependencies"])] if p.startswith(deep + os.sep)
    ]
    assert check(tmp_path)[1:3] == (1, 0)
    (tmp_path / "deep" / "other").mkdir(parents=True)  # not the module, but on its way: a miss
    assert check(tmp_path)[1:3] == (0, 1)
