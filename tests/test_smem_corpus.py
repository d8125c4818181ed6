"""tools/oracle/smem/corpus_judge.py: tilecheck's builds of a corpus file, rebuilt and lowered
with TileLang 0.1.15 (the lowering test skips without the oracle venv)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).resolve().parent.parent / "tools" / "oracle" / "smem" / "corpus_judge.py"
ORACLE_PYTHON = Path(os.environ.get("ORACLE_VENV", "/work/oracle-venv")) / "bin" / "python"

# A factory called with constants (sized), one called with a symbolic tile (not sized), and a
# module-level prim_func: 64x32 + 32x64 fp16 tiles, 3 versions each = 24,576 B on sm_80.
FIXTURE = """
import tilelang.language as T


def matmul(M, N, K, block_M, block_N, block_K, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def run(block):
    return matmul(512, 512, 512, 64, 64, block)


kernel = matmul(512, 512, 512, 64, 64, 32)
"""


def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_corpus_judge", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_builds_carry_the_size_and_the_request_that_rebuilds_them(tmp_path: Path) -> None:
    path = tmp_path / "gemm.py"
    path.write_text(FIXTURE)
    builds = tool().tilecheck_builds(path)
    sized = [b for b in builds if "bytes" in b]
    assert [(b["kernel"], b["line"], b["bytes"]) for b in sized] == [("main", 7, 24576)]
    assert sized[0]["request"] == {
        "object": "matmul",
        "arguments": {
            "M": 512,
            "N": 512,
            "K": 512,
            "block_M": 64,
            "block_N": 64,
            "block_K": 32,
            "dtype": "float16",
        },
        "kernel": "main",
    }
    assert [b["undecided"][0] for b in builds if "bytes" not in b] == [
        "the shape of `A_shared` is not a constant"
    ]


def _oracle_has_tilelang() -> bool:
    if not ORACLE_PYTHON.exists():
        return False
    probe = subprocess.run([str(ORACLE_PYTHON), "-c", "import tilelang"], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.skipif(not _oracle_has_tilelang(), reason="needs TileLang 0.1.15 in the oracle venv")
def test_tilelang_lowers_the_sized_build_to_the_same_bytes(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "gemm.py").write_text(FIXTURE)
    (corpus / "broken.py").write_text(
        FIXTURE + "\nraise SystemExit(3)\n"
    )  # fails at import: stubs do not help
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, str(TOOL), "--jobs", "2", "--cache", str(tmp_path / "cache.json"),
         "--report", str(report), str(corpus)],
        capture_output=True, text=True, check=False,
        env={**os.environ, "ORACLE_VENV": str(ORACLE_PYTHON.parent.parent)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "[smem-corpus] 2 files, 4 kernel builds, 2 sized by tilecheck (sm_80), 1 of them lowered by TileLang 0.1.15, "
        "1 byte-exact" in done.stdout
    )
    assert "sized, not lowered (1): import: SystemExit: 3" in done.stdout
    assert "not sized (2): the shape of a buffer is not a constant" in done.stdout
