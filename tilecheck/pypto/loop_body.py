"""The body of a pipeline loop as the lowering replicates it: its statements, the trailing
yield when it has iter_args, and the iteration-local names each clone gets fresh names for; or
why the loop has to be left as it is (a `Refusal`, reported as TL491).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tilecheck.pypto.dataflow import Dataflow, Frame, Summary, live_after
from tilecheck.pypto.dsl import Aliases, LoopHeader, TrailingYield, carries_implicitly, trailing_yield
from tilecheck.pypto.limits import deleted_names
from tilecheck.pypto.template import BodyTemplates


@dataclass
class LoopBody:
    """A loop body split for replication: statements, and the trailing yield when iter_args."""

    core: list[cst.BaseStatement]
    yielded: TrailingYield | None
    loop_var: str
    iter_args: list[str]
    local: set[str]  # names given fresh per-clone names
    double_buffer_c: bool
    # iter_args carried by reassignment, without a yield (`dsl.carries_implicitly`): they keep
    # their names in every clone, as other reassigned names do, and the seeds are bound first.
    implicit: dict[str, cst.BaseExpression] = field(default_factory=dict)
    _templates: BodyTemplates | None = None

    def templates(self, aliases: Aliases, stem: str, tiles: frozenset[str]) -> BodyTemplates:
        if self._templates is None:
            holes = {self.loop_var, *self.iter_args} - self.local
            self._templates = BodyTemplates(aliases, stem, self.local, holes, self.double_buffer_c, tiles)
        return self._templates

    def trailing_yield(self) -> list[cst.BaseStatement]:
        """The yield line the body ends with, when it has one."""
        return [self.yielded.line] if self.yielded is not None else []


@dataclass(frozen=True)
class Refusal:
    """Why a loop is left as it is: the TL491 reason, and the node the note points at."""

    node: cst.CSTNode
    reason: str


def split_body(
    header: LoopHeader,
    statements: list[cst.BaseStatement],
    chain: list[Frame],
    flow: Dataflow,
    aliases: Aliases,
    strict: bool,
) -> LoopBody | Refusal | None:
    """The body of the loop `header` (whose statements are `statements`, at the end of `chain`)
    in a function whose dataflow is `flow` (`strict`: under strict_ssa); None for a body the
    checks report."""
    loop_var = header.loop_var()
    if loop_var is None:
        return Refusal(header.node.target, "the loop target is not a simple name")
    iter_args = header.iter_args() or []
    yielded = None
    if carries_implicitly(header, strict, flow.block(list(statements)).defs, aliases):
        return _implicit_body(header, statements, chain, flow, loop_var, iter_args)
    if iter_args:
        yielded = trailing_yield(statements, aliases)
        init_values = header.init_values
        if (
            yielded is None
            or yielded.targets is None
            or init_values is None
            or len(init_values) != len(iter_args)
            or len(yielded.values) != len(iter_args)
            or len(yielded.targets) != len(iter_args)
        ):
            return None  # reported by the checks
    core = statements[:-1] if yielded is not None else list(statements)
    summary = flow.block(core)
    reassigned = summary.defs & {loop_var, *iter_args}
    if reassigned:
        names = ", ".join(f"`{name}`" for name in sorted(reassigned))
        return Refusal(header.node.target, f"{names} is reassigned in the loop body")
    deleted = deleted_names(core) & {loop_var, *iter_args}
    if deleted:
        names = ", ".join(f"`{name}`" for name in sorted(deleted))
        return Refusal(header.node.target, f"{names} is deleted in the loop body")
    shadowed = flow.reassigned(core, {loop_var, *iter_args}) if strict else set()
    if shadowed:
        # TL423: each stage would read the value from before the loop, not the previous
        # stage's; chaining the clones, as for a non-strict function, would change the program.
        names = ", ".join(f"`{name}`" for name in sorted(shadowed))
        reason = f"under strict_ssa the loop body's {names} is a new variable, not a carried value"
        return Refusal(header.node.target, reason)
    return _body(header, core, summary, chain, flow, yielded, loop_var, iter_args)


def _body(
    header: LoopHeader,
    core: list[cst.BaseStatement],
    summary: Summary,
    chain: list[Frame],
    flow: Dataflow,
    yielded: TrailingYield | None,
    loop_var: str,
    iter_args: list[str],
) -> LoopBody:
    candidates = summary.defs - summary.reads - flow.opaque - set(iter_args)
    candidates -= live_after(flow, chain, candidates)
    attrs = header.attrs() or {}
    flag = attrs.get("pipeline_double_buffer_c")
    double_buffer_c = isinstance(flag, cst.Name) and flag.value == "True"
    return LoopBody(core, yielded, loop_var, iter_args, candidates, double_buffer_c)


def _implicit_body(
    header: LoopHeader,
    statements: list[cst.BaseStatement],
    chain: list[Frame],
    flow: Dataflow,
    loop_var: str,
    iter_args: list[str],
) -> LoopBody | Refusal:
    """`for i, (acc,) in pl.pipeline(..., init_values=(x,)): acc = pl.add(acc, 1.0)` in a
    non-strict function: each clone reassigns `acc` and the next clone reads it, which is
    what PyPTO's SSA conversion and the pass make of it; no yield is written."""
    core = list(statements)
    summary = flow.block(core)
    if loop_var in summary.defs:
        return Refusal(header.node.target, f"`{loop_var}` is reassigned in the loop body")
    deleted = deleted_names(core) & {loop_var, *iter_args}
    if deleted:
        names = ", ".join(f"`{name}`" for name in sorted(deleted))
        return Refusal(header.node.target, f"{names} is deleted in the loop body")
    body = _body(header, core, summary, chain, flow, None, loop_var, [])
    body.local -= set(iter_args)
    body.implicit = dict(zip(iter_args, header.init_values or (), strict=True))
    return body
