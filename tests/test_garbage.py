"""Garbage collection on the cold path: parsers pause the collector (`source.collection`),
batch workers collect between files (`app.worker_gc`), and a file's check leaves no cycle
through its context or its Python-level reader (which kept both trees of every file alive
until the collector found them)."""

from __future__ import annotations

import gc
import weakref

import libcst as cst
import pytest

from tilecheck.app.supervisor import Budget, run_isolated
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.lint.context import Context
from tilecheck.source import collection
from tilecheck.tilelang.frontend import analyze
from tilecheck.tilelang.loop_builder import LoopBuilder
from tilecheck.tilelang.python_level import PythonLevel
from tilecheck.tilelang.statements import KernelInterpreter

KERNEL = """import tilelang.language as T


def matmul(M, N):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16")):
        with T.Kernel(1, threads=128) as bx:
            for i, j in T.Parallel(M, N):
                A[i, j] = 0

    return main


kernel = matmul(64, 64)
"""


@pytest.fixture
def collector_off():
    """No automatic collection: an object only goes when its last reference does."""
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


@pytest.mark.parametrize("enabled", [True, False])
def test_a_pause_restores_the_collector_as_it_was(enabled):
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with collection.paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(ZeroDivisionError), collection.paused():
            _ = 1 / 0
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_an_exception_right_after_the_pause_began_still_ends_it(monkeypatch):
    """The editor's worker abandons a check by raising from a signal handler: one landing as
    soon as collection was disabled must not leave it off for good."""
    was = gc.isenabled()
    gc.enable()
    real = gc.disable

    def disable_then_interrupted() -> None:
        real()
        raise KeyboardInterrupt

    monkeypatch.setattr(collection.gc, "disable", disable_then_interrupted)
    try:
        with pytest.raises(KeyboardInterrupt), collection.paused():
            pass
        assert gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_a_context_goes_with_its_last_reference(collector_off):
    module = cst.parse_module(KERNEL)
    context = Context("k.py", KERNEL, module)
    assert context.locator.python_statement(module.body[0]) is not None  # the shared tree is parsed
    gone = weakref.ref(context)
    del context
    assert gone() is None


def test_building_a_model_leaves_no_reader_or_interpreter_behind(collector_off):
    """`frontend.analyze` closes its reader: with the collector off, nothing of the reader or
    its interpreter outlives the call (the model keeps only what it built)."""
    module = cst.parse_module(KERNEL)
    model = analyze(module)
    assert [kernel.name for kernel in model.kernels] == ["main"]
    left = [o for o in gc.get_objects() if isinstance(o, (PythonLevel, KernelInterpreter, LoopBuilder))]
    assert left == []


def _collector_state(path: str) -> FileAnalysis:
    return FileAnalysis(path, text=f"{gc.isenabled()} {gc.get_freeze_count() > 0}")


def test_a_worker_checks_with_the_collector_paused_and_frozen_what_it_inherited():
    results = run_isolated(["a.py", "b.py"], _collector_state, str, jobs=1, budget=Budget())
    assert [result.text for result in results] == ["False True", "False True"]
    assert gc.isenabled()  # the parent's own collector is untouched


class _Cyclic:
    def __init__(self) -> None:
        self.me = self


_LEFT: list[weakref.ref[_Cyclic]] = []  # in the worker: the cycle the previous file left


def _leave_a_cycle(path: str) -> FileAnalysis:
    reclaimed = [ref() is None for ref in _LEFT]
    _LEFT.append(weakref.ref(_Cyclic()))  # garbage as soon as made, but only a collection sees it
    return FileAnalysis(path, text=str(reclaimed))


def test_a_worker_reclaims_a_files_cyclic_garbage_before_the_next_file():
    results = run_isolated(["a.py", "b.py", "c.py"], _leave_a_cycle, str, jobs=1, budget=Budget())
    assert [result.text for result in results] == ["[]", "[True]", "[True, True]"]
