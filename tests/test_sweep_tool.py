"""`make sweep` (tools/sweep.py) on a small tree: the tool itself must keep working (it broke
silently once when the worker task grew a field), and it must count what it is meant to."""

from __future__ import annotations

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _sweep():
    spec = importlib.util.spec_from_file_location("_sweep_tool", os.path.join(ROOT, "tools", "sweep.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


KERNEL = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(64):
            A[i] = 0.0
"""


def test_sweep_of_a_clean_tree_has_no_failures(tmp_path, capsys):
    (tmp_path / "plain.py").write_text("def f(x):\n    return x + 1\n")
    (tmp_path / "kernel.py").write_text(KERNEL)
    (tmp_path / "broken.py").write_text("def f(:\n")
    assert _sweep().main([str(tmp_path), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "sweep: 3 files under" in out
    assert "TL005" not in out
    assert out.rstrip().endswith("sweep: 0 failure(s)")
