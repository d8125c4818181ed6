"""Shared-memory budgets in profiles: `tilecheck backends` shows them with their source; a derived
profile's own budget has its own source; a budget is taken on CUDA, HIP, Metal and WebGPU
profiles (TL501 sizes only CUDA and HIP) and refused elsewhere."""

from __future__ import annotations

import pytest

from tests.support import run, write
from tilecheck.backends import ProfileError, load_profiles


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


SOURCE = "NVIDIA CUDA C++ Programming Guide, Technical Specifications per Compute Capability"


def test_backends_table_has_the_budget_per_block_with_its_source(project, capsys):
    lines = run(capsys, "backends", "--isolated").out.splitlines()
    assert lines[0].split()[-1] == "smem/block"
    rows = {line.split()[0]: " ".join(line.split()[7:]) for line in lines[1:14]}
    assert rows == {
        "cuda-sm80": "166,912 [1]",
        "cuda-sm86": "101,376 [1]",
        "cuda-sm87": "166,912 [1]",
        "cuda-sm89": "101,376 [1]",
        "cuda-sm90": "232,448 [1]",
        "cuda-sm100": "232,448 [1]",
        "cuda-sm120": "101,376 [1]",
        "hip-gfx942": "65,536 [2]",
        "hip-gfx950": "163,840 [2]",
        "cpu": "-",
        "metal": "32,768 [3] (not sized)",
        "webgpu": "16,384 [4] (not sized)",
        "ascend": "-",
    }
    assert lines[14:18] == [
        f"[1] {SOURCE}",
        "[2] AMD ROCm documentation, GPU hardware specifications (reference/gpu-specs)",
        "[3] Apple Metal feature set tables",
        "[4] W3C WebGPU specification, Limits",
    ]


def test_a_derived_profile_shows_its_own_budget_and_source(project, capsys):
    write(
        project,
        {
            "tilecheck.toml": '[backends.rtx4090]\nbase = "cuda-sm80"\nshared_memory_per_block = 101376\n'
            '[backends.a100-again]\nbase = "cuda-sm80"\n'
            '[backends.mine]\nbase = "cuda-sm90"\nshared_memory_per_block = 200000\n'
            'shared_memory_source = "my vendor sheet: 200000 bytes"\n'
        },
    )
    out = run(capsys, "backends").out.splitlines()
    rows = {
        line.split()[0]: " ".join(line.split()[7:])
        for line in out
        if line.split()[0][:-1] and line.split()[0].endswith("*")
    }
    assert rows == {"a100-again*": "166,912 [1]", "mine*": "200,000 [5]", "rtx4090*": "101,376 [6]"}
    assert out[-8:-2] == [
        f"[1] {SOURCE}",
        "[2] AMD ROCm documentation, GPU hardware specifications (reference/gpu-specs)",
        "[3] Apple Metal feature set tables",
        "[4] W3C WebGPU specification, Limits",
        "[5] my vendor sheet",
        "[6] set in the configuration (backend `rtx4090`)",
    ]
    profiles = load_profiles({"rtx4090": {"base": "cuda-sm80", "shared_memory_per_block": 101376}})
    assert profiles["rtx4090"].shared_memory_source == "set in the configuration (backend `rtx4090`)"
    assert profiles["cuda-sm80"].shared_memory_source.startswith(SOURCE)


@pytest.mark.parametrize("base", ["cpu", "ascend"])
def test_a_budget_on_a_backend_without_one_is_refused(base):
    with pytest.raises(ProfileError) as raised:
        load_profiles({"mine": {"base": base, "shared_memory_per_block": 65536}})
    assert str(raised.value).startswith(
        "backend `mine`: `shared_memory_per_block` is used only by CUDA, HIP, Metal and WebGPU profiles; "
        f"tilecheck does not size shared memory for backend `{base}`"
    )


@pytest.mark.parametrize("base", ["hip-gfx942", "hip-gfx950", "metal", "webgpu"])
def test_a_budget_on_hip_metal_and_webgpu_is_taken(base):
    profile = load_profiles({"mine": {"base": base, "shared_memory_per_block": 12345}})["mine"]
    assert (profile.shared_memory_per_block, profile.shared_memory_source) == (
        12345,
        "set in the configuration (backend `mine`)",
    )


def test_a_zero_budget_on_a_hip_profile_is_refused():
    with pytest.raises(
        ProfileError, match="`shared_memory_per_block` must be the target's budget in bytes, not 0"
    ):
        load_profiles({"mi": {"base": "hip-gfx942", "shared_memory_per_block": 0}})
    assert (
        load_profiles({"m": {"base": "metal", "shared_memory_per_block": 0}})["m"].shared_memory_per_block
        == 0
    )


def test_the_refusal_is_a_configuration_error_when_the_profile_is_selected(project, capsys):
    write(project, {"tilecheck.toml": '[backends.mine]\nbase = "cpu"\nshared_memory_per_block = 65536\n'})
    write(project, {"k.py": "x = 1\n"})
    outcome = run(capsys, "k.py", "--backend", "mine")
    assert outcome.status == 2
    assert (
        "`shared_memory_per_block` is used only by CUDA, HIP, Metal and WebGPU profiles; tilecheck does not size "
        "shared memory for backend `cpu`" in outcome.err
    )
    assert load_profiles({"c": {"base": "cpu", "shared_memory_per_block": 0}})["c"].backend == "cpu"
