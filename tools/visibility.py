"""How much of real kernel code does tilecheck see? (`make visibility`; issue 10 §6)

For every textual `with T.Kernel(...)`, `for ... in T.Pipelined(...)` and `for ... in
T.Parallel(...)` body of every file under the given paths (default: the shared TileLang
corpus), insert a probe at the top of the body that any modeled body must report:

    for _tilecheck_probe in T.Parallel(4):   # outside a parallel loop
        T.fill(_tilecheck_probe_buffer, 0)   # a tile op in a parallel loop: TL103
    T.fill(_tilecheck_probe_buffer, 0)       # inside a parallel loop: TL103 directly

All probes of a file go into one copy of it, checked once; a body counts as seen when a TL1xx
diagnostic (or a TL2xx/TL3xx one) lands on its probe's lines. The figure is printed with the
files whose bodies were not seen, so that each can be looked at: a body in a Python-level
branch that is never built is not a miss.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "tilelang")
KINDS = ("Kernel", "Pipelined", "Parallel")


@dataclass
class Body:
    kind: str
    header_line: int
    first_line: int  # the line of the body's first statement
    indent: str
    in_parallel: bool


def bodies(source: str) -> list[Body]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = source.splitlines()
    found: list[Body] = []

    def kind_of(call: ast.expr) -> str | None:
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in KINDS:
            return call.func.attr if isinstance(call.func.value, ast.Name) else None
        return None

    def visit(node: ast.AST, in_parallel: bool) -> None:
        for child in ast.iter_child_nodes(node):
            kind = None
            if isinstance(child, ast.With):
                kinds = [kind_of(item.context_expr) for item in child.items]
                kind = "Kernel" if "Kernel" in kinds else None
            elif isinstance(child, ast.For):
                kind = kind_of(child.iter)
                kind = kind if kind in ("Pipelined", "Parallel") else None
            inner = in_parallel
            if kind is not None and isinstance(child, (ast.With, ast.For)):
                first = child.body[0]
                if first.lineno > child.lineno:  # a body on its own lines
                    text = lines[first.lineno - 1]
                    indent = text[: len(text) - len(text.lstrip())]
                    found.append(Body(kind, child.lineno, first.lineno, indent, in_parallel))
                inner = in_parallel or kind == "Parallel"
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                inner = False
            visit(child, inner)

    visit(tree, False)
    return found


def probed(source: str, found: list[Body]) -> tuple[str, list[tuple[Body, range]]]:
    """The source with every probe inserted, and each body's probe lines in the new text."""
    lines = source.splitlines(keepends=True)
    inserts: dict[int, list[str]] = {}
    for body in found:
        block = [f"{body.indent}T.fill(_tilecheck_probe_buffer, 0)\n"]
        if not body.in_parallel:
            block = [
                f"{body.indent}for _tilecheck_probe in T.Parallel(4):\n",
                f"{body.indent}    T.fill(_tilecheck_probe_buffer, 0)\n",
            ]
        inserts.setdefault(body.first_line, []).extend(block)
    out: list[str] = []
    where: dict[int, int] = {}
    for number, line in enumerate(lines, 1):
        if number in inserts:
            where[number] = len(out) + 1
            out.extend(inserts[number])
        out.append(line)
    placed: list[tuple[Body, range]] = []
    offsets: dict[int, int] = {}
    for body in found:
        start = where[body.first_line] + offsets.get(body.first_line, 0)
        size = 1 if body.in_parallel else 2
        offsets[body.first_line] = offsets.get(body.first_line, 0) + size
        placed.append((body, range(start, start + size)))
    return "".join(out), placed


def python_files(paths: list[str]) -> list[str]:
    files: list[str] = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
        for directory, _, names in os.walk(path):
            files.extend(os.path.join(directory, name) for name in sorted(names) if name.endswith(".py"))
    return sorted(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[DEFAULT_CORPUS])
    parser.add_argument("--show", type=int, default=15, metavar="N", help="unseen bodies to list")
    args = parser.parse_args(argv)
    missing = [path for path in args.paths if not os.path.exists(path)]
    if missing:
        print(f"visibility: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    sys.path.insert(0, ROOT)
    from tilecheck.lint.engine import check_source

    started = time.perf_counter()
    total = seen = 0
    per_kind = {kind: [0, 0] for kind in KINDS}
    unseen: list[str] = []
    for path in python_files(args.paths):
        with open(path, encoding="utf-8", errors="replace") as handle:
            source = handle.read()
        found = bodies(source)
        if not found:
            continue
        text, placed = probed(source, found)
        lines: set[int] = set()
        for d in check_source(text, path).diagnostics:
            if d.code[:3] in ("TL1", "TL2", "TL3"):
                lines.add(d.span.line)
                lines.update(r.span.line for r in d.related if r.path is None)  # folded consequences
        for body, probe in placed:
            hit = any(line in lines for line in probe)
            total += 1
            seen += hit
            per_kind[body.kind][0] += hit
            per_kind[body.kind][1] += 1
            if not hit:
                unseen.append(f"{os.path.relpath(path, args.paths[0])}:{body.header_line} ({body.kind})")
    elapsed = time.perf_counter() - started
    share = 100.0 * seen / total if total else 100.0
    print(f"Bodies seen: {seen}/{total} ({share:.1f} %) in {elapsed:.1f} s")
    for kind, (hits, count) in per_kind.items():
        print(f"  T.{kind:<10} {hits}/{count}")
    if unseen:
        print(f"Not seen ({len(unseen)}; first {min(args.show, len(unseen))}):")
        for entry in unseen[: args.show]:
            print(f"  {entry}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
