"""`--statistics`: diagnostics counted per rule, with the fix each rule offers, and a total.

    2  TL104  [-] parallel-indexed-local
    1  TL901  [*] unused-suppression
    1  TL101      nested-parallel
    Found 4 errors in 2 files.

    Modeled: 3 kernels, 12 loops in 2 of 5 files
      kernels  loops  file
            2      7  kernels/gemm.py
            1      5  kernels/softmax.py
            0      0  kernels/wrapped.py  (kernel code not modeled: TL006)

    Shared memory on cuda-sm80: 2 of 4 kernel builds sized
      1  not sized: the shape of a buffer is not a constant
      1  not sized: the kernel's configuration comes from `@autotune`: ...

With a backend selected, the last section counts the kernel builds (a factory built with two
argument sets is two) TL501 could size for it, and gives one reason for each of the others.

`[*]` marks a safe fix (applied by `--fix`), `[-]` an unsafe one (`--fix --unsafe-fixes`),
nothing a rule without a fix. The machine formats give the same table as JSON (a list of
rules, as ruff's); the coverage section is text only (SARIF has it in `run.properties`).
"""

from __future__ import annotations

import json
from typing import TextIO

from tilecheck.core import meta
from tilecheck.core.meta import Problem
from tilecheck.core.types import Diagnostic
from tilecheck.lint.coverage import Coverage, shared_totals
from tilecheck.report import Run, counts, display_path, plural

MACHINE_FORMATS = ("json", "json-lines", "sarif")


def _fix_kind(found: list[Diagnostic]) -> str | None:
    """ "safe" when some diagnostic of the rule has a safe fix, else "unsafe" when one has any fix."""
    fixes = [d.fix for d in found if d.fix is not None]
    if any(fix.safe for fix in fixes):
        return "safe"
    return "unsafe" if fixes else None


def table(run: Run) -> list[dict[str, object]]:
    by_code: dict[str, list[Diagnostic]] = {}
    for diagnostic in run.diagnostics:
        by_code.setdefault(diagnostic.code, []).append(diagnostic)
    rows = sorted(by_code.items(), key=lambda item: (-len(item[1]), item[0]))
    return [
        {
            "code": code,
            "name": found[0].rule,
            "count": len(found),
            "fixable": _fix_kind(found) == "safe" or (run.unsafe_fixes and _fix_kind(found) == "unsafe"),
            "fix": _fix_kind(found),
        }
        for code, found in rows
    ]


def render(run: Run, output_format: str, out: TextIO) -> None:
    rows = table(run)
    if output_format in MACHINE_FORMATS:
        json.dump(rows, out, indent=2)
        out.write("\n")
        return
    if not rows:
        out.write("All checks passed!\n")
    else:
        _rules(run, rows, out)
    _coverage(run, out)


def _rules(run: Run, rows: list[dict[str, object]], out: TextIO) -> None:
    width = max(len(str(row["count"])) for row in rows)
    code_width = max(len(str(row["code"])) for row in rows)
    marks: dict[object, str] = {"safe": "[*]", "unsafe": "[-]", None: "   "}
    for row in rows:
        mark = marks[row["fix"]]
        out.write(f"{row['count']:>{width}}  {row['code']:<{code_width}}  {mark} {row['name']}\n")
    files = len({d.path for d in run.diagnostics})
    out.write(f"Found {counts(run.diagnostics)} in {plural(files, 'file')}.\n")


def _coverage(run: Run, out: TextIO) -> None:
    """How many kernels and loops the model saw, per file with kernel code (`tilecheck.lint.coverage`)."""
    if not run.coverage:
        return
    files = run.covered()
    total = sum((seen for _, seen, _ in files), Coverage())
    modeled = sum(1 for _, seen, _ in files if not seen.empty)
    checked = plural(run.files_checked, "file")
    if not files:
        out.write(f"\nModeled: no kernels in {checked}\n")
        return
    kernels, loops = plural(total.kernels, "kernel"), plural(total.loops, "loop")
    out.write(f"\nModeled: {kernels}, {loops} in {modeled} of {checked}\n")
    width = max(len("kernels"), len(str(total.kernels)))
    loop_width = max(len("loops"), len(str(total.loops)))
    out.write(f"  {'kernels':>{width}}  {'loops':>{loop_width}}  file\n")
    for path, seen, unmodeled in files:
        note = (
            f"  (kernel code not modeled: {meta.code_of(Problem.UNMODELED_KERNEL_CODE)})" if unmodeled else ""
        )
        out.write(f"  {seen.kernels:>{width}}  {seen.loops:>{loop_width}}  {display_path(path)}{note}\n")
    _shared_memory(files, out)


def _shared_memory(files: list[tuple[str, Coverage, bool]], out: TextIO) -> None:
    """How many kernel builds TL501 could size, per backend, and why the others are not sized."""
    for total in shared_totals([seen for _, seen, _ in files]):
        if not total.builds:
            continue
        builds = plural(total.builds, "kernel build")
        out.write(f"\nShared memory on {total.backend}: {total.sized} of {builds} sized\n")
        width = max((len(str(count)) for _, count in total.not_sized), default=1)
        for reason, count in total.not_sized:
            out.write(f"  {count:>{width}}  not sized: {reason}\n")
