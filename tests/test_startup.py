"""Start-up: the commands that need no CST (`rule`, `rules`, `backends`, discovery) import neither
libcst nor the kernel model's builders: they read the rule classes, which import neither."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tilecheck.core.docs import as_json
from tilecheck.core.registry import builtin_rules

ROOT = Path(__file__).resolve().parent.parent

# What a check needs and nothing else does: the parser, the model's builders, the PyPTO checks.
HEAVY = (
    "tilecheck.tilelang.statements",
    "tilecheck.tilelang.frontend",
    "tilecheck.lint.context",
    "tilecheck.pypto.api",
)

PROBE = (
    f"import json, sys\nHEAVY = {HEAVY!r}\n"
    "from tilecheck.__main__ import main\n"
    "status = main(json.loads(sys.argv[1]))\n"
    "heavy = sorted(m for m in sys.modules if m.split('.')[0] == 'libcst' or m in HEAVY)\n"
    "print(json.dumps([status, heavy]), file=sys.stderr)\n"
)


def heavy_imports(arguments: list[str], cwd: Path) -> tuple[int, list[str], str]:
    """Run `tilecheck ARGUMENTS` in a fresh interpreter: its exit status, the heavy modules it
    imported, and its standard output."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(arguments)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    status, heavy = json.loads(done.stderr.strip().splitlines()[-1])
    return status, heavy, done.stdout


def test_importing_every_rule_imports_neither_libcst_nor_the_model_builders():
    code = (
        "import sys\nfrom tilecheck.core.registry import builtin_rules\nrules = builtin_rules()\n"
        f"HEAVY = {HEAVY!r}\n"
        "print(len(rules), sorted(m for m in sys.modules if m.split('.')[0] == 'libcst' or m in HEAVY))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == f"{len(builtin_rules())} []\n"


@pytest.mark.parametrize(
    "arguments",
    [
        ["rules"],
        ["rules", "--output-format", "markdown"],
        ["rule", "TL101"],
        ["rule", "--all", "--output-format", "json"],
        ["backends"],
        ["backends", "cuda-sm90"],
        ["check", "--show-files", "."],
    ],
)
def test_commands_without_a_cst_import_neither_libcst_nor_the_model_builders(tmp_path, arguments):
    (tmp_path / "k.py").write_text("import tilelang.language as T\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.tilecheck]\nselect = ["TL1"]\nignore = ["nested-parallel"]\n'
    )
    status, heavy, out = heavy_imports(arguments, tmp_path)
    assert status == 0, out
    assert heavy == []
    assert out


def test_rules_are_listed_as_the_classes_say(tmp_path):
    _, _, out = heavy_imports(["rules", "--output-format", "json"], tmp_path)
    listed = json.loads(out)
    keys = ("code", "name", "grade", "summary", "fixable")
    assert listed == [{key: as_json(rule)[key] for key in keys} for rule in builtin_rules()]


def test_a_bad_selector_is_a_configuration_error_without_libcst(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.tilecheck]\nselect = ["nested-paralel"]\n')
    done = subprocess.run(
        [sys.executable, "-m", "tilecheck", "rules"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "tilecheck: error: pyproject.toml [tool.tilecheck]: `select`: unknown rule selector: "
        "`nested-paralel` (did you mean `nested-parallel`?)\n"
    )


def test_a_check_imports_the_pypto_lowering_only_for_pypto_files(tmp_path):
    (tmp_path / "k.py").write_text(
        "import tilelang.language as T\n\n\n@T.prim_func\ndef main(A: T.Tensor((4,), 'float32')):\n"
        "    with T.Kernel(1) as bx:\n        for i in T.Parallel(4):\n            A[i] = 0\n"
    )
    code = (
        "import sys\n"
        "from tilecheck.lint.engine import check_file\n"
        "result = check_file(sys.argv[1])\n"
        "print(len(result.diagnostics), 'tilecheck.pypto.api' in sys.modules)\n"
    )
    run = [sys.executable, "-c", code]
    tilelang = subprocess.run([*run, str(tmp_path / "k.py")], capture_output=True, text=True, check=True)
    assert tilelang.stdout == "0 False\n"
    (tmp_path / "p.py").write_text("import pypto.language as pl\n")
    pypto = subprocess.run([*run, str(tmp_path / "p.py")], capture_output=True, text=True, check=True)
    assert pypto.stdout == "0 True\n"
