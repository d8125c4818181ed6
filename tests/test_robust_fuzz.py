"""A few hundred cases of `make fuzz` (tools/fuzz.py) on every test run: mutated fixtures and PyPTO
programs through the real command line and `lower`, with the fuzzer's own oracle."""

from __future__ import annotations

import importlib.util
import os
import signal

import pytest

import tilecheck.app.workspace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tool(name):
    spec = importlib.util.spec_from_file_location(
        f"_robust_{name}", os.path.join(ROOT, "tools", f"{name}.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fuzz = _tool("fuzz")
fuzz_cases = _tool("fuzz_cases")

# `lower` exits 2 on a file that is not UTF-8 (issue 12 §3, the lowering's own item): counted
# by `make fuzz`, left out here until the lowering reports it as a diagnostic.
UNDECODABLE = "codec can't decode"


def test_check_fuzz_cases(tmp_path):
    tilelang, pypto = fuzz.seeds()
    state = fuzz.campaign("check", tilelang + pypto, total=200, batch=100, seed=1, out=str(tmp_path))
    assert state.cases == 200
    assert state.failures == []


def test_lower_fuzz_cases(tmp_path):
    _, pypto = fuzz.seeds()
    state = fuzz.campaign("lower", pypto, total=100, batch=100, seed=1, out=str(tmp_path))
    assert state.cases == 100
    assert [failure for failure in state.failures if UNDECODABLE not in failure[1]] == []


def test_the_seeds_cover_both_languages():
    tilelang, pypto = fuzz.seeds()
    assert len(tilelang) >= 20 and len(pypto) >= 20
    assert all("pl." in text for text in pypto)


def test_the_fuzz_oracle_catches_a_crashing_case(tmp_path, monkeypatch):
    """A case that kills its worker is a failure, kept in the output directory."""
    real = tilecheck.app.workspace.lint_source

    def crash_on_marker(data, path, settings):
        if b"CRASH_HERE" in (data if isinstance(data, bytes) else data.encode()):
            import faulthandler

            faulthandler.disable()
            os.kill(os.getpid(), signal.SIGSEGV)
        return real(data, path, settings)

    monkeypatch.setattr(tilecheck.app.workspace, "lint_source", crash_on_marker)
    state = fuzz.Campaign(str(tmp_path), "check")
    # A kernel word keeps the file past the prefilter (tilecheck.lint.prefilter), so lint_source runs.
    state.run_batch([b"x = 1\n", b"import tilelang.language as T\nCRASH_HERE = 1\n", b"y = 2\n"])
    names = sorted({name for name, _ in state.failures})
    assert names == ["*", "case_00001.py"]
    assert any("signal 11 (SIGSEGV)" in problem for _, problem in state.failures)
    assert "case_00001.py" in os.listdir(tmp_path / "check")


@pytest.mark.parametrize("mutation", fuzz_cases.MUTATIONS, ids=lambda mutation: mutation.__name__)
def test_each_mutation_changes_or_keeps_a_text_without_raising(mutation):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=20, deadline=None, database=None)
    @given(st.data())
    def run(data):
        text = "for i in T.Parallel(8):\n    B[i] = A[i]\n"
        assert isinstance(mutation(data.draw, text), str)

    run()
