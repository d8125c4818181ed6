"""The shared-memory table `tilecheck explain` prints under each kernel, per CUDA target class."""

from __future__ import annotations

from tilecheck.backends.profile import Profile
from tilecheck.tilelang.model import Kernel
from tilecheck.tilelang.shared_memory import TargetClass, target_class
from tilecheck.tilelang.warp_specialized import MBARRIER_BYTES, kernel_layout


def table(kernel: Kernel, profile: Profile | None, unfollowed: int = 0) -> list[str]:
    """`shared memory per block, cp.async (sm_80, ...): 98,304 bytes ...` and one row per buffer."""
    rows: list[str] = []
    if not any(buffer.scope.startswith("shared") for buffer in kernel.buffers):
        return rows
    selected = target_class(profile.backend, profile.warp_specialization) if profile is not None else None
    for kind in TargetClass:
        layout = kernel_layout(kernel, kind, unfollowed=unfollowed)
        head = f"shared memory per block, {kind.value}"
        if not layout.sized:
            rows.append(f"{head}: not sized ({'; '.join(dict.fromkeys(layout.undecided))})")
            continue
        limit = ""
        if profile is not None and kind is selected and profile.shared_memory_per_block:
            budget = profile.shared_memory_per_block
            verdict = "fits" if layout.total_bytes <= budget else "EXCEEDS it"
            limit = f"; the limit on {profile.name} is {budget:,}: {verdict}"
        rows.append(
            f"{head}: {layout.total_bytes:,} bytes ({layout.dynamic_bytes:,} dynamic + "
            f"{layout.static_bytes:,} static){limit}"
        )
        for buffer in layout.buffers:
            if buffer.live is None:
                where = "never used: 0 bytes"
            elif buffer.static:
                where = "static __shared__ array"
            else:
                where = f"offset {buffer.offset:,}" if buffer.offset is not None else "offset ?"
            lifetime = f", statements {buffer.live[0] + 1}-{buffer.live[1] + 1}" if buffer.live else ""
            rows.append(f"  {buffer.describe()}  ({where}{lifetime})")
        if layout.mbarrier_bytes:
            count = layout.mbarrier_bytes // MBARRIER_BYTES
            rows.append(
                f"  mbarriers: {count} x {MBARRIER_BYTES} bytes = {layout.mbarrier_bytes:,} bytes  "
                "(static __shared__ array: a full and an empty barrier per pipeline stage)"
            )
    return rows
