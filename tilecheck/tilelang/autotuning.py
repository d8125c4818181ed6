"""Kernels whose configuration TileLang's autotuner chooses (`@autotune`, `@tilelang.autotune`).

`@autotune(configs=...)` over a `@tilelang.jit` factory compiles every configuration when the
factory is called and runs the fastest: the build that runs is none tilecheck can name from the
source (tilelang/autotuner/tuner.py, `AutoTuneImpl.__call__`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.tilelang.model import Kernel

if TYPE_CHECKING:
    import libcst as cst


def under_autotune(kernel: Kernel) -> bool:
    """Whether a function around the kernel (its factory, or the `@tilelang.jit` kernel itself)
    is under `@autotune`: the build that runs takes the tuner's best configuration, not the
    defaults or the call's (TileLang skips tuning only when the call gives a tunable argument,
    which tilecheck does not prove)."""
    import libcst as cst  # here: importing the rules must not import libcst

    from tilecheck.tilelang.syntax import nested_statements

    tuned = (
        statement
        for statement in nested_statements([kernel.top])  # statements only: cheap
        if isinstance(statement, cst.FunctionDef)
        and any(_is_autotune(d.decorator) for d in statement.decorators)
    )
    return any(inner is kernel.node for function in tuned for inner in nested_statements([function]))


def _is_autotune(decorator: cst.BaseExpression) -> bool:
    import libcst as cst

    node = decorator.func if isinstance(decorator, cst.Call) else decorator
    names: list[str] = []
    while isinstance(node, cst.Attribute):
        names.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        names.append(node.value)
    return bool(names) and names[0] == "autotune" and names[-1] != "triton"
