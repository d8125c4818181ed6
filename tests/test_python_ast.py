"""CPython's parser is reached through `tilecheck.python_ast` only (one lock, cpython#106905)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCKED = ROOT / "tilecheck" / "python_ast.py"


def _direct_calls(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "parse"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "ast"
    ]


def test_library_code_never_calls_ast_parse_directly():
    sources = sorted((ROOT / "tilecheck").rglob("*.py")) + sorted((ROOT / "rules").rglob("*.py"))
    offenders = {
        str(path.relative_to(ROOT)): lines
        for path in sources
        if path.resolve() != LOCKED and (lines := _direct_calls(path))
    }
    assert offenders == {}


def test_the_check_sees_a_direct_call(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import ast\n\nx = 1\ntree = ast.parse('x')\n")
    assert _direct_calls(sample) == [4]
