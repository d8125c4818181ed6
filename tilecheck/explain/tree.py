"""The loop-nest tree `tilecheck explain` draws for a kernel, built from the kernel model.

Every loop is shown with its kind, its extents (constant or symbolic, as TileLang's IntImm
test sees them), its pipeline request, and the macro call it was inlined from; runtime
`if`/`while`/`with` statements that hold loops are shown too. A factory built several times
(with different arguments) is one tree, its nodes counted over the builds.
"""

from __future__ import annotations

import libcst as cst

from tilecheck.backends.profile import profile_of
from tilecheck.explain import shared_memory
from tilecheck.explain.merge import BuildLabels, mark_partial, merge, walk_nodes
from tilecheck.explain.node import Node, build_label, describe_extent, describe_pipeline
from tilecheck.lint.context import Context
from tilecheck.report import display_path
from tilecheck.tilelang.model import Item, Kernel, Loop, LoopKind, Request, Site, Stmt, StmtKind, walk
from tilecheck.tilelang.shared_memory import unfollowed_calls
from tilecheck.tilelang.values import PyConst

# -- building the tree ---------------------------------------------------------------------


class Builder:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._paths: dict[int, tuple[Item, ...]] | None = None

    def ancestors(self, item: Item) -> tuple[Item, ...]:
        """The items enclosing `item` in the kernel model, outermost first (the backend's
        verdict on a pipeline depends on the pipelines around it)."""
        if self._paths is None:
            self._paths = {
                id(found): path for kernel in self.ctx.model.kernels for found, path in walk(kernel.body)
            }
        return self._paths.get(id(item), ())

    def position(self, item: Item) -> tuple[int, int]:
        span = self.ctx.span(item.site.report_node, item.site.report_top)
        return span.line, span.column + 1

    def lines(self, node: cst.CSTNode | None, item: Item) -> tuple[int, int] | None:
        if item.site.origin or node is None:
            return None
        span = self.ctx.span(node, item.site.top)
        return span.line, span.end_line

    def kernel(self, kernel: Kernel) -> Node:
        node = self.kernel_node(kernel)
        node.details += self.shared_memory_rows(kernel)
        return node

    def kernel_node(self, kernel: Kernel) -> Node:
        """The kernel's tree, without its shared-memory table."""
        span = self.ctx.span(kernel.node, kernel.top)
        root = Node(
            "kernel", f"kernel {kernel.name}", span.line, span.column + 1, lines=(span.line, span.end_line)
        )
        root.details = [self.under(condition, "defined") for condition in kernel.conditions]
        unfollowed = unfollowed_calls(kernel, self.ctx.model)
        root.shared_memory = [(None, shared_memory.records(kernel, profile_of(self.ctx.backend), unfollowed))]
        root.children = self.items(kernel.body)
        return root

    def shared_memory_rows(self, kernel: Kernel) -> list[str]:
        unfollowed = unfollowed_calls(kernel, self.ctx.model)
        return shared_memory.table(kernel, profile_of(self.ctx.backend), unfollowed)

    def kernel_builds(self, builds: list[Kernel]) -> Node:
        """One tree for a kernel definition built several times (once per distinct factory
        call): the union of the builds' trees, what only some builds have marked so, and the
        shared-memory table of each build (builds with the same table share it)."""
        if len(builds) == 1:
            return self.kernel(builds[0])
        trees = [self.kernel_node(kernel) for kernel in builds]
        names = [build_label(kernel, n) for n, kernel in enumerate(builds, 1)]
        labels = BuildLabels(trees, names)
        root = trees[0]
        root.shared_memory = [
            (name, found)
            for name, tree in zip(names, trees, strict=True)
            for _, found in tree.shared_memory or []
        ]
        present = {id(node): 1 for node in walk_nodes(root)}
        for other in trees[1:]:
            root.details += [detail for detail in other.details if detail not in root.details]
            merge(root, other, present)
        mark_partial(root, present, len(trees))
        labels.apply(root)
        tables: dict[tuple[str, ...], list[str]] = {}
        for name, kernel in zip(names, builds, strict=True):
            tables.setdefault(tuple(self.shared_memory_rows(kernel)), []).append(name)
        for rows, having in tables.items():
            if not rows:
                continue
            if len(tables) > 1:
                root.details.append(f"shared memory of {'; '.join(having)}:")
            root.details += [f"  {row}" if len(tables) > 1 else row for row in rows]
        return root

    def items(self, items: list[Item], depth: int = 0) -> list[Node]:
        """The nodes of an item list; items spliced from an undecided Python-level `if` (beyond
        the `depth` conditions already drawn) are grouped under a node for that `if`."""
        nodes: list[Node] = []
        keys: dict[tuple[object, ...], Node] = {}
        index = 0
        while index < len(items):
            item = items[index]
            if len(item.conditions) > depth:
                condition = item.conditions[depth]
                end = index + 1
                while end < len(items) and _same_condition(items[end], condition, depth):
                    end += 1
                made = self.condition(condition, items[index:end], depth + 1)
                index = end
            else:
                made = self.item(item)
                index += 1
            for node in made:
                # The same construct again: a copy made by Python-level unrolling. Sibling
                # loops inlined from one macro share the call site, not the line they are written on.
                key = (node.kind, node.line, node.column, node.title, node.source_line)
                if key in keys:
                    keys[key].copies += 1
                    continue
                keys[key] = node
                nodes.append(node)
        return nodes

    def condition(self, condition: Site, items: list[Item], depth: int) -> list[Node]:
        """`?if flag`: a Python-level `if` tilecheck cannot decide, drawn when it holds loops."""
        children = self.items(items, depth)
        if not children:
            return []
        statement = condition.node
        assert isinstance(statement, cst.If)
        span = self.ctx.span(condition.report_node, condition.report_top)
        node = Node(
            "if", f"if {self.ctx.text(statement.test, 60)}", span.line, span.column + 1, certain=False
        )
        if not condition.origin:
            node.lines = (span.line, self.ctx.span(statement, condition.top).end_line)
        else:
            node.source_line = self.ctx.line_of(statement, condition.top)
        node.details = ["undecided Python-level condition: both branches are checked"]
        node.details += self.origin_of(condition)
        then_ids = _ids_under(statement.body)
        then_items = [item for item in items if _written_in(item, then_ids)]
        else_items = [item for item in items if not _written_in(item, then_ids)]
        node.children = [
            branch
            for branch_items, label, where in (
                (then_items, "then", statement.body),
                (else_items, "elif" if isinstance(statement.orelse, cst.If) else "else", statement.orelse),
            )
            for branch in self.branch(condition, branch_items, depth, label, where)
        ]
        return [node]

    def branch(
        self, condition: Site, items: list[Item], depth: int, label: str, where: cst.CSTNode | None
    ) -> list[Node]:
        """`then` / `else` under a `?if`: which branch its loops are in. An `elif` is the else
        branch holding the next `?if` of the chain (drawn nested, as Python reads it)."""
        children = self.items(items, depth)
        if not children or where is None:
            return []
        block = where
        if isinstance(where, cst.IndentedBlock) and where.body:
            where = where.body[0]  # the then branch: its first statement's line
        span = self.ctx.span(where, condition.top, condition.path)
        title = "else" if label == "elif" else label
        if condition.origin:  # drawn at the macro's call site, as everything it inlines
            node = Node("branch", title, children[0].line, children[0].column, source_line=span.line)
        else:
            end = self.ctx.span(block, condition.top, condition.path).end_line
            node = Node("branch", title, span.line, span.column + 1, lines=(span.line, end))
        node.details = ["the next `if` is an `elif`"] if label == "elif" else []
        node.children = children
        return [node]

    def under(self, condition: Site, what: str = "") -> str:
        """`under an undecided condition: `if flag` (line 15)`."""
        statement = condition.node
        test = self.ctx.text(statement.test, 40) if isinstance(statement, cst.If) else "?"
        line = self.ctx.span(statement, condition.top, condition.path).line
        where = f"{self.ctx.display_path(condition.path)}, line" if condition.path else "line"
        return f"{what + ' ' if what else ''}under an undecided condition: `if {test}` ({where} {line})"

    def item(self, item: Item) -> list[Node]:
        if isinstance(item, Loop):
            return [self.loop(item)]
        if isinstance(item, Stmt):
            children = self.items(item.body) + self.items(item.orelse)
            if not children or item.kind not in (StmtKind.IF, StmtKind.WHILE, StmtKind.BLOCK):
                return children  # only statements that hold loops are drawn
            line, column = self.position(item)
            text = self.ctx.text(item.site.node, 60).split(":")[0]
            kind = {StmtKind.IF: "if", StmtKind.WHILE: "while", StmtKind.BLOCK: "block"}[item.kind]
            title = item.label if item.label and item.kind is StmtKind.IF else text
            node = Node(
                kind, title, line, column, lines=self.lines(item.site.node, item), certain=item.certain
            )
            node.details = self.origin(item)
            node.source_line = self.source_line(item)
            node.written = self.written(item.site.node, item)
            node.children = children
            return [node]
        return []

    def origin(self, item: Item) -> list[str]:
        return self.origin_of(item.site)

    def origin_of(self, site: Site) -> list[str]:
        if not site.origin:
            return []
        own = self.ctx.line_of(site.node, site.top)
        chain = " -> ".join(
            f"`{call.name}` (called at line {self.ctx.line_of(call.call, call.call_top)})"
            for call in site.origin
        )
        return [f"inlined from macro {chain}; written at {display_path(site.path or self.ctx.path)}:{own}"]

    def source_line(self, item: Item) -> int | None:
        return self.ctx.line_of(item.site.node, item.site.top) if item.site.origin else None

    def written(self, node: cst.CSTNode | None, item: Item) -> tuple[str | None, int, int] | None:
        if not item.site.origin or node is None:
            return None
        span = self.ctx.span(node, item.site.top, item.site.path)
        return item.site.path, span.line, span.end_line

    def loop(self, loop: Loop) -> Node:
        ctx = self.ctx
        dims = [loop]
        while (
            dims[-1].ndim > 1
            and len(dims) < dims[-1].ndim
            and dims[-1].body
            and isinstance(dims[-1].body[0], Loop)
        ):
            nxt = dims[-1].body[0]
            assert isinstance(nxt, Loop)
            if nxt.call is not loop.call:
                break
            dims.append(nxt)
        header = ctx.text(loop.call if loop.call is not None else loop.site.node, 70)
        targets = ctx.text(loop.statement.target, 30) if loop.statement is not None else "?"
        line, column = self.position(loop)
        node = Node("loop", f"for {targets} in {header}", line, column, certain=loop.certain)
        node.lines = self.lines(loop.statement, loop)
        kind = loop.kind.value if loop.kind is not LoopKind.RANGE else "serial (Python range)"
        if (
            loop.kind is LoopKind.PIPELINED
            and loop.pipeline is not None
            and loop.pipeline.state is Request.BARE
        ):
            kind = "pipelined (bare: a serial loop)"
        texts = self.extent_texts(loop, len(dims))
        extents = [describe_extent(d.extent, t) for d, t in zip(dims, texts, strict=True)]
        node.details.append(f"{kind}; extent{'s' if len(dims) > 1 else ''} " + " x ".join(extents))
        if any(d.min is not None and not (isinstance(d.min, PyConst) and d.min.value == 0) for d in dims):
            starts = [describe_extent(d.min, None) for d in dims]
            node.details.append("start " + " x ".join(starts))
        pipeline = describe_pipeline(loop)
        if pipeline is not None:
            node.details.append(pipeline)
        node.loop_kind = loop.kind.value
        node.source_line = self.source_line(loop)
        node.written = self.written(loop.statement, loop)
        if loop.pipeline is not None and loop.pipeline.state is Request.REQUESTED:
            from tilecheck.backends import describe_request, profile_of
            from tilecheck.backends.verdict import pipeline_verdict

            node.pipeline = describe_request(loop.pipeline)
            profile = profile_of(self.ctx.backend)
            if profile is not None:
                verdict = pipeline_verdict(self.ctx, profile, loop, self.ancestors(loop))
                node.verdict = f"{profile.name}: {verdict}"
        node.details += self.origin(loop)
        if loop.conditions:
            node.details.append(self.under(loop.conditions[-1]))
        elif not loop.certain:
            node.details.append("exists only for some Python-level values tilecheck cannot evaluate")
        node.children = self.items(dims[-1].body)
        return node

    def extent_texts(self, loop: Loop, count: int) -> list[str | None]:
        """The source text of each extent (`T.Parallel(M, N)`: `M`, `N`; `T.serial(a, b)`: `b - a`)."""
        call = loop.call
        if call is None:
            return [None] * count
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
        text = self.ctx.text
        if loop.api in ("T.Parallel", "T.grid") and len(positional) == count:
            return [text(node, 40) for node in positional]
        start = keywords.get("start", positional[0] if positional else None)
        stop = keywords.get("stop", positional[1] if len(positional) > 1 else None)
        if loop.kind is LoopKind.PERSISTENT:
            return [None] * count
        if start is not None and stop is None:
            return [text(start, 40)] + [None] * (count - 1)
        if start is not None and stop is not None:
            return [f"{text(stop, 30)} - {text(start, 30)}"] + [None] * (count - 1)
        return [None] * count


def _ids_under(node: cst.CSTNode) -> set[int]:
    """The ids of `node` and of every node under it."""
    found: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        found.add(id(current))
        stack.extend(current.children)
    return found


def _written_in(item: Item, ids: set[int]) -> bool:
    """Whether `item`, or a macro call it was inlined through, is one of the nodes `ids`."""
    return id(item.site.node) in ids or any(id(call.call) in ids for call in item.site.origin)


def _same_condition(item: Item, condition: Site, depth: int) -> bool:
    """Whether `item` was spliced from the same `if` (written and inlined at the same place)."""
    if len(item.conditions) <= depth:
        return False
    other = item.conditions[depth]
    return other.node is condition.node and [c.call for c in other.origin] == [
        c.call for c in condition.origin
    ]
