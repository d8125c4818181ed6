"""Shared helpers for the CLI-level tests: a kernel with known findings, and a CLI runner."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from tilecheck.cli.main import main

# Findings (line, column, code): (10, 13, TL104), (12, 13, TL105), (15, 22, TL101).
KERNEL = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32"), n: T.int32):
    with T.Kernel(1, threads=128) as bx:
        loc = T.alloc_local((64,), "float32")
        frag = T.alloc_fragment((64,), "float32")
        for i in T.Parallel(64):
            loc[i] = A[i, 0]
        for i in T.Parallel(n):
            frag[i] = 0
        for i in T.Parallel(64):
            B[i, 0] = 0
            for j in T.Parallel(64):
                B[i, j] = A[i, j]
"""
ALL_FINDINGS = [(10, 13, "TL104"), (12, 13, "TL105"), (15, 22, "TL101")]

CLEAN = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i, j in T.Parallel(64, 64):
            B[i, j] = A[i, j]
"""


@dataclass
class Outcome:
    status: int
    out: str
    err: str

    def findings(self) -> list[tuple[str, int, int, str]]:
        """(file name, line, column, code) from `--output-format json` output."""
        return [
            (os.path.basename(d["path"]), d["line"], d["column"], d["code"]) for d in json.loads(self.out)
        ]


def run(capsys, *args: str) -> Outcome:
    capsys.readouterr()
    status = main(list(args))
    captured = capsys.readouterr()
    return Outcome(status, captured.out, captured.err)


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
