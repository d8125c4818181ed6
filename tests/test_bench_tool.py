"""`make bench` prints every figure beside its anchor, with the load average, from one run
(on a two-file corpus here: what it prints, never how fast; no timing is asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KERNEL = """\
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((8,), "float32")):
    with T.Kernel(1) as bx:
        for k in T.serial(0, 4, 0):
            A[k] = 1.0
"""


def test_the_bench_prints_each_figure_beside_its_anchor(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.py").write_text(KERNEL)
    (corpus / "b.py").write_text("X = 1\n")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "bench.py"),
            "--corpus",
            str(corpus),
            "--repeat",
            "1",
            "--no-lower",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    out = done.stdout
    assert "corpus 2 files, " in out
    assert re.search(r"^load average \(1, 5, 15 min\): [0-9.]+, [0-9.]+, [0-9.]+ before", out, re.MULTILINE)
    figure = r"[0-9]+\.[0-9]{3} s \(cpu [0-9]+\.[0-9]{3}\)"
    for label, anchor in [
        ("cold, whole tree", "ruff --select ALL --no-cache"),
        ("warm, nothing changed", "ruff cached"),
        ("cached FILE (small)", "ruff cached"),
        ("check FILE (small, cold)", "ruff --no-cache"),
        ("cached FILE, installed", "ruff cached"),
        ("check FILE, installed", "ruff --no-cache"),
    ]:
        row = rf"^{re.escape(label)} +{figure} +{re.escape(anchor)} {figure} +[0-9.]+x \([0-9.]+x\)"
        assert re.search(row, out, re.MULTILINE), (label, out)
    assert re.search(rf"^ +{figure} +libcst\.parse_module {figure} +[0-9.]+x", out, re.MULTILINE)
    assert re.search(rf"^ +{figure} +its python -c pass {figure} +[0-9.]+x", out, re.MULTILINE)
    assert re.search(r"^peak RSS, cold whole tree +[0-9]+ MB", out, re.MULTILINE)
    for part in ("libcst parse", "kernel model", "rules", "report (full format)"):
        assert re.search(rf"^  {re.escape(part)} +[0-9.]+ s +[0-9]+%", out, re.MULTILINE), part
