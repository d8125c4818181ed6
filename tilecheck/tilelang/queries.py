"""Questions rules ask of the kernel model: parallel context, strict chains, loop-variable use."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tilecheck.tilelang.model import Access, Item, Kernel, Loop, Stmt, walk
from tilecheck.tilelang.values import Var


def parallel_ancestors(ancestors: tuple[Item, ...]) -> list[Loop]:
    """The enclosing parallel loops, outermost first (TileLang's parallel stack)."""
    return [item for item in ancestors if isinstance(item, Loop) and item.is_parallel]


def is_chain_child(loop: Loop, ancestors: tuple[Item, ...]) -> bool:
    """A parallel loop that is the entire body of its parallel parent (a strict chain)."""
    if not ancestors:
        return False
    parent = ancestors[-1]
    return isinstance(parent, Loop) and parent.is_parallel and parent.body == [loop]


@dataclass
class ChainBreak:
    """Why a nested parallel loop is not part of a strict chain."""

    outer: Loop  # the nearest enclosing parallel loop
    breakers: list[Item]  # the items that break the chain (statements, siblings, wrappers)
    wrapper: bool  # True when `breakers[0]` wraps the inner loop


def chain_break(loop: Loop, ancestors: tuple[Item, ...]) -> ChainBreak | None:
    """The proven reason `loop` is a nested parallel loop, or None (chain, or unproven).

    TileLang accepts a parallel loop inside another only when it is the other's entire
    body; anything else between them (a statement before or after, a sibling, a wrapper
    loop, a runtime `if`) is a "Nested parallel loops" error. Items that exist only for
    some Python-level values (`certain=False`) are never evidence.
    """
    if not loop.is_parallel or is_chain_child(loop, ancestors):
        return None
    parents = parallel_ancestors(ancestors)
    if not parents:
        return None
    outer = parents[-1]
    index = ancestors.index(outer)
    between = ancestors[index + 1 :]
    if between:  # wrapped: a serial loop, a runtime if, a block, ...
        wrappers = [item for item in between if item.certain]
        return ChainBreak(outer, wrappers, True) if len(wrappers) == len(between) else None
    position = outer.body.index(loop)
    before = [item for item in outer.body[:position] if item.certain]
    after = [item for item in outer.body[position + 1 :] if item.certain and item is not loop]
    # Name the nearest statement before the loop first: it is what the author just wrote.
    others = [*reversed(before), *after]
    return ChainBreak(outer, others, False) if others else None


def kernel_items(kernels: list[Kernel]) -> Iterator[tuple[Item, tuple[Item, ...]]]:
    for kernel in kernels:
        yield from walk(kernel.body)


def accesses(kernels: list[Kernel]) -> Iterator[tuple[Access, tuple[Item, ...]]]:
    """Every buffer access with the items enclosing its statement."""
    for item, ancestors in kernel_items(kernels):
        if isinstance(item, Stmt):
            for access in item.accesses:
                yield access, ancestors


def first_used(loops: list[Loop], uses: frozenset[Var]) -> Loop | None:
    """The outermost of `loops` whose variable occurs in `uses`."""
    for loop in loops:
        if loop.var is not None and loop.var in uses:
            return loop
    return None


def depends_on(uses: frozenset[Var] | set[Var]) -> frozenset[Var]:
    """`uses` and every variable behind them through chains of Binds (`t = i + 1; u = t * 2`):
    what an expression really depends on, although TileLang's checkers see only `t`/`u`."""
    seen: set[Var] = set()
    stack = list(uses)
    while stack:
        var = stack.pop()
        if var in seen:
            continue
        seen.add(var)
        stack.extend(var.hidden)  # empty unless `var` is a Bind
    return frozenset(seen)
