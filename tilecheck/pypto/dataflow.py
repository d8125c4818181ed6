"""Which names a loop body may carry from one iteration to the next, and which are read after it.

A name reassigned in a loop (`acc = pl.add(acc, x)`) carries its value from one iteration to
the next. In source form that behaviour falls out of keeping such a name unrenamed in every
clone: the clones run one after the other, so the value flows from clone to clone and stays
visible after the loop (PyPTO's own pass does this only for iter_args: TL422 warns about the
others). Only names that are iteration-local (always assigned before they are read in the body
and never read after the loop) get fresh per-clone names.

The analysis is a conservative definite-assignment walk: when in doubt a name counts as read
(and so keeps its name), which never changes behaviour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from tilecheck.pypto.cstutil import names_read
from tilecheck.pypto.dsl import body_statements, suite_statements


@dataclass
class Summary:
    reads: set[str] = field(default_factory=set)  # may be read before being assigned here
    kills: set[str] = field(default_factory=set)  # definitely assigned on every path
    defs: set[str] = field(default_factory=set)  # may be assigned
    ends: bool = False  # every path returns


def _target_defs(target: cst.BaseExpression, reads: set[str]) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        found: set[str] = set()
        for element in target.elements:
            found |= _target_defs(element.value, reads)
        return found
    if isinstance(target, cst.StarredElement):
        return _target_defs(target.value, reads)
    reads |= names_read(target)  # x[i] = ..., x.a = ... read x
    return set()


class Dataflow:
    """Summaries of statements, cached by node identity for one function."""

    def __init__(self) -> None:
        self._cache: dict[int, Summary] = {}
        self._keep: list[cst.CSTNode] = []  # keeps summarized nodes alive so ids stay unique
        self.opaque: set[str] = set()  # names bound in lambdas/comprehensions/global statements

    def block(self, statements: Sequence[cst.BaseStatement] | Sequence[cst.BaseSmallStatement]) -> Summary:
        """The summary of statements run in order (a block, or the small statements of a line)."""
        result = Summary()
        for statement in statements:
            part = self.statement(statement)
            result.reads |= part.reads - result.kills
            result.kills |= part.kills
            result.defs |= part.defs
            if part.ends:
                result.ends = True
                break
        return result

    def reassigned(self, statements: list[cst.BaseStatement], excluded: set[str]) -> set[str]:
        """Names the block reads before assigning them and then assigns (`x = pl.add(x, 1.0)`):
        values that would cross iterations of a loop with this body, `excluded` left out."""
        summary = self.block(statements)
        return (summary.reads & summary.defs) - excluded - self.opaque

    def statement(self, node: cst.CSTNode) -> Summary:
        cached = self._cache.get(id(node))
        if cached is None:
            cached = self._compute(node)
            self._cache[id(node)] = cached
            self._keep.append(node)
        return cached

    def _reads(self, node: cst.CSTNode | None) -> set[str]:
        return names_read(node, self.opaque) if node is not None else set()

    def _with(self, node: cst.With) -> Summary:
        reads: set[str] = set()
        targets: set[str] = set()
        for item in node.items:
            reads |= self._reads(item.item)
            if item.asname is not None:
                targets |= _target_defs(item.asname.name, reads)
        body = self.block(body_statements(node))
        return Summary(
            reads | (body.reads - targets), targets | body.kills, targets | body.defs, ends=body.ends
        )

    def _compute(self, node: cst.CSTNode) -> Summary:
        if isinstance(node, cst.SimpleStatementLine):
            return self.block(list(node.body))
        if isinstance(node, cst.Assign):
            reads = self._reads(node.value)
            defs: set[str] = set()
            for target in node.targets:
                defs |= _target_defs(target.target, reads)
            return Summary(reads, set(defs), set(defs))
        if isinstance(node, cst.AnnAssign):
            reads = self._reads(node.value) | self._reads(node.annotation)
            defs = _target_defs(node.target, reads) if node.value is not None else set()
            return Summary(reads, set(defs), set(defs))
        if isinstance(node, cst.AugAssign):
            reads = self._reads(node.value) | self._reads(node.target)
            defs = _target_defs(node.target, set())
            return Summary(reads, set(defs), set(defs))
        if isinstance(node, cst.Return):
            return Summary(self._reads(node.value), set(), set(), ends=True)
        if isinstance(node, (cst.Raise,)):
            return Summary(self._reads(node), set(), set(), ends=True)
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            self.opaque |= {item.name.value for item in node.names}
            return Summary()
        if isinstance(node, cst.If):
            then = self.block(body_statements(node))
            if isinstance(node.orelse, cst.If):
                other = self.statement(node.orelse)
            elif isinstance(node.orelse, cst.Else):
                other = self.block(body_statements(node.orelse))
            else:
                other = Summary()
            if then.ends and other.ends:
                kills: set[str] = set()
            elif then.ends or other.ends:
                kills = set(other.kills if then.ends else then.kills)
            else:
                kills = then.kills & other.kills
            return Summary(
                self._reads(node.test) | then.reads | other.reads,
                kills,
                then.defs | other.defs,
                ends=then.ends and other.ends,
            )
        if isinstance(node, cst.For):
            body = self.block(body_statements(node))
            reads = self._reads(node.iter)
            targets = _target_defs(node.target, reads)
            orelse = self.block(body_statements(node.orelse)) if node.orelse else Summary()
            kills = _yield_targets(node)
            return Summary(
                reads | (body.reads - targets) | orelse.reads,
                kills,
                targets | body.defs | orelse.defs,
            )
        if isinstance(node, cst.While):
            body = self.block(body_statements(node))
            orelse = self.block(body_statements(node.orelse)) if node.orelse else Summary()
            return Summary(self._reads(node.test) | body.reads | orelse.reads, set(), body.defs | orelse.defs)
        if isinstance(node, cst.With):
            return self._with(node)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            inner: set[str] = set()
            names_read(node, inner)
            inner |= names_read(node)
            self.opaque |= inner
            return Summary(inner, {node.name.value}, {node.name.value})
        if isinstance(node, (cst.Try, cst.TryStar)):
            reads = set()
            defs = set()
            for block in _try_blocks(node):
                part = self.block(block)
                reads |= part.reads
                defs |= part.defs
            for handler in node.handlers:
                reads |= self._reads(handler.type)
                if handler.name is not None:
                    defs |= _target_defs(handler.name.name, reads)
            return Summary(reads, set(), defs)
        if isinstance(node, (cst.Pass, cst.Break, cst.Continue)):
            return Summary()
        # Expr, Assert, Del, Import and anything else: reads only (imports bind, conservatively opaque).
        reads = self._reads(node)
        if isinstance(node, (cst.Import, cst.ImportFrom, cst.Del)):
            self.opaque |= reads
        return Summary(reads)


def _yield_targets(node: cst.For) -> set[str]:
    """A loop with iter_args binds its return vars even when it runs zero times."""
    statements = body_statements(node)
    if not statements or not isinstance(statements[-1], cst.SimpleStatementLine):
        return set()
    small = statements[-1].body[-1] if statements[-1].body else None
    if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
        func = small.value.func
        if isinstance(func, cst.Attribute) and func.attr.value == "yield_":
            found: set[str] = set()
            for target in small.targets:
                found |= _target_defs(target.target, set())
            return found
    return set()


def _try_blocks(node: cst.Try | cst.TryStar) -> list[list[cst.BaseStatement]]:
    blocks = [suite_statements(node.body)]
    for handler in node.handlers:
        blocks.append(suite_statements(handler.body))
    for extra in (node.orelse, node.finalbody):
        if extra is not None:
            blocks.append(suite_statements(extra.body))
    return blocks


@dataclass(frozen=True)
class Frame:
    """One level of the path from a function body down to a statement."""

    statements: list[cst.BaseStatement]
    index: int
    owner: cst.CSTNode  # the compound statement or function holding `statements`


def live_after(flow: Dataflow, chain: list[Frame], names: set[str]) -> set[str]:
    """Those of `names` that may be read after the statement at the end of `chain`."""
    pending = set(names)
    live: set[str] = set()
    for frame in reversed(chain):
        for statement in frame.statements[frame.index + 1 :]:
            part = flow.statement(statement)
            live |= pending & part.reads
            pending -= part.reads | part.kills
            if part.ends:
                pending.clear()
            if not pending:
                return live
        owner = frame.owner
        if isinstance(owner, (cst.For, cst.While)):
            # The enclosing loop may run again: its body (and a while test) comes next.
            repeat = flow.block(body_statements(owner))
            live |= pending & repeat.reads
            if isinstance(owner, cst.While):
                live |= pending & names_read(owner.test)
        if isinstance(owner, cst.FunctionDef):
            break
    return live
