"""Questions rules ask of the kernel model: parallel context, strict chains, loop-variable use."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tilecheck.tilelang.model import Access, Guard, Item, Kernel, Loop, Stmt, walk
from tilecheck.tilelang.values import PyConst, Value, Var


def factory_call_text(kernel: Kernel, builds: Sequence[Kernel] = ()) -> str | None:
    """`make(block_M=128, dtype='float16')`: the factory call that built `kernel` (`?` for a
    value tilecheck does not know), None when no factory call built it. Given the other
    `builds` of the same definition, only the arguments that tell them apart are shown
    (`make(..., block_M=128)`)."""
    if kernel.factory_call is None:
        return None
    name, arguments = kernel.factory_call
    shown = [(parameter, _argument_text(value)) for parameter, value in arguments]
    others = [dict(build.factory_call[1]) for build in builds if build.factory_call and build is not kernel]
    differing = [
        (parameter, text)
        for parameter, text in shown
        if any(_argument_text(other.get(parameter)) != text for other in others)  # or absent there
    ]
    if differing and len(differing) < len(shown):
        return f"{name}(..., {', '.join(f'{p}={t}' for p, t in differing)})"
    return f"{name}({', '.join(f'{p}={t}' for p, t in shown)})"


def _argument_text(value: Value | None) -> str:
    return repr(value.value) if isinstance(value, PyConst) else "?"


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
    # The undecided Python-level branches the break holds in (empty: in every build).
    when: tuple[Guard, ...] = ()


def present(item: Item) -> bool:
    """Whether the item certainly exists, or exists whenever its undecided branches hold."""
    return item.certain or item.conditional


def joint_guards(loop: Loop, items: list[Item]) -> tuple[Guard, ...] | None:
    """The undecided branches under which `loop` and all of `items` exist together (outermost
    first, each once), or None when one of `items` is not proven to exist when its branches
    hold, or two of them need opposite branches of one `if`."""
    found: list[Guard] = list(loop.guards)
    for item in items:
        if not present(item):
            return None
        for guard in item.guards if not item.certain else ():
            if any(guard.contradicts(other) for other in found):
                return None
            if not any(guard.same(other) for other in found):
                found.append(guard)
    return tuple(found)


def chain_break(loop: Loop, ancestors: tuple[Item, ...]) -> ChainBreak | None:
    """The proven reason `loop` is a nested parallel loop, or None (chain, or unproven).

    TileLang accepts a parallel loop inside another only when it is the other's entire
    body; anything else between them (a statement before or after, a sibling, a wrapper
    loop, a runtime `if`) is a "Nested parallel loops" error. An item is evidence when it
    certainly exists, or exists whenever the undecided Python-level branches it is in hold:
    the break then holds in those branches (`when`); other uncertain items never are.
    """
    if not loop.is_parallel or is_chain_child(loop, ancestors):
        return None
    parents = parallel_ancestors(ancestors)
    if not parents:
        return None
    outer = parents[-1]
    index = ancestors.index(outer)
    between = list(ancestors[index + 1 :])
    if between:  # wrapped: a serial loop, a runtime if, a block, ...
        when = joint_guards(loop, between)
        return ChainBreak(outer, between, True, when) if when is not None else None
    position = outer.body.index(loop)
    # Name the nearest statement before the loop first: it is what the author just wrote; an
    # item present in every build the loop is in before one that needs more branches.
    candidates = [*reversed(outer.body[:position]), *(i for i in outer.body[position + 1 :] if i is not loop)]
    found: list[tuple[int, Item, tuple[Guard, ...]]] = []
    for item in candidates:
        when = joint_guards(loop, [item])
        if when is not None:
            found.append((len(when), item, when))
    if not found:
        return None
    fewest = min(count for count, _, _ in found)
    chosen = [(item, when) for count, item, when in found if count == fewest]
    return ChainBreak(outer, [item for item, _ in chosen], False, chosen[0][1])


def kernel_items(kernels: list[Kernel]) -> Iterator[tuple[Item, tuple[Item, ...]]]:
    for kernel in kernels:
        yield from walk(kernel.body)


def accesses(kernels: list[Kernel]) -> Iterator[tuple[Access, Stmt, tuple[Item, ...]]]:
    """Every buffer access with its statement and the items enclosing that statement."""
    for item, ancestors in kernel_items(kernels):
        if isinstance(item, Stmt):
            for access in item.accesses:
                yield access, item, ancestors


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
