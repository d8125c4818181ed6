"""`tilecheck explain --output-format json`: each kernel's shared-memory table as numbers."""

from __future__ import annotations

import json

from tests.support import run, write
from tests.test_shared_memory import gemm
from tests.test_smem_coverage import SYMBOLIC

# TileLang 0.1.15 lowers the first test's kernel for sm_90a to 9,216 B dynamic + a 32-byte mbarrier
# array (2 stages x a full and an empty barrier of 8 B); A_s and B_s are TMA tiles at 256 and 5,120.
WARP_SPECIALIZED = {
    "target_class": "warp_specialized",
    "targets": "TMA, warp-specialised (sm_90a, sm_100a, sm_120)",
    "sized": True,
    "bytes": 9248,
    "dynamic_bytes": 9216,
    "static_bytes": 32,
    "mbarrier_bytes": 32,
}


def _buffer(name, shape, per_version, versions, offset, live, static=False):
    return {
        "name": name,
        "dtype": "float16",
        "shape": shape,
        "bytes_per_version": per_version,
        "versions": versions,
        "bytes": per_version * versions if live else 0,
        "static": static,
        "offset": offset,
        "live": live,
    }


def test_the_table_as_numbers_with_the_selected_limit(tmp_path, monkeypatch, capsys):
    # The kernel of test_explain_prints_the_table_per_target_class (TileLang 0.1.15: 8,208 B on sm_80).
    monkeypatch.chdir(tmp_path)
    extra = (
        '        U_s = T.alloc_shared((64, 64), "float16")\n        O_s = T.alloc_shared((1, 7), "float16")\n'
    )
    before = "        T.copy(A[by * 64, 0], O_s)\n"
    after = "        for i, j in T.Parallel(64, 64):\n            C_l[i, j] += O_s[0, 0]\n"
    write(tmp_path, {"k.py": gemm(bm=64, bn=64, bk=16, stages=2, extra=extra, before=before, after=after)})
    outcome = run(
        capsys, "explain", "k.py", "--backend", "cuda-sm86", "--output-format", "json", "--isolated"
    )
    (kernel,) = json.loads(outcome.out)["kernels"]
    assert kernel["shared_memory"] == [
        {
            "build": None,
            "targets": [
                {
                    "target_class": "cp_async",
                    "targets": "cp.async (sm_80, sm_86, sm_87, sm_89, gfx950)",
                    "backend": "cuda-sm86",
                    "limit": 101376,
                    "sized": True,
                    "bytes": 8208,
                    "dynamic_bytes": 8208,
                    "static_bytes": 0,
                    "mbarrier_bytes": 0,
                    "buffers": [
                        _buffer("A_s", [64, 16], 2048, 2, 16, [3, 3]),
                        _buffer("B_s", [16, 64], 2048, 2, 4112, [3, 3]),
                        _buffer("U_s", [64, 64], 8192, 1, None, None),
                        _buffer("O_s", [1, 7], 14, 1, 0, [2, 4]),
                    ],
                    "fits": True,
                },
                WARP_SPECIALIZED
                | {
                    "buffers": [
                        _buffer("A_s", [64, 16], 2048, 2, 256, [3, 3]),
                        _buffer("B_s", [16, 64], 2048, 2, 5120, [3, 3]),
                        _buffer("U_s", [64, 64], 8192, 1, None, None),
                        _buffer("O_s", [1, 7], 14, 1, 0, [2, 4]),
                    ]
                },
            ],
        }
    ]


def test_each_build_has_its_table_or_its_reason_and_no_backend_no_limit(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"s.py": SYMBOLIC})
    outcome = run(capsys, "explain", "s.py", "--output-format", "json", "--isolated")
    (kernel,) = json.loads(outcome.out)["kernels"]
    sized, unknown = kernel["shared_memory"]
    assert (sized["build"], unknown["build"]) == ("make(block=64)", "make(block=?)")
    assert sized["targets"][0] == {
        "target_class": "cp_async",
        "targets": "cp.async (sm_80, sm_86, sm_87, sm_89, gfx950)",
        "sized": True,
        "bytes": 8192,
        "dynamic_bytes": 8192,
        "static_bytes": 0,
        "mbarrier_bytes": 0,
        "buffers": [_buffer("A_s", [64, 64], 8192, 1, 0, [1, 1])],
    }
    assert unknown["targets"][0] == {
        "target_class": "cp_async",
        "targets": "cp.async (sm_80, sm_86, sm_87, sm_89, gfx950)",
        "sized": False,
        "not_sized": ["the shape of `A_s` is not a constant"],
    }
