"""Compare tilecheck's shared-memory sizes with TileLang's (the judge's cache), byte for byte.

Usage: python tools/oracle/smem/compare.py [--cache build/oracle/smem/cache.json] DIR_OR_FILES...
Sizes both CUDA target classes (sm_80: cp.async; sm_90a: TMA, warp-specialised) and prints
agreement per target, why the kernels not sized are not, and every disagreement (path,
tilecheck, TileLang); writes
`--report` as JSON. Exit status 0 when every sized kernel agrees, 1 otherwise.

HIP targets (`hip:gfx942`, `hip:gfx950`) are sized as their profile sizes them
(`tilecheck.tilelang.sizing.profile_layout`: gfx942 strips num_stages). Metal and WebGPU, which
tilecheck does not size, are compared with the cp.async class as it is (`metal`, `webgpu`): the
measurement behind their "not sized" reasons.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import libcst as cst

from tilecheck.backends.profile import get_profile
from tilecheck.tilelang.frontend import analyze
from tilecheck.tilelang.shared_memory import TargetClass, unfollowed_calls
from tilecheck.tilelang.sizing import profile_layout
from tilecheck.tilelang.warp_specialized import kernel_layout, wgmma_target

ARCH_CLASSES = {
    "sm_80": TargetClass.CP_ASYNC,
    "sm_86": TargetClass.CP_ASYNC,
    "sm_87": TargetClass.CP_ASYNC,
    "sm_89": TargetClass.CP_ASYNC,
    "sm_90a": TargetClass.WARP_SPECIALIZED,
    "sm_100a": TargetClass.WARP_SPECIALIZED,
    "sm_120": TargetClass.WARP_SPECIALIZED,
    "hip:gfx942": TargetClass.CP_ASYNC,
    "hip:gfx950": TargetClass.CP_ASYNC,
    "metal": TargetClass.CP_ASYNC,
    "webgpu": TargetClass.CP_ASYNC,
}
PROFILES = {"hip:gfx942": "hip-gfx942", "hip:gfx950": "hip-gfx950"}  # sized as the profile sizes them
VERSION = "0.1.15"


def tilelang_bytes(verdict: dict[str, Any]) -> int | None:
    kernels = verdict.get("kernels") or {}
    if verdict.get("status") != "ok" or len(kernels) != 1:
        return None
    (only,) = kernels.values()
    return int(only["dynamic"]) + int(only.get("static", 0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--cache", type=Path, default=Path("build/oracle/smem/cache.json"))
    parser.add_argument("--report", type=Path, default=None)
    parser.add_argument(
        "--targets", default="sm_80,sm_90a", help="comma-separated: " + ", ".join(ARCH_CLASSES)
    )
    options = parser.parse_args()
    classes = {arch: ARCH_CLASSES[arch] for arch in options.targets.split(",")}
    cache: dict[str, Any] = json.loads(options.cache.read_text()) if options.cache.exists() else {}
    files: list[Path] = []
    for item in options.paths:
        path = Path(item)
        files.extend(sorted(path.glob("*.py")) if path.is_dir() else [path])
    counts: dict[str, collections.Counter[str]] = {arch: collections.Counter() for arch in classes}
    disagreements: list[dict[str, Any]] = []
    reasons: dict[str, collections.Counter[str]] = {arch: collections.Counter() for arch in classes}
    for path in files:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        model = analyze(cst.parse_module(path.read_text()))
        for arch, target_class in classes.items():
            verdict = cache.get(f"{digest}:{arch}:{VERSION}")
            if verdict is None:
                counts[arch]["not judged"] += 1
                continue
            expected = tilelang_bytes(verdict)
            if expected is None:
                counts[arch]["TileLang did not lower"] += 1
                continue
            if len(model.kernels) != 1:
                counts[arch]["not one kernel"] += 1
                continue
            kernel = model.kernels[0]
            unfollowed = unfollowed_calls(kernel, model)
            if arch in PROFILES:
                layout = profile_layout(
                    kernel, get_profile(PROFILES[arch]), target_class, unfollowed=unfollowed
                )
            else:
                # the arch decides whether a `T.gemm` is a wgmma (sm_90a), which aligns its tiles
                wgmma = (
                    wgmma_target(f"cuda -arch={arch}")
                    if target_class is TargetClass.WARP_SPECIALIZED
                    else None
                )
                layout = kernel_layout(kernel, target_class, unfollowed=unfollowed, wgmma=wgmma)
            if not layout.sized:
                counts[arch]["not sized"] += 1
                reasons[arch][layout.undecided[0]] += 1
                continue
            if layout.total_bytes == expected:
                counts[arch]["agree"] += 1
            else:
                counts[arch]["disagree"] += 1
                disagreements.append(
                    {"path": str(path), "target": arch, "tilecheck": layout.total_bytes, "tilelang": expected,
                     "tilelang_detail": verdict["kernels"],
                     "buffers": [(s.name, s.bytes, s.versions, s.live, s.offset) for s in layout.buffers]}
                )  # fmt: skip
    for arch, counter in counts.items():
        sized = counter["agree"] + counter["disagree"]
        share = f"{100 * counter['agree'] / sized:.1f} %" if sized else "n/a"
        print(f"[smem] {arch}: {counter['agree']}/{sized} byte-exact ({share}); {dict(counter)}")
        for reason, count in reasons[arch].most_common():
            print(f"[smem]   {arch} not sized ({count}): {reason}")
    for item in disagreements:
        print(
            f"[smem]   DISAGREE {item['target']} {item['path']}: tilecheck {item['tilecheck']}, TileLang {item['tilelang']}"
        )
    if options.report is not None:
        options.report.write_text(
            json.dumps({"counts": counts, "not_sized": reasons, "disagreements": disagreements}, indent=1)
        )
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
