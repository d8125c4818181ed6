"""The TileLang version setting: the specifier evaluator, the measured per-release data, the
project's declaration, and the verdicts that depend on the release (TL210, the checker rules)."""

from __future__ import annotations

import json
import re

import pytest

from tests.support import run, write
from tilecheck.config.declared import find_declaration, requirement_spec
from tilecheck.tilelang import versions_data
from tilecheck.tilelang.signatures import signature
from tilecheck.tilelang.versions import MEASURED, SUPPORTED, Specifier, SpecifierError, Version, has_checker

# -- the specifier evaluator ---------------------------------------------------------------------

RELEASES = ("0.1.0", "0.1.5", "0.1.7", "0.1.7.post1", "0.1.9", "0.1.14", "0.1.15", "0.2.0")


@pytest.mark.parametrize(
    ("spec", "selected"),
    [
        ("0.1.9", ("0.1.9",)),
        ("==0.1.9", ("0.1.9",)),
        ("==0.1.9.0", ("0.1.9",)),
        (">=0.1.9,<0.2.0", ("0.1.9", "0.1.14", "0.1.15")),
        (">= 0.1.9 , < 0.2", ("0.1.9", "0.1.14", "0.1.15")),
        ("<=0.1.7", ("0.1.0", "0.1.5", "0.1.7")),
        (">0.1.7", ("0.1.9", "0.1.14", "0.1.15", "0.2.0")),  # not 0.1.7.post1 (PEP 440)
        (">=0.1.7", ("0.1.7", "0.1.7.post1", "0.1.9", "0.1.14", "0.1.15", "0.2.0")),
        ("!=0.1.14", ("0.1.0", "0.1.5", "0.1.7", "0.1.7.post1", "0.1.9", "0.1.15", "0.2.0")),
        ("~=0.1.9", ("0.1.9", "0.1.14", "0.1.15")),
        ("~=0.1", RELEASES),  # >=0.1, ==0.*
        ("==0.1.*", ("0.1.0", "0.1.5", "0.1.7", "0.1.7.post1", "0.1.9", "0.1.14", "0.1.15")),
        ("!=0.1.*", ("0.2.0",)),
        ("==0.1.7.post1", ("0.1.7.post1",)),
        (">0.1.5,<0.1.15,!=0.1.9", ("0.1.7", "0.1.7.post1", "0.1.14")),
    ],
)
def test_specifier_selects_releases(spec: str, selected: tuple[str, ...]) -> None:
    assert Specifier.parse(spec).select(RELEASES) == selected


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("", "is not a version or a version range"),
        (">=abc", "`abc` is not a release version"),
        ("~=1", "`~=1` needs at least two release numbers"),
        (">=0.1.*", "a wildcard is only allowed after == or !="),
        ("=>0.1.9", "`=>0.1.9`: `=>` is not a version operator (use ==, !=, <, <=, >, >= or ~=)"),
        (">=0.1.9,<<0.2", "`<<0.2`: `<<` is not a version operator"),
    ],
)
def test_specifier_rejects_what_it_cannot_read(spec: str, problem: str) -> None:
    with pytest.raises(SpecifierError, match=re.escape(problem)):
        Specifier.parse(spec)


def test_versions_order_numerically() -> None:
    assert Version.parse("0.1.10") > Version.parse("0.1.9")
    assert Version.parse("0.1.7.post1") > Version.parse("0.1.7")
    assert Version.parse("0.1.5+9c6b37c") == Version.parse("0.1.5")


# -- the measured data ---------------------------------------------------------------------------


def test_measured_releases_and_supported_default() -> None:
    assert {"0.1.5", "0.1.9", "0.1.14", "0.1.15"} <= set(MEASURED)
    assert list(MEASURED) == sorted(MEASURED, key=Version.parse)
    assert SUPPORTED == ("0.1.14", "0.1.15")  # the releases with all three checkers


def test_signatures_differ_between_releases_as_measured() -> None:
    pipelined = {
        version: signature(version, "Pipelined") for version in ("0.1.5", "0.1.9", "0.1.14", "0.1.15")
    }
    assert all(pipelined[version].accepts("group") for version in ("0.1.5", "0.1.9", "0.1.14"))  # type: ignore[union-attr]
    assert not pipelined["0.1.15"].accepts("group")  # type: ignore[union-attr]
    assert pipelined["0.1.14"].accepts("annotations") and not pipelined["0.1.9"].accepts("annotations")  # type: ignore[union-attr]
    assert signature("0.1.14", "gemm").accepts("k_pack") and not signature("0.1.15", "gemm").accepts("k_pack")  # type: ignore[union-attr]
    assert signature("0.1.5", "copy").max_positional == 3 and signature("0.1.15", "copy").max_positional == 2  # type: ignore[union-attr]
    assert (
        signature("0.1.5", "serial").max_positional == 2 and signature("0.1.9", "serial").max_positional == 3
    )  # type: ignore[union-attr]
    assert signature("0.1.5", "tma_copy") is None and signature("0.1.9", "tma_copy") is not None


def test_checkers_per_release_as_measured() -> None:
    assert versions_data.CHECKERS["0.1.5"] == ()
    assert has_checker("0.1.9", "NestedLoopChecker") and not has_checker("0.1.9", "ParallelLocalIndexChecker")
    assert has_checker("0.1.14", "ParallelLocalIndexChecker")


def test_every_release_from_0_1_0_is_measured() -> None:
    assert tuple(f"0.1.{minor}" for minor in range(16)) == MEASURED
    assert next(v for v in MEASURED if has_checker(v, "NestedLoopChecker")) == "0.1.7"  # none before
    copy = {v: signature(v, "copy").max_positional for v in ("0.1.0", "0.1.7", "0.1.8")}  # type: ignore[union-attr]
    assert copy == {"0.1.0": 3, "0.1.7": 5, "0.1.8": 2}  # keyword-only from 0.1.8
    assert (
        signature("0.1.6", "serial").max_positional == 2 and signature("0.1.7", "serial").max_positional == 3
    )  # type: ignore[union-attr]
    assert signature("0.1.11", "Kernel").accepts("is_cpu") and not signature("0.1.12", "Kernel").accepts(
        "is_cpu"
    )  # type: ignore[union-attr]


# -- the project's declaration ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "spec"),
    [
        ("tilelang>=0.1.9,<0.2.0", ">=0.1.9,<0.2.0"),
        ("TileLang == 0.1.14 ; python_version >= '3.9'", "==0.1.14"),
        ("tilelang[vis] (>=0.1.9)", ">=0.1.9"),
        ("tilelang", ""),
        ("tilelang~=0.1.9  # pinned", "~=0.1.9"),
        ("tile_lang~=0.1.9", None),  # another project (PEP 503 names)
        ("tilelangx>=1", None),
        ("torch>=2", None),
    ],
)
def test_requirement_lines(line: str, spec: str | None) -> None:
    assert requirement_spec(line) == spec


def test_declaration_nearest_project_decides(tmp_path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\ndependencies = ["torch", "tilelang>=0.1.9,<0.2.0"]\n',
            "pkg/sub/k.py": "",
            "other/requirements-dev.txt": "pytest\ntilelang==0.1.14\n",
            "other/k.py": "",
            "plain/pyproject.toml": '[project]\nname = "q"\ndependencies = ["torch"]\n',
        },
    )
    found = find_declaration(str(tmp_path / "pkg" / "sub"))
    assert found is not None and found.spec == ">=0.1.9,<0.2.0"
    assert found.origin.endswith("pyproject.toml: [project] dependencies")
    other = find_declaration(str(tmp_path / "other"))
    assert other is not None and other.spec == "==0.1.14" and other.origin.endswith("requirements-dev.txt")
    assert find_declaration(str(tmp_path / "plain")) is None  # a project root that declares nothing


# -- end to end ------------------------------------------------------------------------------------

KERNEL = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float16"), B: T.Tensor((64, 64), "float16")):
    with T.Kernel(1, threads=128) as bx:
        As = T.alloc_shared((64, 64), "float16")
        L = T.alloc_local((64,), "float32")
        for k in T.Pipelined(4, group=[[0], [1]]):
            T.copy(A, As)
        for k in T.Pipelined(4, annotations={}):
            T.copy(A, As)
        T.copy(A, As, 4)
        for i in T.Parallel(64):
            L[i] = A[i, 0]
"""


def _verdicts(capsys, root, *flags: str) -> list[tuple[int, int, str, str, str]]:
    outcome = run(capsys, "check", str(root / "k.py"), "--no-cache", "--output-format", "json", *flags)
    assert outcome.status in (0, 1), outcome.err
    return [(d["line"], d["column"], d["code"], d["severity"], d["message"]) for d in json.loads(outcome.out)]


PIPELINED_GROUP = "`T.Pipelined()` got an unexpected keyword argument `group`"
PIPELINED_ANNOTATIONS = "`T.Pipelined()` got an unexpected keyword argument `annotations`"
COPY_POSITIONAL = "`T.copy()` takes at most 2 positional arguments but 3 were given"
LOCAL = "Local buffer `L` is indexed by T.Parallel loop variable `i`"


def test_declared_015_rejects_group_but_not_annotations(tmp_path, capsys) -> None:
    write(
        tmp_path,
        {"pyproject.toml": '[project]\nname = "p"\ndependencies = ["tilelang==0.1.15"]\n', "k.py": KERNEL},
    )
    found = _verdicts(capsys, tmp_path)
    assert [(line, column, code, severity) for line, column, code, severity, _ in found] == [
        (9, 33, "TL210", "error"),
        (13, 23, "TL210", "error"),
        (15, 13, "TL104", "error"),
    ]
    assert found[0][4] == PIPELINED_GROUP + " in TileLang 0.1.15"
    assert found[1][4] == COPY_POSITIONAL + " in TileLang 0.1.15"


def test_declared_0114_accepts_group_and_annotations(tmp_path, capsys) -> None:
    write(tmp_path, {"requirements.txt": "tilelang==0.1.14\n", "k.py": KERNEL})
    found = _verdicts(capsys, tmp_path)
    assert [(line, column, code, severity) for line, column, code, severity, _ in found] == [
        (13, 23, "TL210", "error"),
        (15, 13, "TL104", "error"),
    ]


def test_declared_019_rejects_annotations_accepts_local_index(tmp_path, capsys) -> None:
    """0.1.9: `T.Pipelined` takes `group` but not `annotations`, and has no ParallelLocalIndexChecker."""
    write(
        tmp_path,
        {"pyproject.toml": '[project]\nname = "p"\ndependencies = ["tilelang==0.1.9"]\n', "k.py": KERNEL},
    )
    found = _verdicts(capsys, tmp_path)
    assert [(line, column, code, severity) for line, column, code, severity, _ in found] == [
        (11, 33, "TL210", "error"),
        (13, 23, "TL210", "error"),
        (15, 13, "TL104", "info"),
    ]
    assert found[0][4] == PIPELINED_ANNOTATIONS + " in TileLang 0.1.9"
    assert found[2][4].endswith(
        "(no TileLang release in range has `ParallelLocalIndexChecker`; not proven for 0.1.9, which lacks that check)"
    )


def test_declared_015_accepts_a_third_positional_copy_argument(tmp_path, capsys) -> None:
    """0.1.5: `T.copy` takes `coalesced_width` as its third positional parameter."""
    write(tmp_path, {"requirements.txt": "tilelang==0.1.5\n", "k.py": KERNEL})
    found = _verdicts(capsys, tmp_path)
    assert [(line, column, code, severity) for line, column, code, severity, _ in found] == [
        (11, 33, "TL210", "error"),
        (15, 13, "TL104", "info"),
    ]


def test_declared_017_and_018_differ_on_a_third_positional_copy_argument(tmp_path, capsys) -> None:
    """0.1.7 takes `coalesced_width` as its third positional parameter, 0.1.8 makes it keyword-only;
    both have NestedLoopChecker and FragmentLoopChecker but not ParallelLocalIndexChecker."""
    write(tmp_path, {"requirements.txt": "tilelang==0.1.7\n", "k.py": KERNEL})
    found = _verdicts(capsys, tmp_path)
    assert [(line, column, code, severity) for line, column, code, severity, _ in found] == [
        (11, 33, "TL210", "error"),
        (15, 13, "TL104", "info"),
    ]
    write(tmp_path, {"requirements.txt": "tilelang==0.1.8\n"})
    found = _verdicts(capsys, tmp_path)
    assert [(line, column, code, severity) for line, column, code, severity, _ in found] == [
        (11, 33, "TL210", "error"),
        (13, 23, "TL210", "error"),
        (15, 13, "TL104", "info"),
    ]
    assert found[1][4] == COPY_POSITIONAL + " in TileLang 0.1.8"


def test_declared_range_gives_notes_naming_the_releases(tmp_path, capsys) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\ndependencies = ["tilelang>=0.1.9,<0.2.0"]\n',
            "k.py": KERNEL,
        },
    )
    found = _verdicts(capsys, tmp_path)
    assert [(line, column, code, severity) for line, column, code, severity, _ in found] == [
        (9, 33, "TL210", "info"),
        (11, 33, "TL210", "info"),
        (13, 23, "TL210", "error"),
        (15, 13, "TL104", "info"),
    ]
    assert (
        found[0][4]
        == PIPELINED_GROUP
        + " in TileLang 0.1.15; 0.1.9, 0.1.10, 0.1.11, 0.1.12, 0.1.13 and 0.1.14 do not reject it"
    )
    assert (
        found[1][4]
        == PIPELINED_ANNOTATIONS
        + " in TileLang 0.1.9, 0.1.10, 0.1.11, 0.1.12 and 0.1.13; 0.1.14 and 0.1.15 do not reject it"
    )
    assert (
        found[2][4]
        == COPY_POSITIONAL + " in TileLang 0.1.9, 0.1.10, 0.1.11, 0.1.12, 0.1.13, 0.1.14 and 0.1.15"
    )
    assert found[3][4] == (
        LOCAL + "; local buffers are thread-private and do not take part in parallel layout inference "
        "(TileLang 0.1.14 and 0.1.15 reject it (`ParallelLocalIndexChecker`); not proven for 0.1.9, 0.1.10, "
        "0.1.11, 0.1.12 and 0.1.13, which lack that check)"
    )


def test_setting_and_flag_win_over_the_declaration(tmp_path, capsys) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "p"\ndependencies = ["tilelang==0.1.9"]\n'
            '[tool.tilecheck]\ntilelang-version = "0.1.14"\n',
            "k.py": KERNEL,
        },
    )
    assert [code for _, _, code, _, _ in _verdicts(capsys, tmp_path)] == ["TL210", "TL104"]  # 0.1.14
    flagged = _verdicts(capsys, tmp_path, "--tilelang-version", "0.1.15")
    assert [(line, code) for line, _, code, _, _ in flagged] == [(9, "TL210"), (13, "TL210"), (15, "TL104")]


def test_debug_config_shows_the_value_and_its_origin(tmp_path, capsys) -> None:
    write(tmp_path, {"requirements.txt": "tilelang>=0.1.9,<0.1.14\n", "k.py": KERNEL})
    outcome = run(capsys, "debug-config", str(tmp_path / "k.py"))
    assert outcome.status == 0
    line = next(row for row in outcome.out.splitlines() if "tilelang-version" in row)
    selected = Specifier.parse(">=0.1.9,<0.1.14").select(MEASURED)
    assert line.split()[0] == "tilelang-version"
    assert line.split("=", 1)[1].startswith(' ">=0.1.9,<0.1.14"  # ')
    assert line.endswith(f"requirements.txt; releases: {', '.join(selected)}")
    flagged = run(capsys, "debug-config", str(tmp_path / "k.py"), "--tilelang-version", "0.1.15")
    assert '"0.1.15"  # --tilelang-version; releases: 0.1.15' in flagged.out
    isolated = run(capsys, "debug-config", str(tmp_path / "k.py"), "--isolated", "--output-format", "json")
    row = json.loads(isolated.out)["settings"]["tilelang-version"]
    assert row == {
        "value": list(SUPPORTED),
        "origin": f"default: the supported releases; releases: {', '.join(SUPPORTED)}",
    }


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"latest"', "`latest` is not a release version"),
        ("15", "`tilelang-version` must be a TileLang version or range"),
    ],
)
def test_bad_setting_is_a_configuration_error(tmp_path, capsys, value: str, message: str) -> None:
    write(tmp_path, {"tilecheck.toml": f"tilelang-version = {value}\n", "k.py": KERNEL})
    outcome = run(capsys, "check", str(tmp_path / "k.py"), "--no-cache")
    assert outcome.status == 2
    assert message in outcome.err


def test_declaration_no_measured_release_warns_and_uses_the_nearest(tmp_path, capsys) -> None:
    # `tilelang>=0.9`: the newest measured release stands in; its signatures are not proven for
    # the declared range, so both keyword findings are notes (the checker's TL104 stands).
    write(tmp_path, {"requirements.txt": "tilelang>=0.9\n", "k.py": KERNEL})
    outcome = run(capsys, "check", str(tmp_path / "k.py"), "--no-cache", "--output-format", "json")
    found = [(d["line"], d["code"], d["severity"]) for d in json.loads(outcome.out)]
    assert found == [(9, "TL210", "info"), (13, "TL210", "info"), (15, "TL104", "error")]
    assert "`tilelang>=0.9` matches none of the TileLang releases tilecheck has measured" in outcome.err
    assert f"checking against {MEASURED[-1]}, the nearest measured release" in outcome.err


def test_generator_renders_the_checked_in_data_back() -> None:
    """What `tools/tilelang_versions.py` writes reads back as the data it was given."""
    import importlib.util
    import sys
    from pathlib import Path

    tool = Path(__file__).resolve().parent.parent / "tools" / "tilelang_versions.py"
    spec = importlib.util.spec_from_file_location("tilelang_versions_tool", tool)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("tilelang_versions_tool", module)
    spec.loader.exec_module(module)
    recorded = module.checked_in()
    assert sorted(recorded) == sorted(MEASURED)
    namespace: dict[str, object] = {}
    exec(compile(module.render(list(recorded.values())), "versions_data", "exec"), namespace)
    assert namespace["SIGNATURES"] == versions_data.SIGNATURES
    assert namespace["CHECKERS"] == versions_data.CHECKERS


# -- requirements files as pip reads them (issue 20) -----------------------------------------------


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("tilelang==0.1.15 \\\n    --hash=sha256:abcd \\\n    --hash=sha256:ef01\n", "==0.1.15"),
        ("-i https://pypi.org/simple\n--index-url https://x/simple\ntilelang==0.1.14\n", "==0.1.14"),
        ("tilelang>=0.1.9 ; python_version > '3.8'  # why\n", ">=0.1.9"),
        ("# tilelang==0.1.5\ntilelang>=0.1.9,\\\n<0.1.14\n", ">=0.1.9,<0.1.14"),
        ("-e .\ntilelang~=0.1.9 --config-settings a=b\n", "~=0.1.9"),
    ],
)
def test_requirements_file_lines_as_pip_reads_them(tmp_path, text: str, spec: str) -> None:
    write(tmp_path, {"setup.py": "", "requirements.txt": text})
    found = find_declaration(str(tmp_path))
    assert found is not None and found.spec == spec


def test_requirements_follow_includes_and_constraints(tmp_path) -> None:
    write(
        tmp_path,
        {
            ".git/HEAD": "",
            "requirements.txt": "-r reqs/base.txt\n-c constraints.txt\n",
            "reqs/base.txt": "torch\ntilelang>=0.1.9\n-r ../requirements.txt\n",  # a cycle
            "constraints.txt": "tilelang==0.1.14\n",
            "sub/requirements.txt": "-r ../../outside.txt\n",  # outside the project: not read
        },
    )
    (tmp_path.parent / "outside.txt").write_text("tilelang==0.1.5\n")
    found = find_declaration(str(tmp_path))
    assert found is not None and found.spec == ">=0.1.9,==0.1.14"
    assert found.origin.endswith("constraints.txt") and "base.txt" in found.origin
    assert find_declaration(str(tmp_path / "sub")) == found  # the sub directory declares nothing


def test_a_constraint_alone_requires_nothing(tmp_path) -> None:
    write(tmp_path, {"setup.cfg": "", "requirements.txt": "-c c.txt\ntorch\n", "c.txt": "tilelang==0.1.14\n"})
    assert find_declaration(str(tmp_path)) is None


def test_hashed_pin_is_checked_without_a_warning(tmp_path, capsys) -> None:
    requirements = "tilelang==0.1.15 \\\n    --hash=sha256:abcd\n"
    write(tmp_path, {"pyproject.toml": "", "requirements.txt": requirements, "k.py": KERNEL})
    outcome = run(capsys, "debug-config", str(tmp_path / "k.py"))
    assert "not a release version" not in outcome.err
    assert "requirements.txt; releases: 0.1.15" in outcome.out


def test_declaration_search_stops_at_the_project_root_and_home(tmp_path, monkeypatch) -> None:
    write(
        tmp_path,
        {
            "requirements.txt": "tilelang==0.1.5\n",  # above $HOME
            "home/requirements.txt": "tilelang==0.1.9\n",  # a stray file in $HOME
            "home/work/loose/k.py": "",  # no project root: only its own directory
            "home/work/proj/setup.cfg": "",
            "home/work/proj/pkg/k.py": "",
            "home/work/proj/requirements.txt": "tilelang==0.1.14\n",
            "home/work/bare/pyproject.toml": "",  # a root that declares nothing
            "home/work/bare/src/k.py": "",
        },
    )
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert find_declaration(str(tmp_path / "home" / "work" / "loose")) is None
    found = find_declaration(str(tmp_path / "home" / "work" / "proj" / "pkg"))
    assert found is not None and found.spec == "==0.1.14"
    assert find_declaration(str(tmp_path / "home" / "work" / "bare" / "src")) is None
    home = find_declaration(str(tmp_path / "home"))  # $HOME itself still reads its own directory
    assert home is not None and home.spec == "==0.1.9"


def test_a_config_file_directory_is_a_project_root(tmp_path, capsys, monkeypatch) -> None:
    write(
        tmp_path,
        {
            "requirements.txt": "tilelang==0.1.5\n",  # above the project: never read
            "proj/requirements.txt": "tilelang==0.1.14\n",
            "proj/ci.toml": 'select = ["TL"]\n',
            "proj/src/k.py": KERNEL,
        },
    )
    monkeypatch.setenv("HOME", str(tmp_path))
    path = str(tmp_path / "proj" / "src" / "k.py")
    plain = run(capsys, "debug-config", path)  # no project root: only src/ is read
    assert f"default: the supported releases; releases: {', '.join(SUPPORTED)}" in plain.out
    configured = run(capsys, "debug-config", path, "--config", str(tmp_path / "proj" / "ci.toml"))
    assert configured.status == 0, configured.err
    assert "requirements.txt; releases: 0.1.14" in configured.out
