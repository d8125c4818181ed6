"""The oracle's conditions family: generated kernels say their flags' build-time values, and
the comparison counts a finding that holds "when `flag` is ..." only when the flag agrees."""

from __future__ import annotations

import importlib.util
import os
import sys

ORACLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "oracle")


def _load(name):
    sys.path.insert(0, ORACLE)
    try:
        spec = importlib.util.spec_from_file_location(f"_oracle_{name}", os.path.join(ORACLE, f"{name}.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(ORACLE)


def test_a_conditional_finding_counts_only_when_its_flags_agree():
    applies = _load("compare").applies
    message = "Nested `T.Parallel` loop: ... (when `use_tc` is false and `on` is true)"
    assert applies(message, {"use_tc": False, "on": True})
    assert not applies(message, {"use_tc": True, "on": True})
    assert not applies(message, {"on": False})
    assert applies(message, {})  # a condition the file does not name: the finding counts
    assert applies("Tile operator `T.copy` inside the `T.Parallel` loop at line 3", {"use_tc": True})


def test_every_condition_variant_is_generated_with_its_flags(tmp_path):
    generate = _load("generate")
    files = generate.generate_conditioned(7, len(generate.COND_VARIANTS))
    variants = {
        tag for _, _, tags in files for tag in tags if tag.startswith("cond:") and "value-" not in tag
    }
    assert variants == {f"cond:{v}" for v in generate.COND_VARIANTS}
    for _, text, tags in files:
        lines = text.splitlines()
        assert lines[2].startswith("# flags:")
        flags = [tag[len("flag:") :] for tag in tags if tag.startswith("flag:")]
        assert all(flag in lines[2] for flag in flags)
        compile(text, "c.py", "exec")  # each is a Python module
