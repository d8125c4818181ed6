"""The oracle's worker process (`run_tilelang.py --worker`): imports each kernel file it is sent
and applies TileLang's three checkers to its PrimFuncs, one JSON line per file.

Apart from `run_tilelang` (the parent, which schedules files over workers and caches their
verdicts) because only this side imports TileLang.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from digest import package_root, sha256_file

FAMILIES = ("NestedLoopChecker", "ParallelLocalIndexChecker", "FragmentLoopChecker")


def _find_kernels(module: ModuleType) -> dict[str, object]:
    from tvm.tirx import PrimFunc  # type: ignore[import-not-found]  # only in the oracle's venv

    def as_primfunc(obj: object) -> object:  # the PrimFunc, or None
        if isinstance(obj, PrimFunc):
            return obj
        # eager-JIT / lazy wrappers: try the usual accessors
        for attr in ("get_tir", "prim_func", "func"):
            inner = getattr(obj, attr, None)
            if callable(inner):
                try:
                    inner = inner()
                except Exception:
                    continue
            if isinstance(inner, PrimFunc):
                return inner
        return None

    found: dict[str, object] = {}
    if hasattr(module, "KERNEL"):
        f = as_primfunc(module.KERNEL)
        if f is None:
            raise TypeError(f"KERNEL is not a PrimFunc: {type(module.KERNEL)!r}")
        found["main"] = f
        return found
    if hasattr(module, "KERNELS"):
        ks = module.KERNELS
        items = ks.items() if isinstance(ks, dict) else ((f"k{n}", k) for n, k in enumerate(ks))
        for name, k in items:
            f = as_primfunc(k)
            if f is None:
                raise TypeError(f"KERNELS[{name!r}] is not a PrimFunc: {type(k)!r}")
            found[str(name)] = f
        return found
    for name, obj in vars(module).items():
        if isinstance(obj, PrimFunc):
            found[name] = obj
    return found


def _check_one(path: str, counter: int) -> dict[str, Any]:
    import importlib
    import importlib.util
    import traceback
    import warnings

    import tilelang  # type: ignore[import-not-found]  # only in the oracle's venv
    import tilelang.analysis as analysis  # type: ignore[import-not-found]  # only in the oracle's venv
    from tilelang import tvm

    t0 = time.perf_counter()
    rec: dict[str, Any] = {
        "path": path,
        "sha256": sha256_file(path),
        "status": "ok",
        "error": None,
        "kernels": [],
        "families": {},
        "warnings": [],
        "tilelang": tilelang.__version__,
    }
    modname = f"_oracle_kernel_{counter}"
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            root = package_root(Path(path))
            if root is None:
                spec = importlib.util.spec_from_file_location(modname, path)
                assert spec is not None and spec.loader is not None  # a .py file has both
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            else:  # a file of a generated project: imported as its package's module
                if str(root.parent) not in sys.path:
                    sys.path.insert(0, str(root.parent))
                relative = Path(path).resolve().relative_to(root.parent).with_suffix("")
                module = importlib.import_module(".".join(relative.parts))
        rec["warnings"] = sorted({f"{w.category.__name__}: {w.message}" for w in caught})[:5]
        kernels = _find_kernels(module)
        if isinstance(getattr(module, "BUILD_ERRORS", None), dict) and module.BUILD_ERRORS:
            # question fixtures record sub-cases that the frontend refused to build
            rec["sub_build_errors"] = {str(k): str(v) for k, v in module.BUILD_ERRORS.items()}
    except BaseException as e:
        rec["status"] = "build_error"
        rec["error"] = f"{type(e).__name__}: {e}"
        rec["traceback_tail"] = traceback.format_exc().splitlines()[-6:]
        rec["seconds"] = round(time.perf_counter() - t0, 4)
        return rec
    if not kernels:
        rec["status"] = "no_kernel"
        rec["error"] = "no PrimFunc found (define KERNEL = make_kernel(...))"
        rec["seconds"] = round(time.perf_counter() - t0, 4)
        return rec
    rec["kernels"] = sorted(kernels)
    mod = tvm.IRModule({name: f for name, f in kernels.items()})
    for fam in FAMILIES:
        try:
            getattr(analysis, fam)()(mod)
            rec["families"][fam] = {"rejected": False, "message": None, "error_type": None}
        except Exception as e:
            rec["families"][fam] = {
                "rejected": True,
                "message": str(e),
                "error_type": type(e).__name__,
            }
    if len(kernels) > 1:
        # files with several kernels (e.g. fixtures/oracle_questions): also check each one alone,
        # because a checker stops at the first violation in the module
        rec["per_kernel"] = {}
        for name, f in kernels.items():
            one = tvm.IRModule({name: f})
            res: dict[str, str | None] = {}  # family -> its message, None when it accepts
            for fam in FAMILIES:
                try:
                    getattr(analysis, fam)()(one)
                    res[fam] = None
                except Exception as e:
                    res[fam] = str(e)
            rec["per_kernel"][name] = res
    rec["seconds"] = round(time.perf_counter() - t0, 4)
    return rec


def worker_main() -> None:
    """Protocol: read one path per line on stdin, answer one JSON line each."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything the kernels / TVM print goes to stderr
    import tilelang  # noqa: F401  (slow import, once per worker)

    counter = 0
    for line in sys.stdin:
        path = line.rstrip("\n")
        if not path:
            continue
        counter += 1
        try:
            rec = _check_one(path, counter)
        except BaseException as e:
            rec = {"path": path, "status": "crash", "error": f"{type(e).__name__}: {e}", "families": {}}
        proto.write(json.dumps(rec) + "\n")
        proto.flush()
