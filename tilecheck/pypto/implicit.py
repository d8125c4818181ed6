"""The pure tail of an implicitly carried loop (`for i, (acc,) in pl.pipeline(1, stage=2,
init_values=(x,)): acc = pl.add(acc, 1.0)` in a non-strict function), built as the pass builds it.

With fewer trips than stages no loop is left (reference §1.4): clone 0 reads the init value
itself (`acc = pl.add(x, 1.0)`), and after the clones one assignment binds each carried value
to the last clone's (`acc = acc`: the clones keep the iter_arg's name, so its last value is
`acc`; an iter_arg the body never reassigns is bound to its init value). The init value is fed
into clone 0 only where that is plainly right: into the top-level statements before the first
one that assigns the iter_arg, and into the value of that first assignment when it is a plain
`acc = ...`. Otherwise (`acc += 1`, a first assignment inside an `if`) `feed_seeds` gives None
and the caller binds `acc = x` before the clones instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from tilecheck.pypto.clone import Rewriter
from tilecheck.pypto.dataflow import Dataflow
from tilecheck.pypto.dsl import Aliases
from tilecheck.pypto.rewrite import seed
from tilecheck.pypto.stage import LoweredStatement, materialize


def assign(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


def feed_seeds(
    flow: Dataflow,
    aliases: Aliases,
    core: list[cst.BaseStatement],
    first: Sequence[LoweredStatement],
    implicit: dict[str, cst.BaseExpression],
) -> tuple[list[LoweredStatement], list[cst.SimpleStatementLine]] | None:
    """Clone 0 (`first`, one statement per statement of `core`) reading the init values, and
    the bindings that follow the tail; None when an init value cannot be fed in plainly."""
    clone = list(first)
    bindings = []
    defs = flow.block(core).defs
    for name, value in implicit.items():
        fed = _feed(flow, Rewriter(aliases, {}, {name: seed(value)}, None), core, clone, name)
        if fed is None:
            return None
        clone = fed
        bindings.append(assign(name, cst.Name(name) if name in defs else value))
    return clone, bindings


def _feed(
    flow: Dataflow,
    rewriter: Rewriter,
    core: list[cst.BaseStatement],
    clone: list[LoweredStatement],
    name: str,
) -> list[LoweredStatement] | None:
    out = list(clone)
    for index, statement in enumerate(core):
        part = flow.statement(statement)
        if name in part.defs:
            line = materialize(out[index])
            small = (
                line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
            )
            if not (
                isinstance(small, (cst.Assign, cst.AnnAssign))
                and small.value is not None
                and _assigns_only(small, name)
            ):
                return None
            out[index] = line.with_changes(body=[small.with_changes(value=rewriter.expression(small.value))])
            return out
        if name in part.reads:  # read, not assigned: every use here is the init value
            out[index] = rewriter.statement(materialize(out[index]))
    return out  # never assigned: clone 0 reads the init value throughout


def _assigns_only(small: cst.Assign | cst.AnnAssign, name: str) -> bool:
    if isinstance(small, cst.AnnAssign):
        return isinstance(small.target, cst.Name) and small.target.value == name
    return (
        len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == name
    )
