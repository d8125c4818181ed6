"""A batch worker keeps the trees of the project files its checks read (`source.parsed_files`):
a helper module imported by many kernel files is parsed once per worker, and a changed file is
parsed again (never an old tree for new bytes)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tilecheck.app.workspace import Workspace, check_task
from tilecheck.source.parsed_files import ParsedFiles

HELPER = """import tilelang.language as T


@T.macro
def fill(local):
    for i in T.Parallel(64):
        local[i] = 0
"""

CLEAN_HELPER = HELPER.replace("for i in T.Parallel(64):", "for i in T.serial(64):")

KERNEL = """import tilelang.language as T
from common import fill


@T.prim_func
def main(A: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        loc = T.alloc_local((64,), "float32")
        fill(loc)
"""


def _parse_counting(calls: list[bytes]):
    def parse(data: bytes) -> ast.Module:
        calls.append(data)
        return ast.parse(data)

    return parse


def test_the_same_bytes_are_parsed_once_and_new_bytes_again():
    parsed, calls = ParsedFiles(), []
    first = parsed.python("/p/a.py", b"x = 1\n", _parse_counting(calls))
    assert parsed.python("/p/a.py", b"x = 1\n", _parse_counting(calls)) is first
    changed = parsed.python("/p/a.py", b"x = 2\n", _parse_counting(calls))
    assert changed is not first
    assert calls == [b"x = 1\n", b"x = 2\n"]
    assert parsed.hits == 1


def test_the_least_recently_used_file_goes_first():
    parsed, calls = ParsedFiles(max_files=2), []
    for name in ("a", "b", "a", "c", "a", "b"):
        parsed.python(f"/p/{name}.py", b"pass\n", _parse_counting(calls))
    assert len(calls) == 4  # a, b, c, then b again (dropped for c; a was used more recently)


def test_a_parse_that_raises_is_not_kept():
    parsed = ParsedFiles()

    def failing(data: bytes) -> object:
        raise MemoryError

    with pytest.raises(MemoryError):
        parsed.python("/p/a.py", b"x = 1\n", failing)
    calls: list[bytes] = []
    parsed.python("/p/a.py", b"x = 1\n", _parse_counting(calls))
    assert calls == [b"x = 1\n"]


def test_libcst_trees_are_kept_by_text():
    parsed = ParsedFiles()
    module = parsed.libcst("/p/a.py", "x = 1\n")
    assert parsed.libcst("/p/a.py", "x = 1\n") is module
    assert parsed.libcst("/p/a.py", "x = 2\n").code == "x = 2\n"


def _check(workspace: Workspace, path: Path, parsed: ParsedFiles | None):
    analysis = check_task((str(path), workspace.file_settings(str(path)), None), parsed)
    return [(d.code, d.span.line, d.span.column, d.message) for d in analysis.diagnostics]


def test_kernel_files_sharing_a_helper_get_the_results_they_get_alone(tmp_path):
    (tmp_path / "common.py").write_text(HELPER)
    for name in ("k1.py", "k2.py"):
        (tmp_path / name).write_text(KERNEL)
    workspace = Workspace(cwd=str(tmp_path))
    parsed = ParsedFiles()
    alone = [_check(workspace, tmp_path / name, None) for name in ("k1.py", "k2.py")]
    together = [_check(workspace, tmp_path / name, parsed) for name in ("k1.py", "k2.py")]
    assert together == alone
    assert [code for code, *_ in alone[0]] == ["TL104"]
    assert alone[0][0][1:3] == (9, 8)
    assert parsed.hits == 2  # the helper's CPython tree and its libcst tree, for k2.py

    (tmp_path / "common.py").write_text(CLEAN_HELPER)  # same path, new bytes: parsed again
    assert _check(workspace, tmp_path / "k1.py", parsed) == []
