"""The shared-memory table `tilecheck explain` prints under each kernel, per target class, as
text rows (`table`) and as numbers for `--output-format json` (`records`).

The selected CUDA profile's limit is shown on its class's row. A HIP profile gets a row of its
own, the layout TL501 judges there (hip-gfx942 strips `num_stages`; reductions are not sized on
HIP), and a profile with a budget on a backend tilecheck does not size (Metal, WebGPU) says so:
"not sized on metal: ...".
"""

from __future__ import annotations

from tilecheck.backends.profile import Profile
from tilecheck.tilelang.model import Kernel
from tilecheck.tilelang.pinned import pinned_target, targets_profile
from tilecheck.tilelang.shared_memory import (
    SharedLayout,
    TargetClass,
    compiled_static_bytes,
    target_class,
    unsized_reason,
)
from tilecheck.tilelang.sizing import profile_layout, profile_wgmma, strips_stages
from tilecheck.tilelang.warp_specialized import MBARRIER_BYTES, kernel_layout

STRIPPED_ROW = "num_stages stripped: one version per buffer"


def _own_row(profile: Profile | None, selected: TargetClass | None) -> str:
    """`cp.async, num_stages stripped: ...` for a profile sized apart from its class; "" if not."""
    if profile is None or selected is None or (profile.backend == "cuda" and not strips_stages(profile)):
        return ""
    short = selected.value.split(" ")[0]
    return f"{short}, {STRIPPED_ROW}" if strips_stages(profile) else short


def table(kernel: Kernel, profile: Profile | None, unfollowed: int = 0) -> list[str]:
    """`shared memory per block, cp.async (sm_80, ...): 98,304 bytes ...` and one row per buffer."""
    rows: list[str] = []
    if not any(buffer.scope.startswith("shared") or buffer.scope == "?" for buffer in kernel.buffers):
        return rows  # no shared memory (a scope tilecheck could not resolve may be some)
    selected = target_class(profile.backend, profile.warp_specialization) if profile is not None else None
    if profile is not None and selected is None and profile.shared_memory_per_block:
        budget = profile.shared_memory_per_block
        rows.append(
            f"not sized on {profile.name} (its limit: {budget:,} bytes): {unsized_reason(profile.backend)}"
        )
    own = _own_row(profile, selected) or _pinned_elsewhere(kernel, profile)
    for kind in TargetClass:
        layout = kernel_layout(
            kernel, kind, unfollowed=unfollowed, wgmma=profile_wgmma(profile) if kind is selected else None
        )
        rows += _rows(
            f"shared memory per block, {kind.value}",
            layout,
            profile if kind is selected and not own else None,
            kernel,
        )
    if own and profile is not None and selected is not None:
        layout = profile_layout(kernel, profile, selected, unfollowed=unfollowed)
        head = f"shared memory per block on {profile.name} ({own})"
        if not layout.sized:
            rows.append(f"not sized on {profile.name}: {'; '.join(dict.fromkeys(layout.undecided))}")
        else:
            rows += _rows(head, layout, profile, kernel)
    return rows


def _pinned_elsewhere(kernel: Kernel, profile: Profile | None) -> str:
    """ "pinned" when `@tilelang.jit(target=...)` names another target than `profile`'s: the
    profile then gets a row of its own, which says so (TL501 does not judge the kernel)."""
    pinned = pinned_target(kernel) if profile is not None else None
    return (
        "pinned"
        if pinned is not None and profile is not None and not targets_profile(pinned, profile)
        else ""
    )


def _static_verdict(kernel: Kernel, layout: SharedLayout, profile: Profile | None) -> tuple[int, int] | None:
    """The static bytes the compiler keeps and its limit on them, where the profile has one."""
    if profile is None or not profile.static_shared_memory_per_block or not layout.static_bytes:
        return None
    return compiled_static_bytes(kernel, layout), profile.static_shared_memory_per_block


def _rows(head: str, layout: SharedLayout, profile: Profile | None, kernel: Kernel) -> list[str]:
    """The head row of one layout (with `profile`'s limits when given) and a row per buffer."""
    if not layout.sized:
        return [f"{head}: not sized ({'; '.join(dict.fromkeys(layout.undecided))})"]
    limit = ""
    if profile is not None and profile.shared_memory_per_block:
        budget = profile.shared_memory_per_block
        verdict = "fits" if layout.total_bytes <= budget else "EXCEEDS it"
        limit = f"; the limit on {profile.name} is {budget:,}: {verdict}"
        static = _static_verdict(kernel, layout, profile)
        if static is not None:
            kept, most = static
            limit += f"; its static arrays keep {kept:,} bytes, the compiler's limit is {most:,}: " + (
                "fits" if kept <= most else "EXCEEDS it"
            )
    rows = [
        f"{head}: {layout.total_bytes:,} bytes ({layout.dynamic_bytes:,} dynamic + "
        f"{layout.static_bytes:,} static){limit}"
    ]
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


def records(kernel: Kernel, profile: Profile | None, unfollowed: int = 0) -> list[dict[str, object]]:
    """The table as numbers, one record per target class: the totals, the selected profile's
    limit (for its class), each buffer's bytes, versions, offset and live range (top-level
    statements, 1-based, inclusive), or the reasons it is not sized. A HIP profile adds a record
    of its own (the layout TL501 judges there); a profile whose backend is not sized adds one
    that says why."""
    selected = target_class(profile.backend, profile.warp_specialization) if profile is not None else None
    own = _own_row(profile, selected) or _pinned_elsewhere(kernel, profile)
    found: list[dict[str, object]] = []
    for kind in TargetClass:
        layout = kernel_layout(
            kernel, kind, unfollowed=unfollowed, wgmma=profile_wgmma(profile) if kind is selected else None
        )
        record: dict[str, object] = {"target_class": kind.name.lower(), "targets": kind.value}
        found.append(_record(record, layout, profile if kind is selected and not own else None, kernel))
    if profile is not None and selected is not None and own:
        layout = profile_layout(kernel, profile, selected, unfollowed=unfollowed)
        record = {"target_class": selected.name.lower(), "targets": f"{profile.name} ({own})"}
        found.append(_record(record, layout, profile, kernel))
    elif profile is not None and selected is None and profile.shared_memory_per_block:
        found.append(
            {
                "target_class": None,
                "targets": profile.name,
                "backend": profile.name,
                "limit": profile.shared_memory_per_block,
                "sized": False,
                "not_sized": [unsized_reason(profile.backend)],
            }
        )
    return found


def _record(
    record: dict[str, object], layout: SharedLayout, profile: Profile | None, kernel: Kernel
) -> dict[str, object]:
    if profile is not None:
        record |= {"backend": profile.name, "limit": profile.shared_memory_per_block or None}
    if not layout.sized:
        return record | {"sized": False, "not_sized": list(dict.fromkeys(layout.undecided))}
    record |= _sized(layout)
    if profile is not None and profile.shared_memory_per_block:
        record["fits"] = layout.total_bytes <= profile.shared_memory_per_block
    static = _static_verdict(kernel, layout, profile)
    if static is not None:
        record |= {
            "compiled_static_bytes": static[0],
            "static_limit": static[1],
            "static_fits": static[0] <= static[1],
        }
    return record


def _sized(layout: SharedLayout) -> dict[str, object]:
    return {
        "sized": True,
        "bytes": layout.total_bytes,
        "dynamic_bytes": layout.dynamic_bytes,
        "static_bytes": layout.static_bytes,
        "mbarrier_bytes": layout.mbarrier_bytes,
        "buffers": [
            {
                "name": buffer.name,
                "dtype": buffer.dtype,
                "shape": list(buffer.shape),
                "bytes_per_version": buffer.bytes_per_version,
                "versions": buffer.versions,
                "bytes": buffer.bytes,
                "static": buffer.static,
                "offset": buffer.offset if buffer.live is not None and not buffer.static else None,
                "live": [buffer.live[0] + 1, buffer.live[1] + 1] if buffer.live is not None else None,
            }
            for buffer in layout.buffers
        ],
    }
