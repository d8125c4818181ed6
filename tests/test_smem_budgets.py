"""Shared-memory budgets in profiles: `tilecheck backends` shows them with their source; a derived
profile's own budget has its own source; a budget on a non-CUDA profile is refused."""

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
        "hip-gfx942": "-",
        "hip-gfx950": "-",
        "cpu": "-",
        "metal": "-",
        "webgpu": "-",
        "ascend": "-",
    }
    assert lines[14] == f"[1] {SOURCE}"


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
    assert rows == {"a100-again*": "166,912 [1]", "mine*": "200,000 [2]", "rtx4090*": "101,376 [3]"}
    assert out[-5:-2] == [
        f"[1] {SOURCE}",
        "[2] my vendor sheet",
        "[3] set in the configuration (backend `rtx4090`)",
    ]
    profiles = load_profiles({"rtx4090": {"base": "cuda-sm80", "shared_memory_per_block": 101376}})
    assert profiles["rtx4090"].shared_memory_source == "set in the configuration (backend `rtx4090`)"
    assert profiles["cuda-sm80"].shared_memory_source.startswith(SOURCE)


@pytest.mark.parametrize("base", ["hip-gfx942", "metal", "cpu", "ascend"])
def test_a_budget_on_a_profile_tilecheck_does_not_size_is_refused(base):
    with pytest.raises(ProfileError) as raised:
        load_profiles({"mine": {"base": base, "shared_memory_per_block": 65536}})
    assert str(raised.value).startswith(
        "backend `mine`: `shared_memory_per_block` is used only by CUDA profiles"
    )


def test_the_refusal_is_a_configuration_error_when_the_profile_is_selected(project, capsys):
    write(
        project, {"tilecheck.toml": '[backends.mi]\nbase = "hip-gfx942"\nshared_memory_per_block = 65536\n'}
    )
    write(project, {"k.py": "x = 1\n"})
    outcome = run(capsys, "k.py", "--backend", "mi")
    assert outcome.status == 2
    assert (
        "`shared_memory_per_block` is used only by CUDA profiles; tilecheck does not size shared memory"
        in outcome.err
    )
    assert load_profiles({"mi": {"base": "hip-gfx942", "shared_memory_per_block": 0}})["mi"].backend == "rocm"
