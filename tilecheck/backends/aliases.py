"""The profile an unknown `--backend` name most likely means: `sm_90a`, `h100`, `rtx4090`.

Users name a target by its compute capability (`sm90`, `sm_90a`, `cuda-sm100a`) or by the GPU
(`H100`, `A100`, `RTX 4090`). The GPU to compute capability mapping is NVIDIA's public table
(https://developer.nvidia.com/cuda-gpus); AMD Instinct to gfx is the ROCm hardware table
(https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html). A GPU whose capability
has no profile gets no suggestion (a wrong budget is worse than none). A vendor or platform
name alone (`cuda`, `hip`, `rocm`, `apple`) names a family: the message lists its profiles
rather than guessing one, since they differ in budget and schedule.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

# (pattern on the normalized name, profile). First match wins: `a100` before `a10`.
_GPUS: tuple[tuple[str, str], ...] = (
    (r"(a100|a800|a30)", "cuda-sm80"),
    (r"(a10g?|a16|a2|a40|rtxa\d{4}|a[4-6]000|rtx30\d0(ti)?|30\d0(ti)?)", "cuda-sm86"),
    (r"(jetson)?(agx)?orin(nx|nano)?(devkit)?", "cuda-sm87"),
    (r"(l4|l40s?|l20|rtx40\d0(ti|super)?|40\d0(ti|super)?|rtx\d{4}ada)", "cuda-sm89"),
    (r"(gh200|h100|h200|h800|h20)", "cuda-sm90"),
    (r"(gb200|b200|b100)", "cuda-sm100"),
    (r"(rtx50\d0(ti)?|50\d0(ti)?|rtxpro\d{4}(blackwell)?)", "cuda-sm120"),
    (r"(mi300[ax]?|mi325x?)", "hip-gfx942"),
    (r"(mi35[05]x?)", "hip-gfx950"),
)
_VENDOR = re.compile(r"^(nvidia|geforce|amd|instinct|tesla|quadro)+")
# `sm90`, `sm_90a`, `cuda-sm100a`, `compute_90`, `cc90`: the arch-specific suffix does not change
# what the profile models.
_ARCH = re.compile(r"(?:cuda)?(?:sm|compute|cc)(\d{2,3})[af]?")
_GFX = re.compile(r"(?:hip|rocm)?(gfx\d{3}[a-z]?)")
# A form factor or memory size after the GPU name: `h100sxm`, `a100-80gb`, `l40s-48g`.
_SUFFIX = r"(pcie|sxm\d?|nvl|\d+g[b]?)*"


# A platform's name alone, normalized, and what its profiles' names start with.
_FAMILIES: tuple[tuple[str, str], ...] = (
    (r"(cuda|nvidia|nv)", "cuda-"),
    (r"(hip|rocm|amd|amdgpu|instinct)", "hip-"),
    (r"(apple|mps|applesilicon|m[1-5](pro|max|ultra)?)", "metal"),
    (r"(wgpu|dawn|browser)", "webgpu"),
    (r"(npu|huawei|cann|910b?|ascendc)", "ascend"),
)


def family_backends(name: str, known: Iterable[str]) -> list[str]:
    """The known profiles of the platform `name` names on its own (`hip`: both gfx profiles),
    or [] when `name` is not a platform's name."""
    text = re.sub(r"[\s_.\-]+", "", name.lower())
    for pattern, prefix in _FAMILIES:
        if re.fullmatch(pattern, text):
            return [profile for profile in known if profile.startswith(prefix)]
    return []


def suggest_backend(name: str, known: Iterable[str]) -> str | None:
    """The known profile `name` probably means, or None."""
    profiles = list(known)
    family = family_backends(name, profiles)
    if len(family) == 1:  # `apple`: the platform has one profile
        return family[0]
    text = _VENDOR.sub("", re.sub(r"[\s_.\-]+", "", name.lower()))
    candidates: list[str] = []
    arch = _ARCH.fullmatch(text)
    if arch is not None:
        candidates.append(f"cuda-sm{arch.group(1)}")
    gfx = _GFX.fullmatch(text)
    if gfx is not None:
        candidates.append(f"hip-{gfx.group(1)}")
    candidates += [profile for pattern, profile in _GPUS if re.fullmatch(pattern + _SUFFIX, text)]
    for candidate in candidates:
        if candidate in profiles:
            return candidate
    if arch is not None or gfx is not None:  # `sm70` is not `sm80`: an unshipped arch gets no guess
        return None
    close = difflib.get_close_matches(name, profiles, n=1, cutoff=0.75)
    return close[0] if close else None


def unknown_backend(name: str, known: Iterable[str]) -> str:
    """`unknown backend `sm90` (did you mean `cuda-sm90`? known: ...)`; a platform's name lists
    that platform's profiles."""
    profiles = list(known)
    family = family_backends(name, profiles)
    if len(family) > 1:
        choices = ", ".join(f"`{profile}`" for profile in family)
        return f"unknown backend `{name}` (a platform: pick one of {choices}; `tilecheck backends NAME` describes each)"
    close = suggest_backend(name, profiles)
    hint = f"did you mean `{close}`? " if close else ""
    return f"unknown backend `{name}` ({hint}known: {', '.join(profiles)})"
