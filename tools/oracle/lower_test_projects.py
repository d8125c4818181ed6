"""Lower each violating kernel of tests/test_cross_module_names.py with TileLang 0.1.15.

Run the tests with `--basetemp=DIR` (pytest keeps each test's project there), then, with the
oracle venv's Python, `python tools/oracle/lower_test_projects.py DIR`. Each line is the test's
folder, the kernel module, and TileLang's verdict for `sm_80`. Recorded on 0.1.15: every kernel
listed is rejected by the semantic check the test's finding names ("Only elementwise operations
are allowed inside a parallel loop" for TL103, "Pipelined loop cannot be nested inside a parallel
loop" for the macro stored on `self`).
"""

import importlib
import os
import sys

import tilelang  # type: ignore[import-not-found]  # only in the oracle's venv
import tvm  # type: ignore[import-not-found]  # only in the oracle's venv


def lower(f: object) -> str:
    try:
        with tvm.target.Target({"kind": "cuda", "arch": "sm_80"}) as t:
            tilelang.lower(f, target=t)
        return "OK"
    except Exception as e:
        return "ERR " + type(e).__name__ + " " + (str(e).strip().splitlines() or [""])[-1][:90]


KEPT = [f"test_t_assigned_from_another_n{i}:k" for i in range(5)] + [
    "test_a_loop_constructor_assign0:k",
    "test_t_assigned_in_a_helper_mo0:lib.ops.a",
    "test_t_assigned_in_a_helper_mo1:lib.ops.a4",
    "test_t_assigned_in_a_helper_mo2:lib.ops.c",
    "test_t_assigned_in_a_helper_mo3:lib.ops.d",
    "test_t_assigned_in_a_helper_mo4:lib.ops.k3",
    "test_t_assigned_from_a_helper_0:lib.ops.b",
    "test_a_macro_called_through_a_0:pkg.m5",
    "test_a_macro_called_through_a_1:pkg.m5",
    "test_a_macro_called_through_a_2:pkg.m5",
    "test_a_lazy_loader_called_thro0:pkg.k5",
    "test_absolute_imports_from_the0:pkg.a.b.c.d.e.f.k",
    "test_absolute_imports_from_the0:pkg.k_chain",
    "test_only_the_imports_the_file0:pkg.k",
    "test_a_constant_assignment_doe0:k",
    "test_a_macro_stored_on_self_ge0:pkg.m7",
]
for entry in KEPT:
    folder, module = entry.split(":")
    root = os.path.join(sys.argv[1], folder)
    sys.path.insert(0, root)
    for key in [k for k in sys.modules if k in ("k",) or k.split(".")[0] in ("lib", "pkg")]:
        del sys.modules[key]
    try:
        mod = importlib.import_module(module)
        if hasattr(mod, "main"):
            f = mod.main
        elif hasattr(mod, "make"):
            f = mod.make()
        else:
            f = mod.K().build()
        print(entry, lower(f))
    except Exception as e:
        print(entry, "IMPORT", type(e).__name__, str(e)[:100])
    sys.path.remove(root)
