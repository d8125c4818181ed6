#!/usr/bin/env python3
"""corpus_judge.py's worker: TileLang's side, one corpus file per process, in the oracle venv.

Usage: $ORACLE_VENV/bin/python corpus_worker.py FILE REQUESTS.json RESULT.json
Imports FILE (never as `__main__`, under the target, a failing helper import stubbed on a
second try), rebuilds each requested build, lowers it for the target (`SMEM_TARGET`: sm_80 unless
set, or `hip:gfx942`, `hip:gfx950`, as judge.py names them) and writes, per request,
`{"status": "ok", "kernels": {name: {"dynamic", "static", "static_arrays"}}}` or an error.
Imports nothing of tilecheck.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ARCH = os.environ.get("SMEM_TARGET", "sm_80")
HERE = Path(__file__).resolve().parent


def worker(path: str, requests_path: str, result_path: str) -> None:
    import importlib.util

    sys.path.insert(0, str(HERE.parent))
    from smem.judge import static_arrays, target_for  # the generated family's reading of `__shared__` arrays

    requests = json.loads(Path(requests_path).read_text())
    results: dict[str, Any] = {}
    folder = str(Path(path).resolve().parent)
    sys.path.insert(0, folder)
    os.chdir(folder)

    def load() -> Any:
        spec = importlib.util.spec_from_file_location(Path(path).stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        with target_for(ARCH)[0]:  # a kernel built at import time
            spec.loader.exec_module(module)
        return module

    stubbed: list[str] = []
    before = set(sys.modules)
    try:
        module = load()
    except BaseException:  # SystemExit too
        # A helper module that needs a GPU or a package the oracle venv lacks (FLA_KDA queries
        # the device at import, some import einops or pytest): again, with each import that
        # fails replaced by a stub. Kernels that touch a stub fail to build, never mis-size.
        for name in set(sys.modules) - before:
            if not name.startswith(("tilelang", "tvm", "torch")):
                del sys.modules[name]
        try:
            with _stub_failing_imports(stubbed):
                module = load()
        except BaseException as error:  # the file's failure is its verdict
            error_text = f"import: {type(error).__name__}: {str(error)[:300]}"
            answer = {key: {"status": "error", "error": error_text} for key in requests}
            Path(result_path).write_text(json.dumps(answer))
            return
    for key, request in requests.items():
        try:
            results[key] = {"status": "ok", "kernels": _lower(module, request, static_arrays)}
            if stubbed:
                results[key]["stubbed_imports"] = sorted(set(stubbed))
        except BaseException as error:
            results[key] = {"status": "error", "error": f"{type(error).__name__}: {str(error)[:300]}"}
        Path(result_path).write_text(json.dumps(results))
    Path(result_path).write_text(json.dumps(results))


@contextlib.contextmanager
def _stub_failing_imports(stubbed: list[str]) -> Iterator[None]:
    import builtins
    import types
    from unittest import mock

    real = builtins.__import__

    class Stub(types.ModuleType):
        def __getattr__(self, name: str) -> Any:
            return mock.MagicMock(name=f"{self.__name__}.{name}")

    def tolerant(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        try:
            return real(name, globals, locals, fromlist, level)
        except Exception:
            if level or name.split(".")[0] in ("tilelang", "tvm"):
                raise
            stubbed.append(name)
            for depth in range(1, name.count(".") + 2):
                prefix = ".".join(name.split(".")[:depth])
                sys.modules.setdefault(prefix, Stub(prefix))
            return sys.modules[name if fromlist else name.split(".")[0]]

    builtins.__import__ = tolerant
    try:
        yield
    finally:
        builtins.__import__ = real


def _lower(module: Any, request: dict[str, Any], static_arrays: Any) -> dict[str, Any]:
    import tilelang  # type: ignore[import-not-found]  # only in the oracle's venv
    from tilelang import tvm
    from tilelang.transform.pass_config import normalize_pass_configs  # type: ignore[import-not-found]

    obj = getattr(module, request["object"])
    arguments = {name: _argument(value) for name, value in request["arguments"].items()}
    pass_configs: dict[str, Any] = {}
    jit = getattr(obj, "jit_impl", None) or obj  # `@autotune` wraps the `@tilelang.jit` function
    from smem.judge import target_for

    target, kind = target_for(ARCH)
    with target:  # a `@tilelang.jit` without `target=` would look for a GPU
        if isinstance(obj, tvm.tirx.PrimFunc):
            func = obj
        elif hasattr(jit, "get_tir"):
            func = jit.get_tir(**arguments)
            pass_configs = dict(jit.pass_configs or {})
        else:
            func = obj(**arguments)
    if isinstance(func, (tuple, list)):  # `return kernel, ref_program`
        func = next((item for item in func if isinstance(item, tvm.tirx.PrimFunc)), func)
    if not isinstance(func, tvm.tirx.PrimFunc):
        raise TypeError(f"the build is a {type(func).__name__}, not a PrimFunc")
    if func.attrs is not None and "tilelang_pass_configs" in func.attrs:
        pass_configs = {**dict(func.attrs["tilelang_pass_configs"]), **pass_configs}
    name = str(func.attrs["global_symbol"]) if func.attrs and "global_symbol" in func.attrs else ""
    if request.get("kernel") and name and name != request["kernel"]:
        raise LookupError(f"the build is the prim_func `{name}`, not `{request['kernel']}`")
    config = normalize_pass_configs(pass_configs)
    with tvm.transform.PassContext(opt_level=3, config=config), target:
        artifact = tilelang.lower(func, target=target)
    kernels: dict[str, Any] = {}
    for gvar, device in artifact.device_mod.functions.items():
        attrs = device.attrs
        dynamic = int(attrs["dyn_shared_memory_buf"]) if attrs and "dyn_shared_memory_buf" in attrs else 0
        kernels[gvar.name_hint] = {"dynamic": dynamic}
    if len(kernels) == 1:  # the source holds every device kernel: with one, its arrays are its own
        arrays = static_arrays(artifact.kernel_source, kind)
        (only,) = kernels.values()
        only["static"] = sum(size for _, size in arrays)
        only["static_arrays"] = arrays
    return kernels


def _argument(value: Any) -> Any:
    if isinstance(value, dict) and "tuple" in value:
        return tuple(_argument(v) for v in value["tuple"])
    if isinstance(value, list):
        return [_argument(v) for v in value]
    return value


if __name__ == "__main__":
    worker(*sys.argv[1:4])
