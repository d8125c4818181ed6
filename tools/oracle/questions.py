#!/usr/bin/env python3
"""Print the real TileLang verdicts for fixtures/oracle_questions/ as Markdown tables.

    .oracle-venv/bin/python tools/oracle/questions.py [fixtures/oracle_questions]

Each fixture file holds several sub-case kernels (``KERNELS`` dict); every
sub-case is checked on its own (``per_kernel``) so first-error masking does not
hide anything.  Sub-cases the frontend refuses to build are listed from the
file's ``BUILD_ERRORS``.  Used to write tools/oracle/ANSWERS.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from oracle_worker import FAMILIES
from run_tilelang import expand_paths, run_files

SHORT = {
    "NestedLoopChecker": "Nested",
    "ParallelLocalIndexChecker": "LocalIndex",
    "FragmentLoopChecker": "Fragment",
}


def short_msg(msg: str) -> str:
    msg = msg.replace("[Tilelang Semantic Check] ", "")
    if "Got a tile-op" in msg and 'name="' in msg:
        name = msg.split('name="', 1)[1].split('"', 1)[0]
        return msg.split(" Got a tile-op", 1)[0] + f' Got a tile-op "{name}" (full ir.Op repr elided)'
    if msg.startswith("Local buffer"):
        return msg.split(" Local buffers are thread-private", 1)[0]
    return msg


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else "fixtures/oracle_questions"
    for rec in run_files(expand_paths([root]), jobs=2, progress=False):
        print(f"\n### {Path(rec['path']).name}\n")
        if rec.get("status") != "ok":
            print(f"- whole file: **{rec.get('status')}** `{rec.get('error')}`")
            continue
        print("| sub-case | verdict | message |\n|---|---|---|")
        per = rec.get("per_kernel") or {
            rec["kernels"][0]: {f: v["message"] for f, v in rec["families"].items()}
        }
        for name, res in per.items():
            rejected = [(SHORT[f], res[f]) for f in FAMILIES if res.get(f)]
            if not rejected:
                print(f"| `{name}` | pass | |")
            for fam, msg in rejected:
                print(f"| `{name}` | **{fam}** | {short_msg(msg)} |")
        for name, err in (rec.get("sub_build_errors") or {}).items():
            print(f"| `{name}` | build error | `{err.splitlines()[0][:200]}` |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
