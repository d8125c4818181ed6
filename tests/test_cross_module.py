"""Kernels that take `T`, macros and loaders from the project's own modules, read (never
imported): `fixtures/projects/`, the bounds of that reading, and the cache's invalidation."""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

import pytest

from tests.fixture_expectations import FIXTURES, file_expectations
from tilecheck.app.workspace import Options, Workspace
from tilecheck.lint.engine import check_file
from tilecheck.source.project_files import imported_files

PROJECT = FIXTURES / "projects" / "kernels_pkg"
HELPERS = {"__init__.py", "tl.py", "loader.py", "common.py"}
KERNEL_FILES = sorted(p for p in PROJECT.glob("*.py") if p.name not in HELPERS)


@pytest.mark.parametrize("path", KERNEL_FILES, ids=lambda p: p.name)
def test_project_kernel_file(path):
    expected = file_expectations(path)
    assert expected, "every kernel file has a violating kernel"
    found = [(d.span.line, d.span.column + 1, d.code) for d in check_file(str(path)).diagnostics]
    assert sorted(found) == sorted(expected)


@pytest.mark.parametrize("name", ["tl.py", "loader.py", "__init__.py"])
def test_helper_modules_are_clean(name):
    assert check_file(str(PROJECT / name)).diagnostics == []


def test_a_macro_from_another_module_is_reported_at_the_call_naming_its_file_and_line():
    result = check_file(str(PROJECT / "cross_macros.py"))
    (finding,) = [d for d in result.diagnostics if d.code == "TL104"]
    assert (finding.span.line, finding.span.column) == (22, 12)
    assert finding.message.endswith("(in macro `put`, common.py, line 16)")
    inside = [r for r in finding.related if r.path is not None]
    assert [(r.path, r.span.line, r.span.column, r.message) for r in inside] == [
        (str(PROJECT / "common.py"), 16, 4, "in macro `put`")
    ]
    # the fix would edit the allocation, which is in this file: it stays offered
    assert finding.fix is not None and finding.fix.edits[0].span.line == 20


def test_an_allocation_in_another_module_gets_no_fix(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/mac.py": "import tilelang.language as T\n\n\n@T.macro\ndef bad(A):\n"
                      "    loc = T.alloc_local((64,), \"float32\")\n    for i in T.Parallel(64):\n"
                      "        loc[i] = A[i]\n",
        "pkg/k.py": "from .mac import bad\nfrom .mac import T\n\n\n@T.prim_func\n"
                    "def main(A: T.Tensor((64,), \"float32\")):\n    with T.Kernel(1) as bx:\n        bad(A)\n",
    })  # fmt: skip
    (finding,) = check_file(str(tmp_path / "pkg" / "k.py")).diagnostics
    assert (finding.code, finding.span.line, finding.span.column, finding.fix) == ("TL104", 8, 8, None)
    assert {(r.path, r.span.line) for r in finding.related} == {
        (str(tmp_path / "pkg" / "mac.py"), 6),
        (str(tmp_path / "pkg" / "mac.py"), 7),
        (str(tmp_path / "pkg" / "mac.py"), 8),
    }


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


KERNEL_USING_T = (
    'from .helpers import T\n\n\n@T.prim_func\ndef main(A: T.Tensor((64,), "float32")):\n'
    '    with T.Kernel(1) as bx:\n        loc = T.alloc_local((64,), "float32")\n'
    "        for i in T.Parallel(64):\n            loc[i] = A[i]\n"
)


def codes(path: Path) -> list[tuple[int, int, str]]:
    return [(d.span.line, d.span.column + 1, d.code) for d in check_file(str(path)).diagnostics]


def test_an_unresolved_helper_gets_the_note_naming_the_module(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/k.py": KERNEL_USING_T})
    (note,) = check_file(str(tmp_path / "pkg" / "k.py")).diagnostics
    assert (note.code, note.span.line, note.span.column) == ("TL006", 4, 1)
    assert (
        "it comes from `.helpers`, which tilecheck could not follow (no such file in the project)"
        in note.message
    )


@pytest.mark.parametrize(
    ("helper", "reason"),
    [
        ("import tilelang.language as T\nx = (\n", "it does not parse"),
        ("import tilelang.language as T\n" + "# padding\n" * 120_000, "larger than 1024 KiB"),
    ],
)
def test_a_helper_that_cannot_be_parsed_or_is_too_large_is_unresolved(tmp_path, helper, reason):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": helper, "pkg/k.py": KERNEL_USING_T})
    (note,) = check_file(str(tmp_path / "pkg" / "k.py")).diagnostics
    assert note.code == "TL006"
    assert f"`.helpers`, which tilecheck could not follow ({reason})" in note.message


def test_a_reexport_chain_is_followed_up_to_the_depth_bound(tmp_path):
    # k -> h1 -> h2 -> h3 -> h4 (imports tilelang): four hops are followed, five are not
    files = {"pkg/__init__.py": "", "pkg/k.py": KERNEL_USING_T.replace(".helpers", ".h1")}
    for hop in range(1, 4):
        files[f"pkg/h{hop}.py"] = f"from .h{hop + 1} import T\n"
    files["pkg/h4.py"] = "import tilelang.language as T\n"
    write(tmp_path, files)
    assert codes(tmp_path / "pkg" / "k.py") == [(9, 13, "TL104")]
    write(tmp_path, {"pkg/h4.py": "from .h5 import T\n", "pkg/h5.py": "import tilelang.language as T\n"})
    assert [code for *_, code in codes(tmp_path / "pkg" / "k.py")] == ["TL006"]


def test_an_import_cycle_terminates_unresolved(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/helpers.py": "from .other import T\n",
        "pkg/other.py": "from .helpers import T\n",
        "pkg/k.py": KERNEL_USING_T,
    })  # fmt: skip
    assert [code for *_, code in codes(tmp_path / "pkg" / "k.py")] == ["TL006"]


def test_star_imports_and_absolute_imports_from_a_parent_folder(tmp_path):
    write(tmp_path, {
        "proj/tlx/__init__.py": "from tilelang import language as T\n",
        "proj/kernels/k.py": KERNEL_USING_T.replace("from .helpers import T", "from tlx import *"),
    })  # fmt: skip
    assert codes(tmp_path / "proj" / "kernels" / "k.py") == [(9, 13, "TL104")]


def test_the_checked_project_is_never_imported(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "raise SystemExit('imported!')\n",
        "pkg/helpers.py": "raise SystemExit('imported!')\nimport tilelang.language as T\n",
        "pkg/k.py": KERNEL_USING_T,
    })  # fmt: skip
    assert codes(tmp_path / "pkg" / "k.py") == [(9, 13, "TL104")]


def test_the_cache_depends_on_the_helper_modules(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "[tool.tilecheck]\n",
        "pkg/__init__.py": "",
        "pkg/helpers.py": "import tilelang.language as T\n",
        "pkg/k.py": KERNEL_USING_T,
    })  # fmt: skip
    kernel = str(tmp_path / "pkg" / "k.py")
    assert str(tmp_path / "pkg" / "helpers.py") in imported_files(kernel, KERNEL_USING_T)

    def run():
        workspace = Workspace(Options(cache=True), cwd=str(tmp_path))
        result = workspace.check_files(workspace.discover([str(tmp_path)]), jobs=1)
        cache = workspace.result_cache()
        assert cache is not None
        found = [(os.path.basename(d.path), d.span.line, d.code) for d in result.diagnostics]
        return found, cache.hits, cache.misses

    assert run() == ([("k.py", 9, "TL104")], 0, 3)
    assert run() == ([("k.py", 9, "TL104")], 3, 0)
    write(tmp_path, {"pkg/helpers.py": "import numpy as T\n"})  # `T` is no longer TileLang's
    found, hits, misses = run()
    assert (hits, misses) == (1, 2)  # __init__.py hits; helpers.py and the kernel that reads it miss
    assert [code for *_, code in found] == ["TL006"]
    shutil.rmtree(tmp_path / ".tilecheck_cache")


# TileLang 0.1.15's verdict on each fixture kernel, imported as its package's module in the
# oracle venv (`tools/oracle/questions.py fixtures/projects`, recorded in tools/oracle/ANSWERS.md).
ORACLE = {
    ("cross_helpers.py", "violating"): "Nested",
    ("cross_helpers.py", "clean"): None,
    ("cross_macros.py", "imported_macro"): "Nested",
    ("cross_macros.py", "imported_local_store"): "LocalIndex",
    ("cross_macros.py", "factory_macro"): "Nested",
    ("cross_macros.py", "macro_in_variable"): "Nested",
    ("cross_macros.py", "clean"): None,
    ("lazy_loader.py", "violating"): "Nested",
    ("lazy_loader.py", "clean"): None,
    ("local_loader.py", "violating"): "LocalIndex",
    ("local_loader.py", "clean"): None,
    ("methods.py", "violating"): "Nested",
    ("methods.py", "clean"): None,
    ("module_alias.py", "violating"): "Nested",
    ("module_alias.py", "clean"): None,
    ("package_reexport.py", "violating"): "Nested",
    ("package_reexport.py", "clean"): None,
    ("relative_import.py", "violating"): "LocalIndex",
    ("relative_import.py", "clean"): None,
}
FAMILY = {"TL101": "Nested", "TL102": "Nested", "TL103": "Nested", "TL104": "LocalIndex", "TL105": "Fragment"}


def test_the_fixture_projects_agree_with_tilelang():
    assert {name for name, _ in ORACLE} == {path.name for path in KERNEL_FILES}
    for (name, kernel), verdict in ORACLE.items():
        path = PROJECT / name
        (function,) = [
            node
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.FunctionDef) and node.name == kernel
        ][:1]
        lines = range(function.lineno, (function.end_lineno or function.lineno) + 1)
        families = {FAMILY[d.code] for d in check_file(str(path)).diagnostics if d.span.line in lines}
        assert families == ({verdict} if verdict else set()), (name, kernel)


def test_every_file_the_resolver_reads_is_a_cache_dependency(tmp_path):
    write(tmp_path, {
        "proj/lib/__init__.py": "from .tl import T\n",
        "proj/lib/tl.py": "import tilelang.language as T\n",
        "proj/lib/mac.py": "from . import T\n\n\n@T.macro\ndef zero(A):\n    for i in T.Parallel(4):\n"
                           "        A[i] = 0\n",
        "proj/k.py": "import lib\nfrom lib.mac import zero\n\n\n@lib.T.prim_func\n"
                     "def main(A: lib.T.Tensor((4,), \"float32\")):\n    with lib.T.Kernel(1) as bx:\n"
                     "        for i in lib.T.Parallel(4):\n            A[i] = 1\n            zero(A)\n",
    })  # fmt: skip
    kernel = tmp_path / "proj" / "k.py"
    assert codes(kernel) == [(10, 13, "TL101")]
    dependencies = set(imported_files(str(kernel), kernel.read_text()))
    for name in ("lib/__init__.py", "lib/tl.py", "lib/mac.py"):
        assert str(tmp_path / "proj" / name) in dependencies


def test_a_kernel_calling_a_macro_from_an_unparsable_module_gets_the_note(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/common.py": "import tilelang.language as T\n\n\n@T.macro\ndef load(A):\n    A[0] = (\n",
        "pkg/k.py": "import tilelang.language as T\n\nfrom .common import load\n\n\n@T.prim_func\n"
                    "def main(A: T.Tensor((64,), \"float32\")):\n    with T.Kernel(1) as bx:\n"
                    "        for i in T.Parallel(64):\n            load(A)\n",
    })  # fmt: skip
    (note,) = check_file(str(tmp_path / "pkg" / "k.py")).diagnostics
    assert (note.code, note.span.line, note.span.column) == ("TL006", 10, 12)
    assert note.message == (
        "TileLang code that tilecheck did not check: what the kernel calls as `load` (line 10) "
        "(`load` comes from `.common`, which tilecheck could not follow (it does not parse))"
    )


METHOD_KERNEL = """import tilelang.language as T


class Pipelines:
    def __init__(self, stages=2):
        self.stages = stages

    def build(self):
        @T.prim_func
        def main(A: T.Tensor((64,), "float32")):
            with T.Kernel(1, threads=128) as bx:
                for i in T.Parallel(64):
                    for k in T.Pipelined(4, num_stages=self.stages):
                        A[i] = A[i] + 1.0

        return main
"""


@pytest.mark.parametrize(
    ("construction", "expected"),
    [
        ("KERNEL = Pipelines().build()\n", [(13, 30, "TL102")]),  # the `__init__` default: 2
        ("KERNEL = Pipelines(stages=0).build()\n", []),  # another value: unknown, no finding
        ("KERNEL = Pipelines(0).build()\n", []),
    ],
)
def test_self_attributes_take_the_init_default_unless_constructed_with_arguments(
    tmp_path, construction, expected
):
    path = tmp_path / "k.py"
    path.write_text(METHOD_KERNEL + "\n\n" + construction)
    assert codes(path) == expected


BUILDER = """import tilelang.language as T


class Builder:
    def make_kernel(self, with_tail=False):
        @T.prim_func
        def main(A: T.Tensor((64, 64), "float32")):
            with T.Kernel(1, threads=128) as bx:
                for i in T.Parallel(8):
                    if with_tail:
                        A[i, 0] = 1.0
                        for j in T.Parallel(8):
                            A[i, j] = 2.0

        return main


"""


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("KERNEL = Builder().make_kernel(with_tail=True)\n", [(12, 34, "TL101")]),
        ("builder = Builder()\nKERNEL = builder.make_kernel(True)\n", [(12, 34, "TL101")]),
        ("KERNEL = Builder().make_kernel()\n", []),  # the default: the branch is not built
    ],
)
def test_a_kernel_factory_method_is_built_with_the_arguments_of_its_calls(tmp_path, call, expected):
    path = tmp_path / "k.py"
    path.write_text(BUILDER + call)
    assert codes(path) == expected
