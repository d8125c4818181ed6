"""CPython's parser is reached through `tilecheck.source.python_ast` only (one lock, cpython#106905):
no direct `ast.parse`, no `ast.literal_eval`, and no libcst `evaluated_value` (a `literal_eval`
without the lock, which crashed the two-thread test in CI)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCKED = ROOT / "tilecheck" / "source" / "python_ast.py"


UNLOCKED_NAMES = {"literal_eval", "evaluated_value"}


def _names_unlocked(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in UNLOCKED_NAMES
    return isinstance(node, ast.ImportFrom) and any(alias.name in UNLOCKED_NAMES for alias in node.names)


def _direct_calls(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "parse":
            if isinstance(node.value, ast.Name) and node.value.id == "ast":
                lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr in UNLOCKED_NAMES:
            if not (isinstance(node.value, ast.Name) and node.value.id == "python_ast"):
                lines.append(node.lineno)
        elif _names_unlocked(node):
            lines.append(node.lineno)
    return sorted(lines)


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


def test_the_check_sees_unlocked_literal_evaluation(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import ast\n"
        "from ast import literal_eval\n"
        "a = ast.literal_eval('1')\n"
        "b = node.evaluated_value\n"
        "c = python_ast.literal_eval(node.value)\n"
    )
    assert _direct_calls(sample) == [2, 3, 4]


def test_literal_eval_gives_what_libcst_gives():
    import libcst as cst

    from tilecheck.source import python_ast

    for text in ["0x_1F", "1_000", "0o17", "1e3", "'a\\n'", "b'x'", "3j"]:
        node = cst.parse_expression(text)
        assert python_ast.literal_eval(node.value) == node.evaluated_value
