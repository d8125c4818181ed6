"""Check the shipped CUDA backend profiles against the real TileLang 0.1.15, on the CPU.

Run with the oracle's interpreter (it needs `tilelang`, no GPU):

    /work/oracle-venv/bin/python tools/verify_profiles.py [PROFILE[@ARCH] ...]

(`cuda-sm80@sm_89` checks the cuda-sm80 profile's claims against an sm_89 lowering.)

For each `cuda-*` profile it lowers four small GEMM kernels for the profile's architecture
(`with tvm.target.Target(t): tilelang.lower(f, target=t)`) and reads the generated CUDA source:

- `num_stages=3`: planned when the source has async copies (cp.async or TMA) and 3 buffer versions;
- `order`/`stage` (manual schedule): planned when the source has async copies;
- nested requests (`num_stages=2` around `num_stages=3`): "hierarchical" only if the inner loop is
  still pipelined; TileLang 0.1.15 pipelines neither level;
- warp specialization: the `num_stages` kernel splits into producer/consumer warp groups
  (`warpgroup_reg_alloc`).

It prints what it saw and exits 1 when a profile claims something else.
"""

# no `from __future__ import annotations`: TileLang evaluates the T.Tensor hints in the closure.
# Those hints are TileLang calls, not types (TVM parses the kernels' source as it is written):
# mypy: disable-error-code="valid-type"

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10, as tilecheck.config.file reads TOML there
    import tomli as tomllib

PROFILES = Path(__file__).resolve().parent.parent / "tilecheck" / "backends" / "profiles"


def kernels() -> dict[str, object]:
    import tilelang.language as T  # type: ignore[import-not-found]  # only in the oracle's venv

    M = N = K = 256
    bM = bN = 128
    bK = 32

    def gemm(**schedule: object) -> object:
        @T.prim_func  # type: ignore[untyped-decorator]  # TileLang is untyped
        def main(  # type: ignore[no-untyped-def]  # TVM reads the signature as it is written
            A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")
        ):
            with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), threads=128) as (bx, by):
                A_s = T.alloc_shared((bM, bK), "float16")
                B_s = T.alloc_shared((bK, bN), "float16")
                C_l = T.alloc_fragment((bM, bN), "float")
                T.clear(C_l)
                for ko in T.Pipelined(T.ceildiv(K, bK), **schedule):
                    T.copy(A[by * bM, ko * bK], A_s)
                    T.copy(B[ko * bK, bx * bN], B_s)
                    T.gemm(A_s, B_s, C_l)
                T.copy(C_l, C[by * bM, bx * bN])

        return main

    def nested(outer_stages: int) -> object:
        inner = K // bK // 2

        @T.prim_func  # type: ignore[untyped-decorator]  # TileLang is untyped
        def main(  # type: ignore[no-untyped-def]  # TVM reads the signature as it is written
            A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")
        ):
            with T.Kernel(T.ceildiv(N, bN), T.ceildiv(M, bM), threads=128) as (bx, by):
                A_s = T.alloc_shared((bM, bK), "float16")
                B_s = T.alloc_shared((bK, bN), "float16")
                C_l = T.alloc_fragment((bM, bN), "float")
                T.clear(C_l)
                for ko in T.Pipelined(2, num_stages=outer_stages):
                    for ki in T.Pipelined(inner, num_stages=3):
                        T.copy(A[by * bM, (ko * inner + ki) * bK], A_s)
                        T.copy(B[(ko * inner + ki) * bK, bx * bN], B_s)
                        T.gemm(A_s, B_s, C_l)
                T.copy(C_l, C[by * bM, bx * bN])

        return main

    return {
        "num_stages": gemm(num_stages=3),
        "manual": gemm(order=[0, 1, 2], stage=[0, 0, 1]),
        "nested": nested(2),
        "bare outer": nested(0),
    }


def lower(func: object, arch: str) -> str:
    import tilelang  # missing here too, which mypy reports once per file (in `kernels`)
    import tvm  # type: ignore[import-not-found]  # only in the oracle's venv

    target = {"kind": "cuda", "arch": arch}
    with tvm.target.Target(target):
        source: str = tilelang.lower(func, target=target).kernel_source
        return source


def pipelined(source: str) -> bool:
    return bool(re.search(r"cp_async|tma_load", source))


def observe(arch: str) -> dict[str, bool]:
    sources = {name: lower(func, arch) for name, func in kernels().items()}
    return {
        "num_stages planned": pipelined(sources["num_stages"]) and "% 3" in sources["num_stages"],
        "manual schedule planned": pipelined(sources["manual"]),
        "hierarchical pipelines": pipelined(sources["nested"]),
        "bare outer keeps the inner pipeline": pipelined(sources["bare outer"]),
        "warp specialization": "warpgroup_reg_alloc" in sources["num_stages"],
        "async copy": pipelined(sources["num_stages"]),
    }


def claims(profile: dict[str, object]) -> dict[str, bool]:
    return {
        "num_stages planned": profile["num_stages"] == "planned",
        "manual schedule planned": profile["manual_schedule"] == "planned",
        "hierarchical pipelines": bool(profile["hierarchical_pipelines"]),
        "bare outer keeps the inner pipeline": profile["num_stages"] == "planned",
        "warp specialization": bool(profile["warp_specialization"]),
        "async copy": bool(profile["async_copy"]),
    }


def main(argv: list[str]) -> int:
    names = argv or sorted(p.stem for p in PROFILES.glob("cuda-*.toml"))
    wrong = 0
    for entry in names:
        name, _, arch = entry.partition("@")
        profile = tomllib.loads((PROFILES / f"{name}.toml").read_text(encoding="utf-8"))
        arch = arch or str(profile["target"]).split("-arch=")[1]
        seen = observe(arch)
        for fact, claimed in claims(profile).items():
            verdict = "ok" if seen[fact] == claimed else "WRONG"
            wrong += verdict == "WRONG"
            print(
                f"{name:<11} {arch:<8} {fact:<36} lowered: {seen[fact]!s:<5} profile: {claimed!s:<5} {verdict}"
            )
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
