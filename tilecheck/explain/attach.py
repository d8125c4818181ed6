"""`tilecheck explain FILE[:LINE]`: each kernel's tree (`explain.tree`) with the diagnostics of
a normal `tilecheck check` run (same configuration, same `--backend`) attached to the loop each
is reported at, or to the innermost node that contains it. With `:LINE`, only the kernels
containing that line are drawn and the nodes on it are marked.
"""

from __future__ import annotations

import os

from tilecheck.core.types import Diagnostic
from tilecheck.explain.merge import walk_nodes
from tilecheck.explain.node import Node
from tilecheck.explain.tree import Builder
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.lint.context import ModelError
from tilecheck.tilelang.model import Kernel
from tilecheck.tilelang.scope import ModelTooLarge


def attach(roots: list[Node], diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Attach each diagnostic to its node; returns those that belong to no kernel."""
    by_position: dict[tuple[int, int], list[Node]] = {}
    for root in roots:
        for node in walk_nodes(root):
            if node.kind not in ("kernel", "branch"):  # a branch shares its first loop's place
                by_position.setdefault((node.line, node.column), []).append(node)
    rest: list[Diagnostic] = []
    for diagnostic in diagnostics:
        position = (diagnostic.span.line, diagnostic.span.column + 1)
        candidates = by_position.get(position)
        owner = _pick(candidates, diagnostic) if candidates else _innermost(roots, diagnostic.span.line)
        if owner is None:
            rest.append(diagnostic)
        else:
            owner.diagnostics.append(diagnostic)
    return rest


def _pick(candidates: list[Node], diagnostic: Diagnostic) -> Node:
    """Of the nodes at a diagnostic's position (the loops a macro call inlines share it), the
    innermost one written around the item in the macro (`Context.macro_related`'s location)."""
    items = [(r.path, r.span.line) for r in diagnostic.related if r.message.startswith("in macro ")]

    def around(node: Node) -> bool:
        return node.written is not None and any(
            path == node.written[0] and node.written[1] <= line <= node.written[2] for path, line in items
        )

    found = [node for node in candidates if around(node)]
    return found[-1] if found else candidates[0]  # pre-order: the last one is the innermost


def _innermost(nodes: list[Node], line: int) -> Node | None:
    for node in nodes:
        if node.lines is not None and node.lines[0] <= line <= node.lines[1]:
            return _innermost(node.children, line) or node
        inner = _innermost(node.children, line) if node.lines is None else None
        if inner is not None:
            return inner
    return None


def mark(roots: list[Node], line: int) -> list[Node]:
    """The kernels containing `line`, with the nodes on that line marked.

    A line inside a macro definition selects the kernels the macro is inlined into, and marks
    the nodes written on it, or those with a diagnostic that points there.
    """
    chosen = []
    for root in roots:
        inside = root.lines is not None and root.lines[0] <= line <= root.lines[1]
        for node in walk_nodes(root):
            if node.kind == "branch":
                continue  # its line is its first statement's, marked on its own
            on_line = node.line == line if inside else False
            on_line = on_line or (inside and node.lines is not None and node.lines[0] == line)
            written = node.source_line == line
            pointed = any(r.span.line == line and r.path is None for d in node.diagnostics for r in d.related)
            if on_line or written or (not inside and pointed):
                node.marked = True
        if inside or any(node.marked for node in walk_nodes(root)):
            chosen.append(root)
    return chosen


def split_target(target: str) -> tuple[str, int | None]:
    """`k.py:12` -> ("k.py", 12); a path that exists as given (even with a colon) is kept whole."""
    path, _, line = target.rpartition(":")
    if path and line.isdigit() and not os.path.exists(target):
        return path, int(line)
    return target, None


def explain(
    analysis: FileAnalysis, line: int | None = None
) -> tuple[list[Node], list[Diagnostic], str | None]:
    """(kernel trees, diagnostics outside any kernel, a problem) for one checked file.

    The trees are drawn from the analysis's own kernel model: the file is not parsed again.
    """
    ctx = analysis.context
    if ctx is None:  # unreadable, undecodable or unparseable: its diagnostic says why
        problem = "cannot read the file" if analysis.text is None else None
        return [], list(analysis.diagnostics), problem
    try:
        kernels = ctx.model.kernels
    except (RecursionError, ModelError, ModelTooLarge):
        return [], list(analysis.diagnostics), "the kernel model could not be built for this file"
    builder = Builder(ctx)
    builds: dict[int, list[Kernel]] = {}  # a factory built with several argument sets: one tree
    for kernel in kernels:
        builds.setdefault(id(kernel.node), []).append(kernel)
    # In source order (factories are built after the module is read, eager kernels per call).
    roots = sorted(
        (builder.kernel_builds(found) for found in builds.values()), key=lambda n: (n.line, n.column)
    )
    rest = attach(roots, analysis.diagnostics)
    if line is not None:
        chosen = mark(roots, line)
        rest = [d for d in rest if d.span.line == line]
        return chosen, rest, None if chosen or rest else f"no kernel contains line {line}"
    return roots, rest, None
