"""How to spread files over worker processes so that two processes finish sooner than one.

Checking costs roughly in proportion to a file's size (parsing dominates), and a real tree has
a few files many times larger than the rest. Handing files out in discovery order, several at
a time, leaves one worker finishing a large file alone at the end; handing them out one at a
time, largest first, lets the small ones fill the gaps (longest-processing-time scheduling).
A worker costs a fork and a pipe, so small runs stay in one process.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

# Bytes of source per extra worker before it pays for itself (a fork costs ~10-20 ms, checking
# runs at ~300 kB/s per core).
BYTES_PER_WORKER = 64 * 1024


def file_size(path: str, data: bytes | None = None) -> int:
    if data is not None:
        return len(data)
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def worker_count(jobs: int | None, sizes: Sequence[int]) -> int:
    """Processes worth starting for files of these sizes, at most `jobs` (default: cores)."""
    limit = jobs or os.cpu_count() or 1
    return max(1, min(limit, len(sizes), sum(sizes) // BYTES_PER_WORKER))


def largest_first(sizes: Sequence[int]) -> list[int]:
    """Indexes into `sizes` in the order to hand them to workers: largest first, stable."""
    return sorted(range(len(sizes)), key=lambda index: -sizes[index])
