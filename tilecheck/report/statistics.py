"""`--statistics`: diagnostics counted per rule, with the fix each rule offers, and a total.

    2  TL104  [-] parallel-indexed-local
    1  TL901  [*] unused-suppression
    1  TL101      nested-parallel
    Found 4 errors in 2 files.

`[*]` marks a safe fix (applied by `--fix`), `[-]` an unsafe one (`--fix --unsafe-fixes`),
nothing a rule without a fix. The machine formats give the same table as JSON.
"""

from __future__ import annotations

import json
from typing import TextIO

from tilecheck.report import Run, counts, plural
from tilecheck.types import Diagnostic

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
        return
    width = max(len(str(row["count"])) for row in rows)
    code_width = max(len(str(row["code"])) for row in rows)
    marks = {"safe": "[*]", "unsafe": "[-]", None: "   "}
    for row in rows:
        mark = marks[row["fix"]]  # type: ignore[index]
        out.write(f"{row['count']:>{width}}  {row['code']:<{code_width}}  {mark} {row['name']}\n")
    files = len({d.path for d in run.diagnostics})
    out.write(f"Found {counts(run.diagnostics)} in {plural(files, 'file')}.\n")
