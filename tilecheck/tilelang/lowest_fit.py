"""TileLang 0.1.15's arena planning for the cp.async class (sm_80, sm_86, sm_87, sm_89, gfx950), over
top-level statement lifetimes: each buffer at the lowest aligned offset where it fits among
the buffers still live, so an epilogue tile reuses the pipeline's space (the TMA class packs
differently: `linear_scan`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilecheck.tilelang.shared_memory import SharedBuffer

ALIGNMENT = 16  # bytes: every block's offset in the arena when there are two or more


def plan_arena(buffers: list[SharedBuffer]) -> int:
    """Place the used dynamic buffers in one arena, reusing freed space; returns its bytes.

    Statement by statement, the buffers first touched there are placed (in order of first
    touch) at the lowest aligned offset where they fit among the buffers still live; a free
    tail of the arena grows. The buffers last touched there are freed after the statement.
    """
    order = sorted(buffers, key=lambda b: (b.live or (0, 0))[0])
    if len(order) == 1:
        order[0].offset = 0
        return order[0].bytes
    live: list[SharedBuffer] = []
    end = 0
    last = max((b.live[1] for b in order if b.live is not None), default=-1)
    for number in range(last + 1):
        for shared in (b for b in order if b.live is not None and b.live[0] == number):
            shared.offset = _lowest_fit(shared.bytes, live)
            live.append(shared)
            end = max(end, shared.offset + shared.bytes)
        live = [b for b in live if b.live is not None and b.live[1] > number]
    return _aligned(end)  # measured: two 8-byte buffers take 32 bytes, not 24


def _lowest_fit(size: int, live: list[SharedBuffer]) -> int:
    offset = 0
    for other in sorted(live, key=lambda b: b.offset or 0):
        start = other.offset or 0
        if offset + size <= start:
            return offset
        offset = max(offset, _aligned(start + other.bytes))
    return offset


def _aligned(offset: int) -> int:
    return -(-offset // ALIGNMENT) * ALIGNMENT
