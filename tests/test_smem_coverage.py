"""Coverage of the shared-memory model: how many kernel builds TL501 could size under the
selected backend, and why the others are not sized, in `--statistics` and SARIF, through the
worker pool and the cache."""

from __future__ import annotations

import json

import pytest

from tests.support import run, write
from tests.test_shared_memory import AUTOTUNED, gemm
from tilecheck.tilelang.shared_memory import UNSIZED_BACKENDS

# gemm.py: one build sized (49,152 B); symbolic.py: a factory built twice, with a constant tile
# (sized) and with an unknown one; tuned.py: a factory under `@autotune`.
SYMBOLIC = """import tilelang.language as T


def make(block):
    @T.prim_func
    def main(A: T.Tensor((1024, 1024), "float16")):
        with T.Kernel(8, threads=128) as bx:
            A_s = T.alloc_shared((block, 64), "float16")
            T.copy(A[bx * block, 0], A_s)

    return main


def run(n):
    return make(n)


k = make(64)
"""
FILES = {"gemm.py": gemm(), "symbolic.py": SYMBOLIC, "tuned.py": AUTOTUNED.format(decorator="autotune")}

STATISTICS_TAIL = """
Shared memory on cuda-sm80: 2 of 4 kernel builds sized
  1  not sized: the kernel's configuration comes from `@autotune`: the tuner's choice is the build that runs
  1  not sized: the shape of a buffer is not a constant
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    write(tmp_path, {"pyproject.toml": "[tool.tilecheck]\n", **FILES})
    return tmp_path


def test_statistics_count_the_sized_builds_and_the_reasons(project, capsys):
    for _ in range(2):  # the second run reads every result from the cache
        outcome = run(capsys, ".", "--statistics", "--backend", "cuda-sm80", "--select", "TL501")
        assert outcome.out.endswith(STATISTICS_TAIL), outcome.out


def test_no_backend_no_shared_memory_section(project, capsys):
    outcome = run(capsys, ".", "--statistics", "--no-cache")
    assert "Shared memory" not in outcome.out


def test_a_profile_without_a_budget_says_so(project, capsys):
    outcome = run(capsys, ".", "--statistics", "--backend", "cpu", "--no-cache")
    assert outcome.out.endswith(
        "\nShared memory on cpu: 0 of 4 kernel builds sized\n"
        "  4  not sized: the backend's profile gives no shared-memory budget\n"
    )


@pytest.mark.parametrize("backend", ["hip-gfx942", "hip-gfx950"])
def test_hip_profiles_size_the_builds_as_cuda_sm80_does(project, capsys, backend):
    outcome = run(capsys, ".", "--statistics", "--backend", backend, "--no-cache")
    assert outcome.out.endswith(STATISTICS_TAIL.replace("cuda-sm80", backend)), outcome.out


@pytest.mark.parametrize("backend", ["metal", "webgpu"])
def test_a_budget_on_a_backend_tilecheck_does_not_size_says_why(project, capsys, backend):
    reason = UNSIZED_BACKENDS[backend]
    assert reason.startswith("TileLang 0.1.15 l")
    outcome = run(capsys, ".", "--statistics", "--backend", backend, "--no-cache")
    assert outcome.out.endswith(
        f"\nShared memory on {backend}: 0 of 4 kernel builds sized\n  4  not sized: {reason}\n"
    )


def test_sarif_carries_the_counts_per_file_and_per_backend(project, capsys):
    outcome = run(
        capsys, ".", "--output-format", "sarif", "--backend", "cuda-sm86", "--jobs", "2", "--no-cache"
    )
    coverage = json.loads(outcome.out)["runs"][0]["properties"]["coverage"]
    assert coverage["sharedMemory"] == [
        {
            "backend": "cuda-sm86",
            "builds": 4,
            "sized": 2,
            "notSized": [
                {
                    "reason": "the kernel's configuration comes from `@autotune`: the tuner's choice is the build that runs",
                    "builds": 1,
                },
                {"reason": "the shape of a buffer is not a constant", "builds": 1},
            ],
        }
    ]
    per_file = {f["artifactLocation"]["uri"]: f["sharedMemory"]["sized"] for f in coverage["files"]}
    assert per_file == {"gemm.py": 1, "symbolic.py": 1, "tuned.py": 0}
