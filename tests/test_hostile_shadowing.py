"""A checked tree runs nothing: a working directory that shadows every module tilecheck and its
dependencies import (standard library and third-party, with modules that leave a marker file
when executed) executes none of them, in any front end, nor in the editor's analysis worker."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from tests.server.raw_client import RawServer

ROOT = pathlib.Path(__file__).parents[1]
KERNEL = (ROOT / "fixtures" / "examples" / "softmax_mistakes.py").read_text()
SCRIPT = pathlib.Path(sys.executable).with_name("tilecheck")
NOT_SHADOWABLE = {"tilecheck", "rules", "tests", "__main__"}  # ours (the first is `-m tilecheck`'s)
# CPython 3.10 itself imports `runpy` from the working directory for any `python -m`, before the
# module runs (3.11 imports it first): nothing tilecheck can prevent; its console script has no `-m`.
CPYTHON_OWN = {"runpy"} if sys.version_info < (3, 11) else set()

# Everything a check, a lowering, an explanation, an inventory and the server's modules import.
_IMPORTED = """
import contextlib, io, json, sys
from tilecheck.cli.main import main
for arguments in (["check", "k.py"], ["lower", "k.py"], ["explain", "k.py"], ["inventory", "k.py"]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(arguments)
import tilecheck.server.server, tilecheck.server.worker, multiprocessing.spawn, multiprocessing.forkserver
import multiprocessing.resource_tracker
print(json.dumps(sorted({name.partition(".")[0] for name in sys.modules})))
"""


def imported_top_level_modules(directory: pathlib.Path) -> list[str]:
    (directory / "k.py").write_text(KERNEL)
    output = subprocess.run(
        [sys.executable, "-I", "-c", _IMPORTED], cwd=directory, capture_output=True, text=True, check=True
    ).stdout
    names: list[str] = json.loads(output)
    return names


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """(tree, markers): the tree shadows every module name; executing one writes markers/<name>."""
    tree = tmp_path_factory.mktemp("tree")
    markers = tmp_path_factory.mktemp("markers")
    names = set(imported_top_level_modules(tree)) | set(sys.stdlib_module_names)
    names -= set(sys.builtin_module_names) | NOT_SHADOWABLE | CPYTHON_OWN
    names = {name for name in names if name.isidentifier() and not name.startswith("__editable")}
    assert {"argparse", "multiprocessing", "libcst", "json", "re", "typing", "pygls"} <= names
    for name in names:
        (tree / f"{name}.py").write_text(f"open({str(markers / name)!r}, 'w').close()\n")
        package = tree / name  # a package beats a module of the same name in one directory
        package.mkdir()
        (package / "__init__.py").write_text(f"open({str(markers / name)!r}, 'w').close()\n")
    (tree / "kernel.py").write_text(KERNEL)
    return tree, markers


def executed(markers: pathlib.Path) -> list[str]:
    found = sorted(path.name for path in markers.iterdir())
    for path in markers.iterdir():
        path.unlink()
    return found


def test_the_tree_does_shadow_what_python_c_imports(hostile):
    tree, markers = hostile
    subprocess.run([sys.executable, "-c", "import json, argparse"], cwd=tree, check=True)
    assert executed(markers) == ["argparse", "json"]


@pytest.mark.parametrize(
    "arguments",
    [
        ["check", "kernel.py"],
        ["check", "--output-format", "sarif", "."],
        ["lower", "kernel.py"],
        ["explain", "kernel.py"],
        ["inventory", "kernel.py"],
        ["--version"],
    ],
)
@pytest.mark.parametrize("how", ["script", "module"])
def test_no_front_end_runs_the_trees_modules(hostile, arguments, how):
    tree, markers = hostile
    command = [str(SCRIPT)] if how == "script" else [sys.executable, "-m", "tilecheck"]
    result = subprocess.run([*command, *arguments], cwd=tree, capture_output=True, text=True)
    assert executed(markers) == []
    assert "Traceback" not in result.stderr
    if arguments == ["--version"]:
        assert result.stdout.startswith("tilecheck ")
    elif arguments[0] == "check":
        assert result.returncode == 1
        assert "TL104" in result.stdout


@pytest.mark.parametrize(
    "command", [["-m", "tilecheck", "server"], ["-m", "tilecheck.server"]], ids=["tilecheck", "server"]
)
def test_the_server_and_its_worker_run_none_of_the_trees_modules(hostile, command):
    tree, markers = hostile
    server = RawServer(str(tree), command=[sys.executable, *command])
    try:
        server.initialize(str(tree))
        uri = server.open(str(tree / "kernel.py"), KERNEL)
        codes = [diagnostic["code"] for diagnostic in server.diagnostics(uri)]
        assert server.finish() == 0
    finally:
        server.kill()
    assert executed(markers) == []
    assert codes.count("TL104") == 2


def test_the_analysis_worker_does_not_work_in_the_workspace(tmp_path):
    """Its working directory, sys.path and flags as a trusted local plugin sees them when
    imported. On 3.10 the server re-executes itself with `-I` (its worker inherits the flag) and
    carries its sys.path over: a `PYTHONPATH` entry, which `-I` alone would drop, is still there."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    extra = tmp_path / "on-pythonpath"
    extra.mkdir()
    report = tmp_path / "seen.json"
    (workspace / "seeing.py").write_text(
        "import json, os, sys\n"
        f"open({str(report)!r}, 'w').write(json.dumps([os.getcwd(), sys.path, sys.flags.isolated]))\n"
    )
    (workspace / "pyproject.toml").write_text('[tool.tilecheck]\nplugins = ["seeing"]\n')
    (workspace / "kernel.py").write_text(KERNEL)
    environment = {"TILECHECK_ALLOW_PLUGINS": "1", "PYTHONPATH": str(extra)}
    server = RawServer(str(workspace), env=environment)
    try:
        server.initialize(str(workspace))
        server.diagnostics(server.open(str(workspace / "kernel.py"), KERNEL))
        server.finish()
    finally:
        server.kill()
    cwd, path, isolated = json.loads(report.read_text())
    assert cwd == os.path.dirname(os.__file__)
    assert not cwd.startswith(str(workspace))
    assert "" not in path
    assert str(extra) in path
    assert isolated == (sys.version_info < (3, 11))  # 3.11+ relies on PYTHONSAFEPATH instead
