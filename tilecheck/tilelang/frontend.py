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

The parts, each with its own module: `PythonLevel` reads module and factory code as Python
and finds the kernels; `KernelInterpreter` interprets kernel statements, with a
`LoopBuilder` for `for` statements and a `MacroInliner` for macro calls; all three evaluate
expressions with one `ExpressionEvaluator`, whose constant folding is `folding`'s. What they
share while one file is built is a declared `BuildState` (the model, the kernel being built,
the work done).
"""

from __future__ import annotations

import libcst as cst

from tilecheck.tilelang.imports import ImportTable
from tilecheck.tilelang.model import FileModel
from tilecheck.tilelang.python_level import PythonLevel
from tilecheck.tilelang.reuse import KernelMemo


def analyze(
    module: cst.Module, imports: ImportTable | None = None, memo: KernelMemo | None = None
) -> FileModel:
    """The kernel model of a parsed module; `memo` (one per editor document) reuses the kernels
    an earlier version of it built, where nothing they read changed (`tilelang.reuse`)."""
    level = PythonLevel(module, imports or ImportTable.from_module(module), memo)
    try:
        return level.run()
    finally:
        level.close()
