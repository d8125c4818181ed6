"""`make sweep`: every `.py` of CPython's standard library and of the shared corpus through
`tilecheck check` and `tilecheck lower`, in tilecheck's crash-isolated workers.

Passes when there are zero internal errors (TL005, a crashed worker, a file over the per-file
budget, a traceback or exit 2 from `lower`) and zero TL1xx-TL4xx diagnostics on files that use
neither TileLang nor PyPTO. Prints the counts, the slowest files and the peak memory.

    python tools/sweep.py [--jobs N] [--limit N] [ROOT ...]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import sys
import sysconfig
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tilecheck.app.supervisor import Budget
from tools.harness import Outcome, check_files, internal_errors, lower_files, lower_problems, uses_dsl

CORPUS = "/work/shared/corpus"
_FINDING = re.compile(r"TL[1-4]\d\d")
_UNCHECKED = {"TL001", "TL002", "TL003", "TL004", "TL007"}


def python_files(roots: list[str]) -> list[str]:
    found = []
    for root in roots:
        for directory, subdirectories, files in os.walk(root):
            subdirectories[:] = sorted(d for d in subdirectories if d not in ("__pycache__", "site-packages"))
            found += [os.path.join(directory, name) for name in sorted(files) if name.endswith(".py")]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--limit", type=int, default=0, help="only the first N files (a quick run)")
    args = parser.parse_args(argv)
    roots = args.roots or [sysconfig.get_paths()["stdlib"], *([CORPUS] if os.path.isdir(CORPUS) else [])]
    files = python_files(roots)[: args.limit or None]
    budget = Budget()
    print(
        f"sweep: {len(files)} files under {', '.join(roots)}; budget {budget.seconds:g} s, {budget.memory} MiB"
    )
    failures: list[str] = []
    started = time.monotonic()
    checked = check_files(files, jobs=args.jobs, budget=budget)
    check_seconds = time.monotonic() - started
    codes: Counter[str] = Counter()
    for outcome in checked:
        failures += [f"check {outcome.path}: {problem}" for problem in internal_errors(outcome)]
        for diagnostic in outcome.analysis.diagnostics:
            codes[diagnostic.code] += 1
            if diagnostic.code in _UNCHECKED:  # files tilecheck could not analyze, and why
                span = diagnostic.span
                print(
                    f"  {outcome.path}:{span.line}:{span.column + 1}: {diagnostic.code} {diagnostic.message[:160]}"
                )
            if _FINDING.fullmatch(diagnostic.code) and not uses_dsl(outcome.analysis.text):
                failures.append(
                    f"check {outcome.path}: {diagnostic.code} on a file without TileLang or PyPTO"
                )
    started = time.monotonic()
    lowered = lower_files(files, jobs=args.jobs, budget=budget)
    lower_seconds = time.monotonic() - started
    lower_status = Counter(outcome.lower.get("status") for outcome in lowered)
    for outcome in lowered:
        failures += [f"lower {outcome.path}: {problem}" for problem in lower_problems(outcome)]
    _report(checked, lowered, codes, lower_status, check_seconds, lower_seconds)
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"sweep: {len(failures)} failure(s)")
    return 1 if failures else 0


def _report(
    checked: list[Outcome],
    lowered: list[Outcome],
    codes: Counter[str],
    lower_status: Counter[int | None],
    check_seconds: float,
    lower_seconds: float,
) -> None:
    print(
        f"check: {len(checked)} files in {check_seconds:.1f} s; diagnostics by code: {dict(sorted(codes.items()))}"
    )
    print(f"lower: {len(lowered)} files in {lower_seconds:.1f} s; exit statuses: {dict(lower_status)}")
    for name, outcomes in (("check", checked), ("lower", lowered)):
        slowest = sorted(outcomes, key=lambda outcome: outcome.seconds, reverse=True)[:3]
        print(f"{name}: slowest " + "; ".join(f"{o.path} {o.seconds:.2f} s" for o in slowest))
        peak = max(outcomes, key=lambda outcome: outcome.peak_kib, default=None)
        if peak is not None:
            print(f"{name}: peak worker memory {peak.peak_kib / 1024:.0f} MiB (reached at {peak.path})")
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"peak resident size of any worker: {children / 1024:.0f} MiB")


if __name__ == "__main__":
    sys.exit(main())
