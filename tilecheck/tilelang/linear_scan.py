"""TileLang 0.1.15's arena packing for the TMA class (`LinearScanPack` in
src/transform/merge_shared_memory_allocations.cc), over top-level statement lifetimes.

Buffers are taken in order of their first statement (then of `order`, the larger first, then
by name); each goes into the best-fitting freed block (least waste) at its alignment, else
extends a freed block at the top of the arena, else is bumped to the aligned top (the gap is
freed). A buffer whose last statement comes before another's first has freed its space by then.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilecheck.tilelang.shared_memory import SharedBuffer

ALIGNMENT = 16  # the merged arena's size is rounded up to it


@dataclass
class _Block:
    offset: int
    size: int


def pack(buffers: list[SharedBuffer]) -> int:
    """TileLang's `LinearScanPack`: best-fit reuse of freed blocks, else the tail, else the top."""
    if not buffers:
        return 0
    if len(buffers) == 1:  # one allocation is not merged: its own size
        buffers[0].offset = 0
        return buffers[0].bytes
    order = sorted(buffers, key=lambda b: ((b.live or (0, 0))[0], b.order, -b.bytes, b.name))
    free: list[_Block] = []
    active: list[SharedBuffer] = []
    top = 0
    for shared in order:
        start = (shared.live or (0, 0))[0]
        for done in [b for b in active if (b.live or (0, 0))[1] < start]:
            active.remove(done)
            _free(free, done.offset or 0, done.bytes)
        offset = _best_fit(free, shared.bytes, shared.alignment)
        if (
            offset is None
            and free
            and free[-1].offset + free[-1].size == top
            and _up(free[-1].offset, shared.alignment) < top
        ):
            tail = free.pop()
            offset = _up(tail.offset, shared.alignment)
            if offset > tail.offset:
                _free(free, tail.offset, offset - tail.offset)
            top = offset + shared.bytes
        elif offset is None:
            offset = _up(top, shared.alignment)
            if offset > top:
                _free(free, top, offset - top)
            top = offset + shared.bytes
        shared.offset = offset
        active.append(shared)
    end = max((b.offset or 0) + b.bytes for b in order)
    return _up(end, ALIGNMENT)


def _best_fit(free: list[_Block], need: int, alignment: int) -> int | None:
    best: int | None = None
    for index, block in enumerate(free):
        head = _up(block.offset, alignment) - block.offset
        if head > block.size or block.size - head < need:
            continue
        if best is None or block.size - need < free[best].size - need:
            best = index
    if best is None:
        return None
    block = free.pop(best)
    offset = _up(block.offset, alignment)
    tail = block.size - (offset - block.offset) - need
    if tail:
        _free(free, offset + need, tail)
    if offset > block.offset:
        _free(free, block.offset, offset - block.offset)
    return offset


def _free(free: list[_Block], offset: int, size: int) -> None:
    """Insert a block, sorted by offset, coalescing with its neighbours."""
    if size == 0:
        return
    index = bisect.bisect_left([b.offset for b in free], offset)
    free.insert(index, _Block(offset, size))
    if index + 1 < len(free) and free[index].offset + free[index].size >= free[index + 1].offset:
        nxt = free.pop(index + 1)
        free[index].size = (
            max(free[index].offset + free[index].size, nxt.offset + nxt.size) - free[index].offset
        )
    if index > 0 and free[index - 1].offset + free[index - 1].size >= free[index].offset:
        cur = free.pop(index)
        prev = free[index - 1]
        prev.size = max(prev.offset + prev.size, cur.offset + cur.size) - prev.offset


def _up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment if alignment > 1 else value
