"""Which malformed pipeline schedules does TileLang 0.1.15 accept, per target? (issue 10 §3)

Run with the oracle's interpreter (`/work/oracle-venv/bin/python` or `.oracle-venv/bin/python`):
each case builds a small GEMM-like kernel whose `T.Pipelined` loop has `len(order)` statements,
lowers it for every target below on the CPU, and prints one JSON line per (case, target):
`built` (the frontend accepted it), `lowered` (the lowering accepted it) and the first line of
the error. The answers are recorded in the rules' "Backends" sections (TL203).
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import Any

CASES: dict[str, dict[str, Any]] = {  # the keywords of each case's `T.Pipelined`
    "valid": dict(order=[0, 1, 2], stage=[0, 0, 1]),
    "warp-specialized -1": dict(order=[-1, 0, 3, 1, -1, 2], stage=[-1, 0, 0, 1, -1, 1]),
    "not a permutation": dict(order=[0, 0, 1], stage=[0, 0, 1]),
    "order without stage": dict(order=[0, 1, 2], stage=None),
    "stage without order": dict(order=None, stage=[0, 0, 1]),
    "different lengths": dict(order=[0, 1, 2], stage=[0, 1]),
    "negative stage": dict(order=[0, 1, 2], stage=[0, -1, 1]),
    "negative num_stages": dict(num_stages=-1),
    "group keyword": dict(order=[0, 1, 2], stage=[0, 0, 1], group=[[0], [1], [2]]),
    # TL203's reasons: what PipelinePlanning says, and which orders it accepts (`statements`: the
    # body's statement count when it differs from the arrays' length)
    "order with a gap": dict(order=[0, 1, 3], stage=[0, 0, 1]),
    "order with a gap, two statements": dict(order=[0, 2], stage=[0, 1]),
    "negative order": dict(order=[-1, 0, 1], stage=[0, 0, 1]),
    "negative order and stage": dict(order=[-1, 0, 1], stage=[-1, 0, 1]),
    "more entries than statements": dict(order=[0, 1, 2, 3], stage=[0, 0, 1, 1], statements=3),
    "fewer entries than statements": dict(order=[0, 1], stage=[0, 1], statements=3),
    "stage starting at 1": dict(order=[0, 1, 2], stage=[1, 1, 2]),
}
TARGETS = {
    "cuda-sm80": {"kind": "cuda", "arch": "sm_80"},
    "cuda-sm90": {"kind": "cuda", "arch": "sm_90a"},
    "hip-gfx942": {"kind": "hip", "mcpu": "gfx942"},
    "cpu": {"kind": "c"},
}


def kernel_source(statements: int, schedule: dict[str, object]) -> str:
    """A kernel whose pipelined body has `statements` statements: copies, every third a gemm."""
    arguments = "".join(f", {key}={value!r}" for key, value in schedule.items())
    body = []
    for s in range(statements):
        if s % 3 == 2:
            body.append(f"                T.gemm(S{s - 2}, S{s - 1}, acc)")
        else:
            body.append(f"                T.copy(A[{s * 32}, k * 32], S{s})")
    shared = "".join(f'            S{s} = T.alloc_shared((32, 32), "float16")\n' for s in range(statements))
    return (
        "import tilelang.language as T\n\n\n"
        "@T.prim_func\n"
        'def main(A: T.Tensor((512, 512), "float16"), B: T.Tensor((512, 512), "float32")):\n'
        "        with T.Kernel(1, threads=128) as _bx:\n"
        + shared
        + '            acc = T.alloc_fragment((32, 32), "float32")\n'
        "            T.clear(acc)\n"
        f"            for k in T.Pipelined(8{arguments}):\n" + "\n".join(body) + "\n"
        "            T.copy(acc, B[0, 0])\n"
    )


def build(source: str, directory: str, name: str) -> object:
    """Import the kernel from a file: TileLang's builder reads the function's source."""
    import importlib.util
    import os

    path = os.path.join(directory, f"{name}.py")
    with open(path, "w") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


def reason(text: str) -> str:
    """The line of a TVM error that says what failed (its last lines are a source excerpt)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if "Check failed" in line or "Error" in line or "not supported" in line:
            return line[:300]
    return (lines or [""])[0][:300]


def main() -> int:
    import logging
    import tempfile

    import tilelang  # type: ignore[import-not-found]  # only in the oracle's venv
    import tvm  # type: ignore[import-not-found]  # only in the oracle's venv

    # `--case NAME` and `--target NAME` (repeatable) restrict the questions asked
    only = [sys.argv[i + 1] for i, arg in enumerate(sys.argv[:-1]) if arg == "--case"]
    targets = [sys.argv[i + 1] for i, arg in enumerate(sys.argv[:-1]) if arg == "--target"]
    logging.disable(logging.CRITICAL)  # the builder logs the whole kernel on failure
    directory = tempfile.mkdtemp()
    for number, (name, schedule) in enumerate(CASES.items()):
        lengths = [len(v) for k, v in schedule.items() if k in ("order", "stage") and v is not None]
        statements = schedule.get("statements") or max(lengths, default=3)
        schedule = {k: v for k, v in schedule.items() if v is not None and k != "statements"}
        if only and name not in only:
            continue
        try:
            func = build(kernel_source(statements, schedule), directory, f"case{number}")
        except Exception as error:  # the frontend rejects it: every target
            line = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
            print(json.dumps({"case": name, "target": "*", "built": False, "error": line}), flush=True)
            continue
        for target_name, target in TARGETS.items():
            if targets and target_name not in targets:
                continue
            record: dict[str, object] = {"case": name, "target": target_name, "built": True}
            try:
                with tvm.target.Target(target):
                    tilelang.lower(func, target=target)
                record["lowered"] = True
            except Exception as error:
                record["lowered"] = False
                record["error"] = f"{type(error).__name__}: {reason(str(error))}"
                if "--trace" in sys.argv:
                    traceback.print_exc()
            print(json.dumps(record), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
