"""Mutants of generated kernels that tilecheck sizes for the warp-specialised class.

Each mutant deletes, duplicates or inserts one or two statements (a copy, fill, gemm or
element statement on the kernel's buffers) into a kernel of the given directories; only
mutants tilecheck sizes for sm_90a are written, so judging them (judge.py --targets sm_90a)
and comparing (compare.py --targets sm_90a) tests that what tilecheck sizes, TileLang sizes
the same: the model's refusals are what keeps its sizes exact.

Usage: python tools/oracle/smem/mutate.py --seed 2 --count 100 --out build/oracle/smem/fuzz \
    build/oracle/smem/tma build/oracle/smem/kernels [build/oracle/smem/plain]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import libcst as cst

from tilecheck.tilelang.frontend import analyze
from tilecheck.tilelang.shared_memory import TargetClass, unfollowed_calls
from tilecheck.tilelang.warp_specialized import kernel_layout

STATEMENTS = [
    "T.copy(A_s, C[0, 0])",
    "T.fill(A_s, 0)",
    "T.clear(B_s)",
    "A_s[0, 0] = 1",
    "T.gemm(A_s, A_s, C_l)",
    "for q in T.serial(3):",
    "T.copy(C_l, A_s)",
    "T.gemm(B_s, B_s, C_l)",
    "T.clear(C_l)",
    "T.copy(A[by * 64, 0], B_s)",
    "T.copy(B_s, C[0, 0])",
    "C_l[0, 0] = A_s[0, 0]",
]


def mutant(rng: random.Random, base: str) -> str:
    lines = base.split("\n")
    for _ in range(rng.randint(1, 2)):
        at = rng.randrange(9, len(lines) - 4)
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        choice = rng.random()
        if choice < 0.3:
            del lines[at]
        elif choice < 0.7:
            lines.insert(at, indent + rng.choice(STATEMENTS))
        else:
            lines.insert(at, lines[at])
    return "\n".join(lines)


def sized(source: str) -> bool:
    try:
        model = analyze(cst.parse_module(source))
    except Exception:  # a mutant that does not parse is skipped
        return False
    if len(model.kernels) != 1:
        return False
    kernel = model.kernels[0]
    return kernel_layout(
        kernel, TargetClass.WARP_SPECIALIZED, unfollowed=unfollowed_calls(kernel, model), wgmma=True
    ).sized  # as sm_90a lowers it


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--out", type=Path, default=Path("build/oracle/smem/fuzz"))
    options = parser.parse_args()
    rng = random.Random(options.seed)
    bases = [p.read_text() for d in options.dirs for p in sorted(d.glob("*.py"))]
    if not bases:
        print("[smem] no kernels to mutate", file=sys.stderr)
        return 2
    options.out.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    for _ in range(options.count * 200):
        if len(seen) == options.count:
            break
        base = rng.choice(bases)
        source = mutant(rng, base)
        if source != base and source not in seen and sized(source):
            (options.out / f"fuzz_{len(seen):04d}.py").write_text(source)
            seen.add(source)
    print(f"[smem] wrote {len(seen)} sized mutants to {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
