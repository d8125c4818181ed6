"""The shared-memory size TL501 judges for one kernel build under one profile, or why none.

One place for what TL501 and the coverage counts both need: a build is judged when the
profile is a CUDA one with a per-block budget, its target class is one tilecheck sizes, the
function launches exactly one `T.Kernel`, no undecided Python condition of its factory
surrounds it, and `kernel_layout` decides every buffer.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tilecheck.tilelang.shared_memory import (
    SIZED_CLASSES,
    SharedLayout,
    TargetClass,
    kernel_launch,
    target_class,
    unfollowed_calls,
)
from tilecheck.tilelang.warp_specialized import kernel_layout

if TYPE_CHECKING:
    from tilecheck.backends.profile import Profile
    from tilecheck.tilelang.model import FileModel, Kernel

NO_BUDGET = "the backend's profile gives no shared-memory budget"


def sized_class(profile: Profile) -> TargetClass | None:
    """The target class a profile's kernels are sized for; None when they are not sized."""
    if profile.shared_memory_per_block <= 0:
        return None
    kind = target_class(profile.backend, profile.warp_specialization)
    return kind if kind in SIZED_CLASSES else None


def judged_layout(kernel: Kernel, model: FileModel, kind: TargetClass) -> SharedLayout:
    """The layout of one build for `kind`; `undecided` says why it is not sized."""
    if kernel_launch(kernel) is None:
        layout = SharedLayout(kind)
        layout.undecided.append("the function does not launch exactly one `T.Kernel`")
        return layout
    if kernel.conditions:
        layout = SharedLayout(kind)
        layout.undecided.append("the kernel is defined under a Python condition tilecheck cannot decide")
        return layout
    return kernel_layout(kernel, kind, unfollowed=unfollowed_calls(kernel, model))


def reason_kind(reason: str) -> str:
    """A reason without the names and values in it, so that alike reasons count together:
    "the shape of `A_s` is not a constant" -> "the shape of a buffer is not a constant"."""
    reason = re.sub(r"\s*\([^)]*\)", "", reason)
    reason = re.sub(r"`T\.(reduce\w*|cumsum|finalize_reducer)` may", "a reduction may", reason)
    return re.sub(r"`[A-Za-z_]\w*`", "a buffer", reason)  # `T.im2col`, `@autotune` stay
