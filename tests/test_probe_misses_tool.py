"""tools/probe_misses.py on a small file: it must count modeled bodies and silent misses."""

from __future__ import annotations

import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _probe():
    spec = importlib.util.spec_from_file_location(
        "_probe_tool", os.path.join(ROOT, "tools", "probe_misses.py")
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


KERNEL = """import tilelang.language as T
from elsewhere import update


@T.prim_func
def main(A: T.Tensor((64,), "float32")):
    with T.Kernel(1, threads=64) as bx:
        for i in T.Parallel(8):
            update(A, i)
        for i in T.Parallel(8):
            A[i] = 0.0
"""


def test_a_call_tilecheck_cannot_see_into_is_a_silent_miss(tmp_path, capsys):
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    assert _probe().main([str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    # The kernel body and the second loop's body report the probe; `update(A, i)` may be pure
    # Python, so the first loop's chain is not proven broken.
    assert out[0].startswith("Bodies: 3; modeled: 3; silent misses: 1 ")
    assert out[1:] == ["     1  the body's own statements", "  k.py:8 (Parallel): the body's own statements"]


def test_a_missing_path_is_a_usage_error(tmp_path, capsys):
    assert _probe().main([str(tmp_path / "absent")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
