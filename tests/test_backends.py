"""Backend capability profiles: shipped data, user overrides, `tilecheck backends`, --backend."""

from __future__ import annotations

import json
import re
import sys
from importlib import resources

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # the backport tilecheck depends on there
    import tomli as tomllib

from tests.support import run, write
from tilecheck.backends import (
    FIELDS,
    IGNORED,
    PLANNED,
    STRIPPED,
    Profile,
    ProfileError,
    get_profile,
    load_profiles,
    names,
    profile_of,
    shipped,
)
from tilecheck.backends.aliases import family_backends, suggest_backend
from tilecheck.tilelang.loops import pipeline_request
from tilecheck.tilelang.values import PyConst

SHIPPED = (
    "cuda-sm80",
    "cuda-sm86",
    "cuda-sm87",
    "cuda-sm89",
    "cuda-sm90",
    "cuda-sm100",
    "cuda-sm120",
    "hip-gfx942",
    "hip-gfx950",
    "cpu",
    "metal",
    "webgpu",
    "ascend",
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    return tmp_path


def _request(**kwargs):
    values = {key: PyConst(value) for key, value in kwargs.items()}
    return pipeline_request(
        values.get("num_stages"),
        values.get("order"),
        values.get("stage"),
        values.get("annotations"),
    )


def test_the_shipped_profiles():
    assert names() == SHIPPED
    assert set(shipped()) == set(SHIPPED)
    for name in SHIPPED:
        profile = get_profile(name)
        assert isinstance(profile, Profile) and profile.name == name and profile.origin == "shipped"


def test_every_shipped_value_cites_its_source():
    folder = resources.files("tilecheck.backends") / "profiles"
    for entry in folder.iterdir():
        lines = entry.read_text(encoding="utf-8").splitlines()
        data = tomllib.loads("\n".join(lines))
        assert set(data) <= set(FIELDS), entry.name
        for key in data:
            index = next(i for i, line in enumerate(lines) if line.startswith(f"{key} ="))
            # the value's own comment, or the comment block right above it, cites a TileLang source
            # file (`V/...` is the released package) or a verified lowering
            context = [lines[index], *lines[max(index - 5, 0) : index]]
            cited = any(
                "#" in line
                and re.search(r"\w\.(py|cc|h)\b|\bV/|verified|inferred|CUDA C\+\+ Programming Guide", line)
                for line in context
            )
            self_cited = (
                "description",
                "drop_reason",
                "drop_effect",
                "nested_behaviour",
                "shared_memory_source",
            )
            assert cited or key in self_cited, (
                entry.name,
                key,
            )


@pytest.mark.parametrize(
    ("name", "num_stages", "manual", "hierarchical", "warp"),
    [
        ("cuda-sm80", PLANNED, PLANNED, False, False),
        ("cuda-sm86", PLANNED, PLANNED, False, False),
        ("cuda-sm87", PLANNED, PLANNED, False, False),
        ("cuda-sm89", PLANNED, PLANNED, False, False),
        ("cuda-sm90", PLANNED, PLANNED, False, True),
        ("cuda-sm100", PLANNED, PLANNED, False, True),
        ("cuda-sm120", PLANNED, PLANNED, False, True),
        ("hip-gfx942", STRIPPED, PLANNED, False, False),
        ("hip-gfx950", PLANNED, PLANNED, False, False),
        ("cpu", IGNORED, IGNORED, False, False),
        ("metal", PLANNED, PLANNED, False, False),
        ("webgpu", PLANNED, PLANNED, False, False),
        ("ascend", PLANNED, IGNORED, True, False),
    ],
)
def test_the_facts_decide_the_values(name, num_stages, manual, hierarchical, warp):
    profile = get_profile(name)
    assert (profile.num_stages, profile.manual_schedule) == (num_stages, manual)
    assert profile.hierarchical_pipelines is hierarchical
    assert profile.warp_specialization is warp
    assert profile.vectorize_innermost_only


def test_unknown_names_raise_key_error():
    with pytest.raises(KeyError):
        get_profile("cuda-sm70")
    with pytest.raises(KeyError):
        get_profile("nope", {"mine": {"base": "cpu"}})


def test_profiles_compare_equal_to_their_names():
    assert get_profile("cpu") == "cpu" and get_profile("cpu") != "metal"
    assert {get_profile("cpu"): 1}["cpu"] == 1
    assert str(get_profile("metal")) == "metal"
    assert profile_of("webgpu") is get_profile("webgpu")
    assert profile_of(None) is None and profile_of(42) is None


def test_user_profiles_extend_and_override():
    profiles = load_profiles(
        {
            "npu": {"base": "ascend", "manual_schedule": "planned", "description": "mine"},
            "npu2": {"base": "npu", "async_copy": True},
            "cuda-sm80": {"hierarchical_pipelines": True},
        }
    )
    assert profiles["npu"].manual_schedule == PLANNED and profiles["npu"].hierarchical_pipelines
    assert profiles["npu"].origin == "configuration"
    assert profiles["npu2"].async_copy and profiles["npu2"].manual_schedule == PLANNED
    assert profiles["cuda-sm80"].hierarchical_pipelines and profiles["cuda-sm80"].num_stages == PLANNED
    assert shipped()["cuda-sm80"].hierarchical_pipelines is False  # the shipped data is untouched
    assert names({"npu": {}, "cpu": {}}) == (*SHIPPED, "npu")


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ({"x": {"base": "cpu", "nested": True}}, "backend `x`: unknown field `nested`"),
        ({"x": {"base": "cpu", "num_stages": "maybe"}}, "`num_stages` must be one of"),
        ({"x": {"base": "cpu", "async_copy": "yes"}}, "`async_copy` must be a boolean"),
        ({"x": {"description": "only this"}}, "missing fields"),
        ({"x": {"base": "gpu9000"}}, "unknown base backend `gpu9000`"),
        ({"x": {"base": "y"}, "y": {"base": "x"}}, "circular"),
        ({"x": {"base": 3}}, "`base` must be a string"),
    ],
)
def test_invalid_user_profiles(tables, message):
    with pytest.raises(ProfileError, match=re.escape(message)):
        load_profiles(tables)


def test_what_each_backend_plans_and_drops():
    stages = _request(num_stages=3)
    manual = _request(order=[0, 1], stage=[0, 1])
    both = _request(num_stages=2, order=[0, 1], stage=[0, 1])
    lone = _request(order=[0, 1])
    assert get_profile("cuda-sm80").plans(stages) and get_profile("cuda-sm80").plans(manual)
    assert not get_profile("hip-gfx942").plans(stages) and get_profile("hip-gfx942").plans(manual)
    assert get_profile("hip-gfx942").plans(both)  # the manual branch runs before num_stages is stripped
    assert get_profile("hip-gfx942").dropped(stages) == [("num_stages=3", STRIPPED)]
    assert get_profile("cpu").dropped(both) == [
        ("num_stages=2", IGNORED),
        ("the manual schedule order=[0, 1], stage=[0, 1]", IGNORED),
    ]
    assert get_profile("ascend").dropped(manual) == [
        ("the manual schedule order=[0, 1], stage=[0, 1]", IGNORED)
    ]
    assert not get_profile("cuda-sm80").plans(lone) and get_profile("cpu").dropped(lone) == []
    assert get_profile("cpu").dropped(_request(num_stages=0)) == []


def test_pipeline_request_records_what_is_requested():
    request = _request(order=[1, 0], stage=[0, 2])
    assert request.requests_manual and not request.requests_stages
    assert (request.has_order, request.has_stage) == (True, True)
    assert request.order_values == (1, 0) and request.stage_values == (0, 2)
    assert request.depth == 3  # max(stage) + 1
    assert _request(num_stages=4).depth == 4
    annotated = _request(annotations={"num_stages": 2, "tl_pipeline_order": [0]})
    assert annotated.requests_stages and annotated.requests_manual and annotated.stages == 2
    assert annotated.has_order and not annotated.has_stage


# -- command line --------------------------------------------------------------------------------


def test_backends_command_lists_profiles(project, capsys):
    outcome = run(capsys, "backends", "--isolated")
    assert outcome.status == 0
    lines = outcome.out.splitlines()
    assert lines[0].split()[:3] == ["name", "backend", "num_stages"]
    assert [line.split()[0] for line in lines[1 : 1 + len(SHIPPED)]] == list(SHIPPED)
    assert "ascend      ascend   planned     ignored      yes" in outcome.out


def test_backends_command_shows_one_profile_and_json(project, capsys):
    outcome = run(capsys, "backends", "hip-gfx942", "--isolated")
    assert "\n  num_stages                     stripped\n" in outcome.out
    assert "static_shared_memory" not in outcome.out  # not checked on HIP: not shown
    shown = run(capsys, "backends", "cuda-sm86", "--isolated").out
    assert "\n  static_shared_memory_per_block 49152\n" in shown
    data = json.loads(run(capsys, "backends", "--output-format", "json", "--isolated").out)
    assert [p["name"] for p in data] == list(SHIPPED)
    assert data[0]["origin"] == "shipped"
    bad = run(capsys, "backends", "nope", "--isolated")
    assert bad.status == 2 and "unknown backend `nope`" in bad.err


def test_backends_command_includes_configured_profiles(project, capsys):
    write(project, {"tilecheck.toml": '[backends.npu]\nbase = "ascend"\nmanual_schedule = "planned"\n'})
    outcome = run(capsys, "backends")
    assert "npu*" in outcome.out and "defined or overridden in the configuration" in outcome.out
    write(project, {"tilecheck.toml": '[backends.npu]\nbase = "ascend"\nfoo = 1\n'})
    outcome = run(capsys, "backends")
    assert outcome.status == 2 and "unknown field `foo`" in outcome.err


NESTED = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for ko in T.Pipelined(4, num_stages=3):
            for ki in T.Pipelined(4, num_stages=2):
                A[ko, ki] = 0
"""


def test_backend_option_and_configured_profiles_reach_the_rules(project, capsys):
    write(project, {"k.py": NESTED})
    assert run(capsys, "k.py", "--isolated").status == 0  # (c) no backend: not an error
    outcome = run(capsys, "k.py", "--isolated", "--backend", "cuda-sm80", "--output-format", "json")
    assert outcome.status == 1 and outcome.findings() == [("k.py", 8, 23, "TL201")]
    outcome = run(capsys, "k.py", "--isolated", "--backend", "cpu", "--output-format", "json")
    assert outcome.status == 0  # notes only
    assert [f[3] for f in outcome.findings()] == ["TL301", "TL301"]
    write(
        project,
        {
            "tilecheck.toml": 'backend = "npu"\n[backends.npu]\nbase = "cuda-sm80"\nhierarchical_pipelines = true\n'
        },
    )
    assert run(capsys, "k.py", "--output-format", "json").findings() == []
    write(
        project,
        {"tilecheck.toml": 'backend = "cuda-sm80"\n[backends.cuda-sm80]\nhierarchical_pipelines = true\n'},
    )
    assert run(capsys, "k.py", "--output-format", "json").findings() == []
    write(project, {"tilecheck.toml": 'backend = "npu"\n[backends.npu]\nbase = "cuda-sm80"\nnested = true\n'})
    outcome = run(capsys, "k.py")
    assert outcome.status == 2 and "unknown field `nested`" in outcome.err


@pytest.mark.parametrize("name", ["cuda-sm100", "cuda-sm120"])
def test_blackwell_profiles_say_which_values_were_verified_by_lowering(name, project, capsys):
    text = (resources.files("tilecheck.backends") / "profiles" / f"{name}.toml").read_text(encoding="utf-8")
    arch = get_profile(name).target.split("-arch=")[1]
    assert f'{{"kind": "cuda", "arch": "{arch}"}}' in text and "tools/verify_profiles.py" in text
    for key in (
        "num_stages",
        "manual_schedule",
        "hierarchical_pipelines",
        "async_copy",
        "warp_specialization",
    ):
        lines = text.splitlines()
        index = next(i for i, line in enumerate(lines) if line.startswith(f"{key} ="))
        assert any("(verified" in line for line in lines[max(index - 3, 0) : index + 1]), (name, key)
    # Both levels of a nested request are serialized: TL201 under the new profiles too.
    write(
        project,
        {
            "k.py": "import tilelang.language as T\n\n\n@T.prim_func\n"
            'def main(A: T.Tensor((64, 64), "float32")):\n'
            "    with T.Kernel(1, threads=128) as bx:\n"
            "        for ko in T.Pipelined(4, num_stages=3):\n"
            "            for ki in T.Pipelined(4, num_stages=2):\n"
            "                A[ko, ki] = 0\n"
        },
    )
    outcome = run(capsys, "k.py", "--backend", name, "--output-format", "json", "--isolated")
    assert [(d["line"], d["column"], d["code"]) for d in json.loads(outcome.out)] == [(8, 23, "TL201")]


@pytest.mark.parametrize(
    ("name", "budget"),
    [
        ("cuda-sm80", 166912),
        ("cuda-sm86", 101376),
        ("cuda-sm87", 166912),
        ("cuda-sm89", 101376),
        ("cuda-sm90", 232448),
        ("cuda-sm100", 232448),
        ("cuda-sm120", 101376),
        ("hip-gfx942", 65536),
        ("hip-gfx950", 163840),
        ("metal", 32768),
        ("webgpu", 16384),
        ("cpu", 0),
        ("ascend", 0),
    ],
)
def test_shared_memory_budget_per_block(name, budget):
    profile = get_profile(name)
    assert profile.shared_memory_per_block == budget
    publication = {
        "cuda": "NVIDIA CUDA C++ Programming Guide, Technical Specifications per Compute Capability: ",
        "rocm": "AMD ROCm documentation, GPU hardware specifications (reference/gpu-specs): LDS ",
        "metal": "Apple Metal feature set tables: maximum total threadgroup memory allocation, 32 KB ",
        "webgpu": "W3C WebGPU specification, Limits: maxComputeWorkgroupStorageSize, default 16384 bytes",
    }.get(profile.backend, "")
    assert profile.shared_memory_source.startswith(publication)
    assert bool(publication) is (budget > 0)
    assert (f"{budget} bytes" in profile.shared_memory_source) is (budget > 0)


@pytest.mark.parametrize(
    ("name", "limit"),
    [
        ("cuda-sm80", 49152),
        ("cuda-sm86", 49152),
        ("cuda-sm87", 49152),
        ("cuda-sm89", 49152),
        ("cuda-sm120", 0),  # TileLang compiles an sm_120 GPU for sm_120a, which takes more
        ("cuda-sm90", 0),  # sm_90a: ptxas accepted static arrays up to the whole budget
        ("cuda-sm100", 0),
        ("hip-gfx942", 0),
        ("metal", 0),
    ],
)
def test_static_shared_memory_limit(name, limit):
    profile = get_profile(name)
    assert profile.static_shared_memory_per_block == limit
    assert profile.static_shared_memory_source.startswith(
        "NVIDIA CUDA C++ Programming Guide: allocations over 48 KB per block must use dynamic shared memory"
    ) is (limit > 0)


def test_static_shared_memory_limit_in_user_profiles():
    profiles = load_profiles({"rtx": {"base": "cuda-sm90", "static_shared_memory_per_block": 49152}})
    assert profiles["rtx"].static_shared_memory_per_block == 49152
    assert profiles["rtx"].static_shared_memory_source == "set in the configuration (backend `rtx`)"
    with pytest.raises(ProfileError, match=re.escape("`static_shared_memory_per_block` is ptxas's limit")):
        load_profiles({"x": {"base": "hip-gfx942", "static_shared_memory_per_block": 49152}})


@pytest.mark.parametrize("value", [True, -1, "99 KB"])
def test_shared_memory_budget_must_be_a_byte_count(value):
    with pytest.raises(ProfileError, match="`shared_memory_per_block` must be a non-negative integer"):
        load_profiles({"my-gpu": {"base": "cuda-sm80", "shared_memory_per_block": value}})


def test_a_zero_budget_on_a_cuda_profile_is_refused(project, capsys):
    with pytest.raises(
        ProfileError, match=re.escape("`shared_memory_per_block` must be the target's budget")
    ):
        load_profiles({"my-gpu": {"base": "cuda-sm80", "shared_memory_per_block": 0}})
    write(project, {"tilecheck.toml": '[backends.z]\nbase = "cuda-sm90"\nshared_memory_per_block = 0\n'})
    write(project, {"k.py": "x = 1\n"})
    outcome = run(capsys, "k.py", "--backend", "z")
    assert outcome.status == 2
    assert outcome.err.startswith(
        "tilecheck: error: tilecheck.toml: `backends`: backend `z`: `shared_memory_per_block`"
    )


def test_a_custom_backend_error_names_the_configuration_file(project, capsys):
    write(
        project,
        {"pyproject.toml": '[tool.tilecheck.backends.jetson]\nbase = "cuda-sm72"\n', "k.py": "x = 1\n"},
    )
    outcome = run(capsys, "k.py", "--backend", "jetson")
    assert outcome.status == 2
    assert "pyproject.toml [tool.tilecheck]: `backends`: unknown base backend `cuda-sm72`" in outcome.err


@pytest.mark.parametrize(
    ("name", "meant"),
    [
        ("sm90", "cuda-sm90"),
        ("sm_90a", "cuda-sm90"),
        ("cuda-sm100a", "cuda-sm100"),
        ("compute_86", "cuda-sm86"),
        ("h100", "cuda-sm90"),
        ("NVIDIA H200 SXM", "cuda-sm90"),
        ("a100", "cuda-sm80"),
        ("A100-80GB", "cuda-sm80"),
        ("a10g", "cuda-sm86"),
        ("rtx3090", "cuda-sm86"),
        ("L4", "cuda-sm89"),
        ("rtx4090", "cuda-sm89"),
        ("RTX 4090", "cuda-sm89"),
        ("b200", "cuda-sm100"),
        ("rtx5090", "cuda-sm120"),
        ("MI300X", "hip-gfx942"),
        ("gfx950", "hip-gfx950"),
        ("cuda-sm9", "cuda-sm90"),  # a typo: the closest name
        ("sm87", "cuda-sm87"),
        ("sm_87", "cuda-sm87"),
        ("orin", "cuda-sm87"),
        ("jetson orin", "cuda-sm87"),
        ("NVIDIA Jetson AGX Orin", "cuda-sm87"),
        ("Jetson Orin Nano", "cuda-sm87"),
        ("sm72", None),  # no profile for compute capability 7.2 (Xavier): no guess
        ("xavier", None),
        ("cuda-sm70", None),
        ("cuda-sm99", None),
        ("v100", None),
        ("tpu", None),
        ("apple", "metal"),  # a platform with one profile
        ("M2 Max", "metal"),
        ("wgpu", "webgpu"),
        ("npu", "ascend"),
    ],
)
def test_unknown_backend_suggests_the_profile(name, meant):
    assert suggest_backend(name, SHIPPED) == meant


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("hip", ["hip-gfx942", "hip-gfx950"]),
        ("ROCm", ["hip-gfx942", "hip-gfx950"]),
        ("AMD", ["hip-gfx942", "hip-gfx950"]),
        (
            "cuda",
            ["cuda-sm80", "cuda-sm86", "cuda-sm87", "cuda-sm89", "cuda-sm90", "cuda-sm100", "cuda-sm120"],
        ),
        (
            "NVIDIA",
            ["cuda-sm80", "cuda-sm86", "cuda-sm87", "cuda-sm89", "cuda-sm90", "cuda-sm100", "cuda-sm120"],
        ),
        ("gpu", []),  # either vendor: no family
        ("h100", []),
    ],
)
def test_a_platforms_name_lists_its_profiles(name, family):
    assert family_backends(name, SHIPPED) == family


def test_unknown_platform_message_lists_the_platforms_profiles(project, capsys):
    write(project, {"k.py": "x = 1\n"})
    outcome = run(capsys, "k.py", "--backend", "rocm")
    assert outcome.status == 2
    assert outcome.err == (
        "tilecheck: error: --backend: unknown backend `rocm` (a platform: pick one of `hip-gfx942`, "
        "`hip-gfx950`; `tilecheck backends NAME` describes each)\n"
    )
    outcome = run(capsys, "k.py", "--backend", "apple")
    assert outcome.status == 2
    assert outcome.err.startswith(
        "tilecheck: error: --backend: unknown backend `apple` (did you mean `metal`? known: "
    )


def test_unknown_backend_message_says_did_you_mean(project, capsys):
    write(project, {"k.py": "x = 1\n"})
    outcome = run(capsys, "k.py", "--backend", "h100")
    assert outcome.status == 2
    assert outcome.err.startswith(
        "tilecheck: error: --backend: unknown backend `h100` (did you mean `cuda-sm90`? known: cuda-sm80, "
    )
    outcome = run(capsys, "backends", "sm_90a")
    assert outcome.status == 2
    assert outcome.err.startswith(
        "tilecheck: error: unknown backend `sm_90a` (did you mean `cuda-sm90`? known: "
    )
