"""The kernel interpreter: runs a kernel body abstractly, the way TileLang's eager builder
runs it, and records the loops and statements the frontend would emit (reference §2.3).

- `range(...)` is a TIR serial loop; any other Python iterable is unrolled at build time.
- An `if` on a Python value disappears with its dead branch; an `if` on a PrimExpr is a
  statement.
- `x = <Python value>` emits nothing; `x = <Var>` renames the variable; any other PrimExpr
  becomes a Bind statement (which breaks strict parallel chains and hides loop variables).
- Allocations emit nothing unless they initialise (`T.alloc_var(..., init=x)`).
- `@T.macro` calls are inlined at the call site: variable arguments rename, expression
  arguments become Binds.
"""

from __future__ import annotations

import libcst as cst

from tilecheck.analysis.evaluate import ExpressionEvaluator
from tilecheck.analysis.imports import ImportTable
from tilecheck.analysis.loop_builder import LoopBuilder
from tilecheck.analysis.macros import MacroInliner
from tilecheck.analysis.model import FileModel, Kernel
from tilecheck.analysis.python_level import PythonLevel
from tilecheck.analysis.statements import StatementInterpreter


class Frontend(PythonLevel, StatementInterpreter, LoopBuilder, MacroInliner, ExpressionEvaluator):
    """Builds the `FileModel` of one parsed module."""

    def __init__(self, module: cst.Module, imports: ImportTable) -> None:
        self.module = module
        self.imports = imports
        self.current: Kernel | None = None  # the kernel being built
        self.model = FileModel()
        self.work = 0  # statements interpreted so far (bounded by MAX_WORK)


def analyze(module: cst.Module, imports: ImportTable | None = None) -> FileModel:
    """The kernel model of a parsed module."""
    return Frontend(module, imports or ImportTable.from_module(module)).run()
