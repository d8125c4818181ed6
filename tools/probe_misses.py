"""Silent misses of the nested-parallel check: bodies tilecheck models but where it stays quiet.

For every textual `with T.Kernel(...)`, `for ... in T.Pipelined(...)` and `for ... in
T.Parallel(...)` body of every file under the given paths (default: the shared TileLang corpus),
two copies of the file are checked:

- the *seen* copy inserts a tile operator at the top of each body (as `tools/visibility.py`
  does): a body is modeled when a finding lands on its probe;
- the *nested* copy inserts a nested `T.Parallel` that TileLang's NestedLoopChecker rejects
  ("Nested parallel loops are not allowed"). Outside a parallel loop (or in a parallel body
  without a statement that surely emits IR) the probe is a whole non-chain nest:

      _tc_probe = T.alloc_local((4,), "float32")
      for _tc_p in T.Parallel(4):
          _tc_probe[_tc_p] = 0
          for _tc_q in T.Parallel(4):
              _tc_probe[_tc_q] = 0

  In a parallel body that stores, calls or loops, it is only the inner loop: the body's own
  statements are what breaks the chain, so the probe also measures whether tilecheck sees them.

A silent miss is a modeled body whose nested probe gets no TL101. Each miss is printed with the
cause its surroundings suggest (the innermost Python construct between the function and the
body, or the body's statements), so that the counts can be read by cause.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "tilelang")
KINDS = ("Kernel", "Pipelined", "Parallel")
# A loop header TileLang fails to build (target/extent mismatch, zero or vectorized step):
# its body is never built, so nothing in it can be a miss.
UNBUILT_HEADERS = ("TL204", "TL205", "TL206")
ALLOCATION = '_tc_probe = T.alloc_local((4,), "float32")'


@dataclass
class Body:
    kind: str
    header_line: int
    first_line: int  # the line of the body's first statement
    indent: str
    in_parallel: bool
    statements_emit: bool  # a parallel body with a statement that surely emits IR
    context: str  # the innermost enclosing Python construct of interest ("if", "while", ...)


def _kind_of(call: ast.expr) -> str | None:
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in KINDS:
        return call.func.attr if isinstance(call.func.value, ast.Name) else None
    return None


def _emits(statement: ast.stmt) -> bool:
    """Whether a statement surely emits IR in a kernel (a store, a call, a loop, a block)."""
    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return any(isinstance(target, ast.Subscript) for target in targets)
    if isinstance(statement, ast.Expr):
        return isinstance(statement.value, ast.Call)
    return isinstance(statement, (ast.For, ast.While, ast.With))


def bodies(source: str) -> list[Body]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = source.splitlines()
    found: list[Body] = []

    def visit(node: ast.AST, in_parallel: bool, context: str) -> None:
        for child in ast.iter_child_nodes(node):
            kind = None
            if isinstance(child, ast.With):
                kinds = [_kind_of(item.context_expr) for item in child.items]
                kind = "Kernel" if "Kernel" in kinds else None
            elif isinstance(child, ast.For):
                kind = _kind_of(child.iter)
                kind = kind if kind in ("Pipelined", "Parallel") else None
            inner, inner_context = in_parallel, context
            if kind is not None and isinstance(child, (ast.With, ast.For)):
                first = child.body[0]
                if first.lineno > child.lineno:  # a body on its own lines
                    text = lines[first.lineno - 1]
                    indent = text[: len(text) - len(text.lstrip())]
                    emits = kind == "Parallel" and any(_emits(s) for s in child.body)
                    found.append(Body(kind, child.lineno, first.lineno, indent, in_parallel, emits, context))
                inner = in_parallel or kind == "Parallel"
                inner_context = "loop"
            elif isinstance(child, (ast.If, ast.While)):
                inner_context = "if" if isinstance(child, ast.If) else "while"
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                inner, inner_context = False, "function"
            visit(child, inner, inner_context)

    visit(tree, False, "function")
    return found


def _insert(source: str, found: list[Body], blocks: list[list[str]]) -> tuple[str, list[range]]:
    """`source` with `blocks[k]` inserted before body k's first line; each block's lines."""
    lines = source.splitlines(keepends=True)
    inserts: dict[int, list[int]] = {}
    for index, body in enumerate(found):
        inserts.setdefault(body.first_line, []).append(index)
    out: list[str] = []
    where: dict[int, range] = {}
    for number, line in enumerate(lines, 1):
        for index in inserts.get(number, []):
            start = len(out) + 1
            out.extend(blocks[index])
            where[index] = range(start, len(out) + 1)
        out.append(line)
    return "".join(out), [where[index] for index in range(len(found))]


def seen_probe(body: Body) -> list[str]:
    if body.in_parallel:
        return [f"{body.indent}T.fill(_tilecheck_probe_buffer, 0)\n"]
    return [
        f"{body.indent}for _tilecheck_probe in T.Parallel(4):\n",
        f"{body.indent}    T.fill(_tilecheck_probe_buffer, 0)\n",
    ]


def nested_probe(body: Body) -> list[str]:
    pad = body.indent
    inner = [f"{pad}for _tc_q in T.Parallel(4):\n", f"{pad}    _tc_probe[_tc_q] = 0\n"]
    if body.kind == "Parallel" and body.statements_emit:
        return [f"{pad}{ALLOCATION}\n", *inner]
    return [
        f"{pad}{ALLOCATION}\n",
        f"{pad}for _tc_p in T.Parallel(4):\n",
        f"{pad}    _tc_probe[_tc_p] = 0\n",
        *(f"    {line}" for line in inner),
    ]


def cause(body: Body) -> str:
    if body.context in ("if", "while"):
        return f"under a Python `{body.context}`"
    if body.kind == "Parallel" and body.statements_emit:
        return "the body's own statements"
    return "other"


def python_files(paths: list[str]) -> list[str]:
    files: list[str] = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
        for directory, _, names in os.walk(path):
            files.extend(os.path.join(directory, name) for name in sorted(names) if name.endswith(".py"))
    return sorted(files)


def hit_lines(text: str, path: str, codes: tuple[str, ...], only_nested: bool = False) -> set[int]:
    """The lines findings with one of `codes` land on (and their related lines in this file).
    With `only_nested`, TL101 alone runs, so that no other root folds it away."""
    from tilecheck.core.registry import builtin_rules
    from tilecheck.lint.engine import check_source

    rules = [rule for rule in builtin_rules() if rule.CODE == "TL101"] if only_nested else None
    lines: set[int] = set()
    for d in check_source(text, path, rules).diagnostics:
        if d.code.startswith(codes):
            lines.add(d.span.line)
            lines.update(r.span.line for r in d.related if r.path is None)  # folded, inlined
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[DEFAULT_CORPUS])
    parser.add_argument("--show", type=int, default=40, metavar="N", help="misses to list")
    args = parser.parse_args(argv)
    missing = [path for path in args.paths if not os.path.exists(path)]
    if missing:
        print(f"probe_misses: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    sys.path.insert(0, ROOT)
    started = time.perf_counter()
    total = modeled = 0
    misses: list[str] = []
    causes: Counter[str] = Counter()
    base = args.paths[0] if os.path.isdir(args.paths[0]) else os.path.dirname(args.paths[0])
    for path in python_files(args.paths):
        with open(path, encoding="utf-8", errors="replace") as handle:
            source = handle.read()
        found = bodies(source)
        if not found:
            continue
        text, seen_at = _insert(source, found, [seen_probe(body) for body in found])
        seen = hit_lines(text, path, ("TL1", "TL2", "TL3"))
        unbuilt = hit_lines(source, path, UNBUILT_HEADERS)
        text, nested_at = _insert(source, found, [nested_probe(body) for body in found])
        nested = hit_lines(text, path, ("TL101",), only_nested=True)
        for body, seen_lines, nested_lines in zip(found, seen_at, nested_at, strict=True):
            total += 1
            if body.header_line in unbuilt or not any(line in seen for line in seen_lines):
                continue
            modeled += 1
            if not any(line in nested for line in nested_lines):
                causes[cause(body)] += 1
                where = f"{os.path.relpath(path, base)}:{body.header_line} ({body.kind})"
                misses.append(f"{where}: {cause(body)}")
    elapsed = time.perf_counter() - started
    print(f"Bodies: {total}; modeled: {modeled}; silent misses: {len(misses)} ({elapsed:.1f} s)")
    for name, count in causes.most_common():
        print(f"  {count:4d}  {name}")
    for entry in misses[: args.show]:
        print(f"  {entry}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
