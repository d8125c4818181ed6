#!/usr/bin/env python3
"""Compare tilecheck's shared-memory sizes with TileLang's on a corpus of real TileLang files.

Run with tilecheck's Python; TileLang's side runs in the oracle venv (`ORACLE_VENV`, default
/work/oracle-venv), one process per file with a timeout, CUDA hidden (CPU only):

1. tilecheck models each file and sizes every kernel build for the cp.async class (sm_80; with
   `--target hip:gfx942` or `hip:gfx950`, as that HIP profile sizes it, with `--target sm_90a`
   for the warp-specialised class as cuda-sm90 sizes it, and TileLang lowers for that target).
   A build is a `@T.prim_func` at module level, or one built by a module-level factory (a plain
   function, `@tilelang.jit` or `@autotune` one) with the argument values tilecheck saw; it is
   sized as TL501 sizes it (`tilecheck.tilelang.sizing.judged_layout`).
2. The worker imports the file (never as `__main__`), rebuilds each build tilecheck sized with
   the same arguments (`factory(**arguments)`, `jit.get_tir(**arguments)`; an `@autotune`
   factory through its `jit_impl`, i.e. without tuning), lowers it for sm_80 with the
   factory's `pass_configs`, and records each device kernel's `dyn_shared_memory_buf` and the
   static `__shared__` arrays of the source. Cached by sha256 of the file, the build, the
   target and the TileLang version (`--cache`).
3. Prints files, builds, sized, lowered, agreeing; every disagreement; the not-sized reasons
   with counts. `--report` writes it all as JSON. Exit 1 when a lowered build disagrees.

Usage: python tools/oracle/smem/corpus_judge.py [--jobs 2] [--timeout 300] [--cache FILE]
    [--report FILE] DIR_OR_FILES...
The worker is `corpus_worker.py` (inside the oracle venv: FILE REQUESTS.json RESULT.json).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ARCH = "sm_80"
PROFILES = {
    "hip:gfx942": "hip-gfx942",
    "hip:gfx950": "hip-gfx950",
    "sm_90a": "cuda-sm90",  # the warp-specialised class, as TL501 sizes it on cuda-sm90
}  # --target: sized as the profile does
PLACEHOLDER = 256  # the value of an int parameter tilecheck does not know (its size does not depend on it)
VERSION = "0.1.15"  # the oracle venv's release: part of the cache key
HERE = Path(__file__).resolve().parent


# --- tilecheck's side -----------------------------------------------------------------------


def tilecheck_builds(path: Path, target: str = ARCH) -> list[dict[str, Any]]:
    """Every kernel build tilecheck makes of `path`: where, its size or why not, and the
    request that rebuilds it in TileLang (None, with `unjudged`, when none can)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from tilecheck.backends.profile import get_profile
    from tilecheck.tilelang.frontend import analyze
    from tilecheck.tilelang.shared_memory import TargetClass, target_class
    from tilecheck.tilelang.sizing import judged_layout

    profile = get_profile(PROFILES[target]) if target in PROFILES else None
    kind = target_class(profile.backend, profile.warp_specialization) if profile else TargetClass.CP_ASYNC
    assert kind is not None

    try:
        module = cst.parse_module(path.read_text(encoding="utf-8"))
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
        model = analyze(module)
    except Exception as error:  # one file's failure never costs the others' results
        return [{"error": f"{type(error).__name__}: {error}"}]
    builds = []
    for kernel in model.kernels:
        layout = judged_layout(kernel, model, kind, profile)  # what TL501 judges
        build: dict[str, Any] = {"kernel": kernel.name, "line": positions[kernel.node].start.line}
        if layout.sized:
            build["bytes"] = layout.total_bytes
            build["buffers"] = [[b.name, b.bytes, b.versions] for b in layout.buffers]
        else:
            build["undecided"] = layout.undecided
        build["request"], build["unjudged"] = _request(kernel, module)
        builds.append(build)
    return builds


def _request(kernel: Any, module: Any) -> tuple[dict[str, Any] | None, str | None]:
    from tilecheck.tilelang.values import PyConst, PyValue

    if kernel.factory_call is None:
        if kernel.top is not kernel.node:
            return None, "built inside a function that is not a module-level factory"
        return {"object": kernel.name, "arguments": {}, "kernel": kernel.name}, None
    name, parameters = kernel.factory_call
    if name.startswith("test"):
        return None, "built inside a test function, which runs it and returns nothing"
    if not any(getattr(s, "name", None) is not None and s.name.value == name for s in module.body):
        return None, "a factory that is not a module-level function (a method)"
    arguments: dict[str, Any] = {}
    placeholders: list[str] = []
    for parameter, value in parameters:
        if isinstance(value, PyConst):
            encoded = _encode(value.value)
            if encoded is _UNENCODABLE:
                return None, f"the argument `{parameter}` is not a plain constant"
            arguments[parameter] = encoded
        elif isinstance(value, PyValue) and value.dtype is not None:
            arguments[parameter] = value.dtype
        elif isinstance(value, PyValue) and (
            value.is_int or _encode(value.default) not in (None, _UNENCODABLE)
        ):
            # A value tilecheck sized the kernel without knowing: any value must give that size;
            # the literal default it came from (a caller's parameter), else a placeholder int.
            default = _encode(value.default)
            arguments[parameter] = PLACEHOLDER if default in (None, _UNENCODABLE) else default
            placeholders.append(parameter)
        # otherwise unknown to tilecheck: left to the function's default
    request = {"object": name, "arguments": arguments, "kernel": kernel.name}
    return request | ({"placeholders": placeholders} if placeholders else {}), None


_UNENCODABLE = object()


def _encode(value: object) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        items = [_encode(v) for v in value]
        if any(item is _UNENCODABLE for item in items):
            return _UNENCODABLE
        return {"tuple": items} if isinstance(value, tuple) else items
    return _UNENCODABLE


def tilelang_bytes(verdict: dict[str, Any]) -> int | None:
    kernels = verdict.get("kernels") or {}
    if verdict.get("status") != "ok" or len(kernels) != 1:
        return None
    (only,) = kernels.values()
    return int(only["dynamic"]) + int(only.get("static", 0))


def reason_kind(reason: str) -> str:
    """A reason with its names and values taken out, to count alike reasons together."""
    return re.sub(r"\([^)]*\)", "(...)", re.sub(r"`[^`]*`", "`...`", reason))


def judge_files(
    requests: dict[Path, dict[str, Any]],
    cache: dict[str, Any],
    cache_path: Path,
    jobs: int,
    timeout: float,
    target: str = ARCH,
) -> None:
    """Run the worker on each file with requests not in `cache`; store the results."""
    python = os.path.join(os.environ.get("ORACLE_VENV", "/work/oracle-venv"), "bin", "python")
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONDONTWRITEBYTECODE": "1", "SMEM_TARGET": target}

    def run(path: Path) -> tuple[Path, dict[str, Any]]:
        with tempfile.TemporaryDirectory() as scratch:
            asked, answer = Path(scratch, "requests.json"), Path(scratch, "result.json")
            asked.write_text(json.dumps(requests[path]))
            try:
                subprocess.run(
                    [python, str(HERE / "corpus_worker.py"), str(path.resolve()), str(asked), str(answer)],
                    env=env, timeout=timeout, stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                )  # fmt: skip
                failure = "the worker exited before answering"
            except subprocess.TimeoutExpired:
                failure = f"timed out after {timeout:g} s"
            done = json.loads(answer.read_text()) if answer.exists() else {}
        return path, {k: done.get(k, {"status": "error", "error": failure}) for k in requests[path]}

    todo = [p for p, asked in requests.items() if any(k not in cache for k in asked)]
    print(f"[smem-corpus] {len(todo)} files to lower with TileLang", file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(max(jobs, 1)) as pool:
        for done, (path, results) in enumerate(pool.map(run, todo), 1):
            cache.update(results)
            _write_atomic(cache_path, json.dumps(cache))
            print(f"[smem-corpus] {done}/{len(todo)} {path}", file=sys.stderr)


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)


def compare(
    files: list[Path], jobs: int, timeout: float, cache_path: Path, target: str = ARCH
) -> dict[str, Any]:
    from tilecheck.tilelang import sizing

    cache: dict[str, Any] = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    per_file = {path: tilecheck_builds(path, target) for path in files}
    requests: dict[Path, dict[str, Any]] = {}
    for path, builds in per_file.items():
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        for build in builds:
            if "bytes" in build and build.get("request") is not None:
                key = f"{digest}:{json.dumps(build['request'], sort_keys=True)}:{target}:{VERSION}"
                build["key"] = key
                requests.setdefault(path, {})[key] = build["request"]
    judge_files(requests, cache, cache_path, jobs, timeout, target)
    counts: collections.Counter[str] = collections.Counter()
    reasons: collections.Counter[str] = collections.Counter()
    not_lowered: collections.Counter[str] = collections.Counter()
    disagreements, agreements = [], []
    for path, builds in per_file.items():
        counts["files"] += 1
        for build in builds:
            if "error" in build:
                counts["files tilecheck could not read"] += 1
                continue
            counts["builds"] += 1
            if "bytes" not in build:
                reasons[sizing.reason_kind(build["undecided"][0])] += 1  # as `--statistics` counts them
                continue
            counts["sized"] += 1
            where = f"{path}:{build['line']} {build['kernel']}"
            if build.get("key") is None:
                not_lowered[f"not rebuilt: {build['unjudged']}"] += 1
                continue
            verdict = cache.get(build["key"], {})
            expected = tilelang_bytes(verdict)
            if expected is None:
                error = verdict.get("error") or f"{len(verdict.get('kernels') or {})} device kernels"
                not_lowered[reason_kind(error.splitlines()[0][:120] if error else "?")] += 1
                continue
            counts["lowered"] += 1
            record = {"where": where, "tilecheck": build["bytes"], "tilelang": expected,
                      "arguments": build["request"]["arguments"]}  # fmt: skip
            if expected == build["bytes"]:
                counts["agree"] += 1
                agreements.append(record)
            else:
                record |= {"buffers": build["buffers"], "tilelang_detail": verdict["kernels"]}
                disagreements.append(record)
    return {"counts": counts, "not_sized": reasons, "not_lowered": not_lowered,
            "disagreements": disagreements, "agreements": agreements}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per file")
    parser.add_argument("--cache", type=Path, default=Path("build/oracle/smem/corpus_cache.json"))
    parser.add_argument("--report", type=Path, default=None)
    parser.add_argument("--target", default=ARCH, choices=(ARCH, *PROFILES), help="lowered and sized for it")
    options = parser.parse_args()
    files: list[Path] = []
    for item in options.paths:
        path = Path(item)
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    report = compare(files, options.jobs, options.timeout, options.cache, options.target)
    c = report["counts"]
    print(
        f"[smem-corpus] {c['files']} files, {c['builds']} kernel builds, {c['sized']} sized by tilecheck ({options.target}), "
        f"{c['lowered']} of them lowered by TileLang {VERSION}, {c['agree']} byte-exact"
    )
    for item in report["disagreements"]:
        print(
            f"[smem-corpus]   DISAGREE {item['where']}: tilecheck {item['tilecheck']}, TileLang {item['tilelang']}"
        )
    for reason, count in report["not_lowered"].most_common():
        print(f"[smem-corpus]   sized, not lowered ({count}): {reason}")
    for reason, count in report["not_sized"].most_common():
        print(f"[smem-corpus]   not sized ({count}): {reason}")
    if options.report is not None:
        _write_atomic(options.report, json.dumps(report, indent=1))
    return 1 if report["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())
