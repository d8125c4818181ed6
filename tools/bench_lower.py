"""Benchmark `tilecheck lower`: a 1,000-line PyPTO file with 50 pipeline loops (target <= 0.2 s).

Usage: python tools/bench_lower.py [--repeat N]. Prints the best wall time of N runs of
`lower_source` (parse, checks, lowering, naming and code generation) and exits 1 when it is over
the target. For comparison on a busy machine it also prints the best time of a bare
`libcst.parse_module` of the same text, which `lower_source` cannot go below.
"""

from __future__ import annotations

import argparse
import sys
import time

TARGET_SECONDS = 0.2
LOOPS = 50
LINES = 1000


def _kernel(index: int) -> list[str]:
    """One function of 20 lines holding one pipeline loop (static, dynamic or carried)."""
    stop = "n" if index % 3 == 1 else str(37 + index % 5)
    carried = index % 3 == 2
    header = (
        f"        for i, (acc,) in pl.pipeline(0, {stop}, 1, stage=4, init_values=(s0,)):"
        if carried
        else (f"        for i in pl.pipeline(0, {stop}, 1, stage=4):")
    )
    lines = [
        "    @pl.function",
        f"    def kernel_{index}(self, a: pl.Tensor, out: pl.Tensor, n: pl.Scalar, s0: pl.Tensor):",
        f"        # kernel {index}: stream rows through a 4-stage pipeline",
        "        base = n * 2",
        header,
        "            row = pl.tile.load(a, [i * 64, 0], [64, 128], target_memory=pl.Mem.Vec)",
        "            scaled = pl.tile.muls(row, 0.5)",
        "            shifted = pl.tile.adds(scaled, 1.0)",
        "            total = pl.tile.add(shifted, row)",
        "            pl.tile.store(total, [i * 64, 0], out)",
        "            offset = (i + 1) * 64 + base",
    ]
    if carried:
        lines.append("            r = pl.yield_(pl.tile.add(acc, total))")
    else:
        lines.append("            pl.tile.store(row, [offset, 0], out)")
    lines += [
        "        result = pl.tile.load(a, [0, 0], [64, 128])",
        "        pl.tile.store(result, [0, 0], out)",
        "        return out",
        "",
    ]
    return lines


def make_source() -> str:
    lines = ["import pypto.language as pl", "", "", "@pl.program", "class Bench:"]
    for index in range(LOOPS):
        lines += _kernel(index)
    while len(lines) < LINES:
        lines.append(f"# padding line {len(lines)}")
    return "\n".join(lines[:LINES]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    sys.path.insert(0, ".")
    from tilecheck.pypto import lower_source

    source = make_source()
    assert source.count("\n") == LINES and source.count("pl.pipeline(") == LOOPS
    best = float("inf")
    for _ in range(max(1, args.repeat)):
        started = time.perf_counter()
        result = lower_source(source, "bench.py")
        best = min(best, time.perf_counter() - started)
    assert result.changed and not result.diagnostics, result.diagnostics
    import libcst

    parse = float("inf")
    for _ in range(max(1, args.repeat)):
        started = time.perf_counter()
        libcst.parse_module(source)
        parse = min(parse, time.perf_counter() - started)
    print(f"lower: {LINES} lines, {LOOPS} pipeline loops: {best:.3f} s (target {TARGET_SECONDS:.1f} s)")
    print(f"  of which libcst.parse_module alone: {parse:.3f} s; everything else: {best - parse:.3f} s")
    return 0 if best <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
