"""Size the shared memory of every kernel in a corpus of TileLang files (tilecheck's side).

Usage: python tools/oracle/smem/corpus.py [--out build/oracle/smem/corpus.json] DIR
Writes, per file, each kernel tilecheck builds: its name, line, and either its bytes for the
cp.async class (sm_80) or why it is not sized. Prints the counts and the reasons.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path
from typing import Any

import libcst as cst

from tilecheck.tilelang.frontend import analyze
from tilecheck.tilelang.shared_memory import TargetClass, shared_layout, unfollowed_calls


def size_file(path: Path) -> list[dict[str, Any]]:
    try:
        module = cst.parse_module(path.read_text(encoding="utf-8"))
        model = analyze(module)
    except Exception as error:  # one file's failure never costs the others' results
        return [{"error": f"{type(error).__name__}: {error}"}]
    found = []
    for kernel in model.kernels:
        layout = shared_layout(kernel, TargetClass.CP_ASYNC, unfollowed=unfollowed_calls(kernel, model))
        line = module.code[: module.code.find(f"def {kernel.name}(")].count("\n") + 1
        record: dict[str, Any] = {"kernel": kernel.name, "line": line}
        if layout.sized:
            record["bytes"] = layout.total_bytes
            record["buffers"] = [(b.name, b.bytes, b.versions) for b in layout.buffers]
        else:
            record["undecided"] = layout.undecided
        found.append(record)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--out", type=Path, default=Path("build/oracle/smem/corpus.json"))
    options = parser.parse_args()
    results = {str(p): size_file(p) for p in sorted(options.root.rglob("*.py"))}
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps(results, indent=1))
    kernels = [k for ks in results.values() for k in ks if "kernel" in k]
    sized = [k for k in kernels if "bytes" in k]
    reasons: collections.Counter[str] = collections.Counter()
    for k in kernels:
        for reason in k.get("undecided", [])[:1]:
            reasons[reason.split("`")[0] + ("`...`" + reason.split("`")[-1] if "`" in reason else "")] += 1
    print(f"[smem-corpus] {len(results)} files, {len(kernels)} kernels, {len(sized)} sized")
    for reason, count in reasons.most_common(15):
        print(f"[smem-corpus]   not sized ({count}): {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
