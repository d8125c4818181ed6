"""The architecture is the tree: each layer is a folder of `tilecheck/`, and imports only point
down the layers. Every import counts, at module level or inside a function, except those under
`if TYPE_CHECKING:` (type-only); no two modules import each other, directly or not."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE, RULES = ROOT / "tilecheck", ROOT / "rules"

# Lowest first: a module may import its own layer and the layers before it. `tilecheck` itself
# (the public API, lazily re-exported) and `__main__` sit above everything.
LAYERS = [
    ("core",),  # the rule SDK: types, the rule base, typed keys, the registry, the codec
    ("source",),  # reading, decoding, parsing guards, positions, the kernel-code predicate
    ("tilelang",),  # the kernel model: TileLang's frontend, statically
    ("backends",),  # capability profiles and the verdicts that depend on them
    ("pypto",),  # the PyPTO model, checks and lowering
    ("lint",),  # the rule loop: the rules' context, suppressions, folding, fixes, coverage
    ("rules",),  # the built-in rules (the repository's rules/), one module per rule
    ("report",),  # output formats
    ("config",),  # configuration files, resolution, selection, plugins
    ("explain",),  # loop-nest pictures
    ("app",),  # the application layer: workspace, workers, cache, rewrites, lowering
    ("cli", "server"),  # the front ends, which never import each other
]
RANK = {package: rank for rank, names in enumerate(LAYERS) for package in names}


def module_files() -> dict[str, Path]:
    found = {}
    for root, prefix in ((PACKAGE, ("tilecheck",)), (RULES, ("tilecheck", "rules"))):
        for path in sorted(root.rglob("*.py")):
            parts = (*prefix, *path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, except under `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                pending += child.orelse
            else:
                pending.append(child)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = module_files()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join([*parts[: len(parts) - node.level + 1], base]).strip(".")
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            graph[name] |= {target for target in targets if target in modules and target != name}
    return graph


def layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] != "__main__" else None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for source, targets in sorted(graph.items()):
        here = layer(source)
        for target in sorted(targets):
            there = layer(target)
            if here is None or there is None or here == there:
                continue
            if RANK[there] > RANK[here] or (RANK[there] == RANK[here]):
                found.append(f"{source} -> {target}")
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _without_package_inits(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    # A package's __init__ re-exporting its submodules is the usual layout, not a cycle: a
    # submodule importing its own package gets it from sys.modules, where Python put it first.
    return {name: {t for t in targets if not name.startswith(t + ".")} for name, targets in graph.items()}


def test_every_package_has_a_layer():
    packages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()} | {"rules"}
    assert packages == set(RANK)


def test_imports_point_down_the_layers():
    assert upward_imports(import_graph()) == []


def test_no_import_cycles():
    assert cycles(_without_package_inits(import_graph())) == []


def test_the_checks_find_what_they_look_for():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert upward_imports({"tilecheck.core.x": {"tilecheck.lint.y"}, "tilecheck.lint.y": set()}) == [
        "tilecheck.core.x -> tilecheck.lint.y"
    ]
    assert upward_imports({"tilecheck.cli.x": {"tilecheck.server.y"}, "tilecheck.server.y": set()}) == [
        "tilecheck.cli.x -> tilecheck.server.y"
    ]
    tree = ast.parse("if TYPE_CHECKING:\n    import a\ndef f():\n    import b\n")
    assert [alias.name for node in _imports(tree) for alias in node.names] == ["b"]  # type: ignore[union-attr]


ENTRY_MODULES = [
    "tilecheck.core.errors",
    "tilecheck.config.resolver",
    "tilecheck.config.file",
    "tilecheck.config.plugins",
    "tilecheck.backends",
    "tilecheck.backends.profile",
    "tilecheck.lint.context",
    "tilecheck.lint.engine",
    "tilecheck.app.workspace",
    "tilecheck.cli.main",
    "tilecheck.core.registry",
    "tilecheck.rules",
]


@pytest.mark.parametrize("module", ENTRY_MODULES)
def test_imports_in_a_fresh_interpreter(module):
    result = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
