#!/usr/bin/env python3
"""TileLang's own shared-memory size of each generated kernel: the judge of the smem family.

Runs INSIDE the oracle venv (it imports tilelang). For every file and target it lowers the
module's `KERNEL` (`with tvm.target.Target(t): tilelang.lower(f, target=t)`) and records, per
device kernel, the `dyn_shared_memory_buf` attribute and the static `__shared__` arrays of
the generated source (their bytes). Results are cached by sha256 of the file, the target
and the TileLang version; the cache is written atomically after every file.

A target is a CUDA arch (`sm_80`, `sm_87`, `sm_90a`) or `hip:gfx942`, `hip:gfx950`, `metal`,
`webgpu`: the other backends' static arrays are read in their own syntax (`threadgroup T x[N];`,
`var<workgroup> x : array<T, N>;`). Metal and WebGPU have no dynamic shared memory: their source
declares every buffer, the merged arena `buf_dyn_shmem` included, as a sized array, and a buffer
left out of the merge keeps its own array while `dyn_shared_memory_buf` still counts it; so there
`dynamic` is the declared `buf_dyn_shmem` array, `static` the other arrays, and the attribute is
kept as `dyn_attr`.

Output (JSON lines, input order):
  {"path", "sha256", "targets": {"sm_80": {"status": "ok"|"error", "error",
   "kernels": {name: {"dynamic": int, "static": int, "static_arrays": [[name, bytes], ...]}}}}}

Usage: /work/oracle-venv/bin/python tools/oracle/smem/judge.py --jobs 2 \
    --cache build/oracle/smem/cache.json --out build/oracle/smem/verdicts.jsonl DIR
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import multiprocessing
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

TARGETS = ("sm_80", "sm_90a")
SCALAR_BYTES = {
    "uint64_t": 8, "int64_t": 8, "double": 8, "float": 4, "int": 4, "uint": 4, "unsigned": 4,
    "half_t": 2, "half": 2, "bfloat16_t": 2, "short": 2, "signed char": 1, "char": 1, "uchar": 1,
    "int8_t": 1, "uint8_t": 1, "fp8_e4_t": 1, "fp8_e5_t": 1,
}  # fmt: skip
STATIC_ARRAY = re.compile(r"__shared__\s+(?:__align__\(\d+\)\s+)?([A-Za-z_][\w ]*?)\s+(\w+)\[(\d+)\];")
METAL_ARRAY = re.compile(r"^\s*threadgroup\s+([A-Za-z_][\w ]*?)\s+(\w+)\[(\d+)\];", re.M)
WGSL_ARRAY = re.compile(r"var<workgroup>\s+(\w+)\s*:\s*array<(\w+|vec[234]<\w+>),\s*(\d+)u?>")
WGSL_VECTOR = re.compile(r"vec([234])<(\w+)>")
OTHER_BYTES = {
    "f16": 2,
    "f32": 4,
    "i32": 4,
    "u32": 4,
    "i8": 1,
    "u8": 1,
    "i16": 2,
    "u16": 2,
    "bfloat": 2,
    "half4": 8,
    "float4": 16,
    "uint4": 16,
}
DYNAMIC_ARENA = "buf_dyn_shmem"  # Metal's merged arena, a `threadgroup` array: `dyn_shared_memory_buf`


def static_arrays(source: str, kind: str = "cuda") -> list[tuple[str, int]]:
    if kind == "metal":
        triples = METAL_ARRAY.findall(source)
    elif kind == "webgpu":
        triples = [(c, n, k) for n, c, k in WGSL_ARRAY.findall(source)]
    else:
        triples = STATIC_ARRAY.findall(source)
    found = []
    for ctype, name, count in triples:
        vector = WGSL_VECTOR.fullmatch(ctype.strip())
        if vector is not None:
            lanes, ctype = int(vector.group(1)), vector.group(2)
        else:
            lanes = 1
        size = SCALAR_BYTES.get(ctype.strip()) or OTHER_BYTES.get(ctype.strip())
        size = size * lanes if size is not None else None
        if size is None:
            raise ValueError(f"unknown __shared__ element type {ctype!r}")
        found.append((name, size * int(count)))
    return found


def target_for(arch: str) -> tuple[Any, str]:
    """The TVM target of `sm_80`, `hip:gfx942`, `metal`, ... and its kind (how to read its source)."""
    from tilelang import tvm  # type: ignore[import-not-found]  # only in the oracle's venv

    kind, _, cpu = arch.partition(":")
    if kind == "hip":
        return tvm.target.Target({"kind": "hip", "mcpu": cpu}), kind
    if kind in ("metal", "webgpu"):
        return tvm.target.Target(kind), kind
    return tvm.target.Target({"kind": "cuda", "arch": arch}), "cuda"


def lower_one(path: str, arch: str) -> dict[str, Any]:
    import tilelang

    spec = importlib.util.spec_from_file_location(f"smem_kernel_{abs(hash(path))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target, kind = target_for(arch)
    with target:
        artifact = tilelang.lower(module.KERNEL, target=target)
    arrays = static_arrays(artifact.kernel_source, kind)
    kernels: dict[str, dict[str, Any]] = {}
    for gvar, func in artifact.device_mod.functions.items():
        attrs = func.attrs
        dynamic = (
            int(attrs["dyn_shared_memory_buf"])
            if attrs is not None and "dyn_shared_memory_buf" in attrs
            else 0
        )
        kernels[gvar.name_hint] = {"dynamic": dynamic}
    if kind in ("metal", "webgpu"):
        arena = sum(size for name, size in arrays if name == DYNAMIC_ARENA)
        arrays = [(name, size) for name, size in arrays if name != DYNAMIC_ARENA]
        for record in kernels.values():
            record["dyn_attr"], record["dynamic"] = record["dynamic"], arena if len(kernels) == 1 else None
    # The source holds every device kernel; with one kernel its static arrays are its own.
    if len(kernels) == 1:
        (only,) = kernels.values()
        only["static"] = sum(size for _, size in arrays)
        only["static_arrays"] = arrays
    return kernels


def judge(job: tuple[str, str]) -> tuple[str, str, dict[str, Any]]:
    path, arch = job
    try:
        return path, arch, {"status": "ok", "kernels": lower_one(path, arch)}
    except Exception as error:  # one kernel's failure is its verdict, never the run's
        return path, arch, {"status": "error", "error": f"{type(error).__name__}: {str(error)[:300]}"}


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated, lowered in this order")
    parser.add_argument("--cache", type=Path, default=Path("build/oracle/smem/cache.json"))
    parser.add_argument("--out", type=Path, default=Path("build/oracle/smem/verdicts.jsonl"))
    options = parser.parse_args()
    import tilelang

    version: str = tilelang.__version__
    files: list[str] = []
    for item in options.paths:
        p = Path(item)
        if p.is_dir():
            files.extend(str(q) for q in sorted(p.glob("*.py")))
        else:
            files.append(str(p))
    cache: dict[str, Any] = json.loads(options.cache.read_text()) if options.cache.exists() else {}
    digests = {f: hashlib.sha256(Path(f).read_bytes()).hexdigest() for f in files}

    def key(path: str, arch: str) -> str:
        return f"{digests[path]}:{arch}:{version}"

    targets = options.targets.split(",")
    todo = [(f, arch) for arch in targets for f in files if key(f, arch) not in cache]
    print(f"[smem] {len(files)} kernels, {len(todo)} lowerings to run", file=sys.stderr)
    if todo:
        with multiprocessing.get_context("spawn").Pool(options.jobs) as pool:
            for done, (path, arch, result) in enumerate(pool.imap_unordered(judge, todo), 1):
                cache[key(path, arch)] = result
                write_atomic(options.cache, json.dumps(cache))
                if done % 20 == 0:
                    print(f"[smem] {done}/{len(todo)}", file=sys.stderr)
    lines = [
        json.dumps(
            {"path": f, "sha256": digests[f], "targets": {arch: cache.get(key(f, arch)) for arch in targets}}
        )
        for f in files
    ]
    write_atomic(options.out, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
