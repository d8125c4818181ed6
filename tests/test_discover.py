"""Discovery: the built-in exclusions and git's ignore files (.gitignore, .ignore, info/exclude)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tilecheck.app.discover import discover
from tilecheck.app.workspace import Options, Workspace


def tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def found(root: Path, *paths: str, **options) -> list[str]:
    targets = [str(root / p) for p in paths or (".",)]
    return [os.path.relpath(p, root).replace(os.sep, "/") for p in discover(targets, **options)]


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    tree(
        tmp_path,
        {
            ".gitignore": "generated/\n*_gen.py\n/top_only.py\n!keep_gen.py\n",
            "a.py": "",
            "a_gen.py": "",
            "keep_gen.py": "",
            "top_only.py": "",
            "generated/x.py": "",
            "pkg/top_only.py": "",  # the pattern is anchored to the root
            "pkg/b_gen.py": "",
            "pkg/.gitignore": "!b_gen.py\nlocal.py\n",
            "pkg/local.py": "",
            "pkg/deeper/local.py": "",  # unanchored: matches below pkg too
            "notes.txt": "",
        },
    )
    return tmp_path


def test_gitignore_files_are_respected_inside_a_repository(repository):
    assert found(repository) == ["a.py", "keep_gen.py", "pkg/b_gen.py", "pkg/top_only.py"]


def test_respect_gitignore_false_walks_everything(repository):
    assert found(repository, respect_gitignore=False) == [
        "a.py",
        "a_gen.py",
        "keep_gen.py",
        "top_only.py",
        "generated/x.py",
        "pkg/b_gen.py",
        "pkg/local.py",
        "pkg/top_only.py",
        "pkg/deeper/local.py",
    ]


def test_info_exclude_applies_and_gitignore_files_win_over_it(repository):
    (repository / ".git" / "info" / "exclude").write_text("a.py\nkeep_gen.py\n")
    # keep_gen.py is re-included by the root .gitignore, which comes before info/exclude
    assert found(repository) == ["keep_gen.py", "pkg/b_gen.py", "pkg/top_only.py"]


def test_dot_ignore_overrides_gitignore(repository):
    tree(repository, {".ignore": "!a_gen.py\npkg/\n"})
    assert found(repository) == ["a.py", "a_gen.py", "keep_gen.py"]


def test_a_walk_from_a_subdirectory_uses_the_ignore_files_above_it(repository):
    assert found(repository, "pkg") == ["pkg/b_gen.py", "pkg/top_only.py"]
    assert found(repository, "generated") == []


def test_paths_named_explicitly_are_checked_even_when_ignored(repository):
    assert found(repository, "a_gen.py", "generated/x.py") == ["a_gen.py", "generated/x.py"]


def test_gitignore_outside_a_repository_is_not_read_but_dot_ignore_is(tmp_path):
    tree(tmp_path, {".gitignore": "a.py\n", ".ignore": "b.py\n", "a.py": "", "b.py": "", "sub/b.py": ""})
    assert found(tmp_path) == ["a.py"]


def test_a_git_file_marks_a_work_tree_too(tmp_path):
    tree(tmp_path, {".git": "gitdir: /elsewhere\n", ".gitignore": "a.py\n", "a.py": "", "b.py": ""})
    assert found(tmp_path) == ["b.py"]


def test_cache_and_tool_directories_are_skipped(tmp_path):
    tree(tmp_path, {".tilecheck_cache/x.py": "", ".ruff_cache/y.py": "", "k.py": ""})
    assert found(tmp_path) == ["k.py"]


def test_the_workspace_never_walks_into_the_result_cache(tmp_path, monkeypatch):
    """The cache (`.tilecheck_cache`, made in the project root) is in the default exclusions: a
    warm run of the shared corpus met its 1,839 entries beside the 613 files it checks."""
    tree(tmp_path, {".tilecheck_cache/ab/entry.json": "{}", ".tilecheck_cache/x.py": "", "k.py": ""})
    workspace = Workspace(Options(), cwd=str(tmp_path))
    met: list[str] = []
    included = workspace.is_included
    monkeypatch.setattr(workspace, "is_included", lambda path: met.append(path) or included(path))
    assert workspace.discover([str(tmp_path)]) == [str(tmp_path / "k.py")]
    assert met == [str(tmp_path / "k.py")]


def test_a_walk_asks_about_absolute_paths_and_yields_them_as_given(tmp_path, monkeypatch):
    tree(tmp_path, {"pkg/a.py": "", "pkg/sub/b.py": "", "c.py": ""})
    monkeypatch.chdir(tmp_path)
    asked: list[str] = []
    files = list(
        discover(
            ["."],
            excluded=lambda path, explicit: asked.append(path) and False,
            included=lambda path: asked.append(path) or path.endswith(".py"),
        )
    )
    assert files == ["./c.py", os.path.join(".", "pkg", "a.py"), os.path.join(".", "pkg", "sub", "b.py")]
    assert sorted(set(asked)) == sorted(
        str(tmp_path / name) for name in ("pkg", "pkg/sub", "c.py", "pkg/a.py", "pkg/sub/b.py")
    )


def test_a_root_through_a_symlinked_folders_parent_is_walked_where_the_system_goes(tmp_path, monkeypatch):
    """`proj/link/..` is the parent of the link's target, not `proj`: what is under it is looked
    at there (a virtual environment skipped, a link leaving it not followed), as `os.walk` lists it."""
    tree(tmp_path, {"proj/o.py": "", "other/real/r.py": "", "other/env/pyvenv.cfg": "", "other/env/v.py": ""})
    tree(tmp_path, {"other/o2.py": "", "secret/s.py": "password = 1\n"})
    (tmp_path / "proj" / "link").symlink_to(tmp_path / "other" / "real")
    (tmp_path / "other" / "evil.py").symlink_to(tmp_path / "secret" / "s.py")
    monkeypatch.chdir(tmp_path)
    root = os.path.join("proj", "link", "..")
    found = Workspace(Options(), cwd=str(tmp_path)).discover([root])
    assert found == [os.path.join(root, "o2.py"), os.path.join(root, "real", "r.py")]


def test_the_workspace_honours_the_option(repository):
    on = Workspace(Options(), cwd=str(repository)).discover([str(repository)])
    off = Workspace(Options(respect_gitignore=False), cwd=str(repository)).discover([str(repository)])
    assert len(on) == 4
    assert len(off) == 9


# -- the command line ------------------------------------------------------------------------------


@pytest.fixture
def cli_repository(repository, monkeypatch):
    monkeypatch.chdir(repository)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    return repository


def test_show_files_lists_what_would_be_checked(cli_repository, capsys):
    from tests.support import run

    outcome = run(capsys, "check", "--show-files")
    assert (outcome.status, outcome.err) == (0, "")
    assert outcome.out.splitlines() == [
        "a.py",
        "keep_gen.py",
        os.path.join("pkg", "b_gen.py"),
        os.path.join("pkg", "top_only.py"),
    ]
    outcome = run(capsys, "check", "--show-files", "--no-respect-gitignore", "generated")
    assert outcome.out.splitlines() == [os.path.join("generated", "x.py")]


def test_no_python_files_is_said_on_stderr(cli_repository, capsys):
    from tests.support import run

    outcome = run(capsys, "check", "generated")
    assert outcome.status == 0
    assert outcome.err == "tilecheck: warning: No Python files found under the given path(s)\n"


def test_respect_gitignore_in_the_configuration(cli_repository, capsys):
    from tests.support import run

    (cli_repository / "pyproject.toml").write_text("[tool.tilecheck]\nrespect-gitignore = false\n")
    assert len(run(capsys, "check", "--show-files").out.splitlines()) == 9
    assert len(run(capsys, "check", "--show-files", "--respect-gitignore").out.splitlines()) == 4
    (cli_repository / "pyproject.toml").write_text('[tool.tilecheck]\nrespect-gitignore = "no"\n')
    outcome = run(capsys, "check", "--show-files")
    assert outcome.status == 2
    assert "`respect-gitignore`" in outcome.err and "a boolean" in outcome.err


def test_a_nested_repository_has_its_own_gitignore_files_and_every_dot_ignore_above(repository):
    tree(
        repository,
        {
            "inner/.git": "gitdir: /elsewhere\n",  # a submodule's work tree
            "inner/.gitignore": "own.py\n",
            "inner/a_gen.py": "",  # the outer *_gen.py does not reach into it
            "inner/own.py": "",
            "inner/sub/c.py": "",
            "inner/sub/skipped.py": "",
            ".ignore": "skipped.py\n",  # .ignore files apply across work trees
        },
    )
    assert found(repository, "inner") == ["inner/a_gen.py", "inner/sub/c.py"]


def test_a_deep_tree_looks_each_folders_ignore_files_up_once(tmp_path, monkeypatch):
    """Not once per folder above each path: 2,000 nested folders took 17 s to walk that way."""
    from tilecheck.app import discover as module

    folder = tmp_path
    for _ in range(300):
        folder = folder / "d"
    folder.mkdir(parents=True)
    (folder / "k.py").write_text("")
    (tmp_path / ".ignore").write_text("skipped.py\n")
    looked_up = []
    real = module.IgnoreFiles._spec
    monkeypatch.setattr(
        module.IgnoreFiles, "_spec", lambda self, file: looked_up.append(file) or real(self, file)
    )
    assert found(tmp_path) == ["d/" * 300 + "k.py"]
    assert len(looked_up) == len(set(looked_up)) <= 2 * 302  # one .ignore per folder (tmp_path's parents too)
