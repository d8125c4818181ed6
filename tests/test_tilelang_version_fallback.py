"""A `tilelang-version` naming releases tilecheck has not measured (the next release, one between
two measured ones) warns once and checks against the nearest measured releases, never exits 2."""

from __future__ import annotations

import json

import pytest

from tests.support import run, write
from tilecheck.tilelang.versions import MEASURED, Specifier, nearest

KERNEL = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float16")):
    with T.Kernel(1, threads=128) as bx:
        As = T.alloc_shared((64, 64), "float16")
        L = T.alloc_local((64,), "float32")
        for k in T.Pipelined(4, group=[[0], [1]]):
            T.copy(A, As)
        for i in T.Parallel(64):
            L[i] = A[i, 0]
"""

GROUP = "`T.Pipelined()` got an unexpected keyword argument `group` in TileLang"
LOCAL = "Local buffer `L` is indexed by T.Parallel loop variable `i`"
NEWEST = MEASURED[-1]
STEPS = ("0.1.5", "0.1.9", "0.1.14", "0.1.15")  # a measured set for the unit cases


@pytest.mark.parametrize(
    ("spec", "chosen"),
    [
        ("0.1.16", ("0.1.15",)),  # the next release: the newest measured
        ("==0.2.0", ("0.1.15",)),
        (">=0.3", ("0.1.15",)),
        (">0.1.15", ("0.1.15",)),
        ("==0.2.*", ("0.1.15",)),
        ("~=0.2.1", ("0.1.15",)),
        ("0.1.7", ("0.1.5", "0.1.9")),  # between two measured: both neighbours
        (">0.1.5,<0.1.9", ("0.1.5", "0.1.9")),
        ("<0.1.5", ("0.1.5",)),  # older than every measured release: the oldest
        ("0.1.0", ("0.1.5",)),
        (">0.1.5,<0.1.5", ()),  # names no version at all
        ("0.1.7.post1", ("0.1.5", "0.1.9")),  # a post release sits where its pin does
        ("==0.1.9.post2", ("0.1.9", "0.1.14")),
        ("==0.1.9,==0.1.14", ()),  # two pins contradict: no version, no neighbours
    ],
)
def test_nearest_measured_releases(spec: str, chosen: tuple[str, ...]) -> None:
    assert Specifier.parse(spec).select(STEPS) == ()
    assert nearest(Specifier.parse(spec), STEPS) == chosen


def _check(capsys, root, *flags: str) -> tuple[int, list[tuple[int, int, str, str, str]], str]:
    outcome = run(capsys, "check", str(root), "--no-cache", "--output-format", "json", *flags)
    found = [
        (d["line"], d["column"], d["code"], d["severity"], d["message"]) for d in json.loads(outcome.out)
    ]
    return outcome.status, found, outcome.err


@pytest.mark.parametrize("spec", ["0.1.16", "==0.2.0"])
def test_unmeasured_flag_warns_once_and_checks_the_newest(tmp_path, capsys, spec: str) -> None:
    write(tmp_path, {"a.py": KERNEL, "b.py": KERNEL})
    status, found, err = _check(capsys, tmp_path, "--tilelang-version", spec)
    assert status == 1
    # TL210 is a signature fact, measured per release: a note for a release nobody measured;
    # TL104 is the checker's verdict, which the nearest measured release stands in for.
    assert [(path_line, code, severity) for path_line, _, code, severity, _ in found] == [
        (9, "TL210", "info"),
        (12, "TL104", "error"),
    ] * 2
    assert found[0][4] == f"{GROUP} {NEWEST}; not proven for `{spec}`, which tilecheck has not measured"
    warning = (
        f"--tilelang-version: `{spec}` matches none of the TileLang releases tilecheck has measured "
        f"({', '.join(MEASURED)}); checking against {NEWEST}, the nearest measured release"
    )
    assert err.count(warning) == 1, err
    _, pinned, _ = _check(capsys, tmp_path, "--tilelang-version", NEWEST)
    assert [row[:3] for row in pinned] == [row[:3] for row in found]
    assert [row[3] for row in pinned] == ["error", "error"] * 2
    assert pinned[0][4] == f"{GROUP} {NEWEST}"


def test_unmeasured_setting_in_configuration_warns_and_debug_config_says_so(tmp_path, capsys) -> None:
    write(tmp_path, {"tilecheck.toml": 'tilelang-version = "0.1.16"\n', "k.py": KERNEL})
    status, found, err = _check(capsys, tmp_path / "k.py")
    assert status == 1 and [code for _, _, code, _, _ in found] == ["TL210", "TL104"]
    assert "tilecheck.toml: `tilelang-version`: `0.1.16` matches none of the TileLang releases" in err
    assert f"checking against {NEWEST}, the nearest measured release" in err
    shown = run(capsys, "debug-config", str(tmp_path / "k.py"), "--output-format", "json")
    assert shown.status == 0
    row = json.loads(shown.out)["settings"]["tilelang-version"]
    assert row["value"] == "0.1.16"
    assert row["origin"].endswith(
        f"tilecheck.toml: `tilelang-version` (not measured: the nearest measured release); releases: {NEWEST}"
    )


def test_a_range_naming_no_version_falls_back_to_the_supported(tmp_path, capsys) -> None:
    write(tmp_path, {"k.py": KERNEL})
    status, found, err = _check(capsys, tmp_path / "k.py", "--tilelang-version", ">0.1.15,<0.1.15")
    assert status == 1 and [code for _, _, code, _, _ in found] == ["TL210", "TL104"]
    assert "`>0.1.15,<0.1.15` matches none" in err and "checking against the supported releases" in err


def test_one_release_lacking_the_checker_is_named_in_the_singular(tmp_path, capsys) -> None:
    write(tmp_path, {"k.py": KERNEL})
    _, found, _ = _check(capsys, tmp_path / "k.py", "--tilelang-version", ">=0.1.13,<0.1.15")
    local = found[-1]
    assert local[:4] == (12, 13, "TL104", "info")
    assert local[4].endswith(
        "(TileLang 0.1.14 rejects it (`ParallelLocalIndexChecker`); not proven for 0.1.13, which lacks that check)"
    )
    _, both, _ = _check(capsys, tmp_path / "k.py", "--tilelang-version", ">=0.1.12,<0.1.15")
    assert both[-1][4].endswith("not proven for 0.1.12 and 0.1.13, which lack that check)")


def test_a_declared_unmeasured_release_uses_the_nearest_measured_one(tmp_path, capsys) -> None:
    # `tilelang>=0.1.16` in the project's dependencies: 0.1.15 stands in (not 0.1.14 too, which
    # the declaration excludes), and TL210 is a note naming the declared range.
    write(
        tmp_path,
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "pyproject.toml": '[project]\nname = "p"\nversion = "1"\ndependencies = ["tilelang>=0.1.16"]\n',
            "k.py": KERNEL,
        },
    )
    status, found, err = _check(capsys, tmp_path / "k.py")
    assert status == 1
    assert [(line, code, severity) for line, _, code, severity, _ in found] == [
        (9, "TL210", "info"),
        (12, "TL104", "error"),
    ]
    assert found[0][4] == f"{GROUP} {NEWEST}; not proven for `>=0.1.16`, which tilecheck has not measured"
    assert f"checking against {NEWEST}, the nearest measured release" in err


def test_the_cache_keeps_the_verdict_of_the_version_asked_for(tmp_path, monkeypatch, capsys) -> None:
    # 0.1.15 and 0.1.16 are checked against the same measured release, but only 0.1.15's TL210
    # is proven: a cached 0.1.15 result must not answer for 0.1.16 (nor 0.1.99's for 0.1.16).
    monkeypatch.setenv("TILECHECK_CACHE_DIR", str(tmp_path / "cache"))
    write(tmp_path, {"k.py": KERNEL})

    def tl210(version: str) -> tuple[str, str]:
        outcome = run(
            capsys, "check", str(tmp_path / "k.py"), "--output-format", "json", "--tilelang-version", version
        )
        (found,) = [d for d in json.loads(outcome.out) if d["code"] == "TL210"]
        return found["severity"], found["message"]

    assert tl210("0.1.15") == ("error", f"{GROUP} {NEWEST}")
    unproven = f"{GROUP} {NEWEST}; not proven for `0.1.16`, which tilecheck has not measured"
    assert tl210("0.1.16") == ("info", unproven)
    assert tl210("0.1.99")[1].endswith("not proven for `0.1.99`, which tilecheck has not measured")
    assert tl210("0.1.16") == ("info", unproven)
