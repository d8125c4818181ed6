"""How much of a file's kernel code tilecheck modeled: kernels and loops, counted from the model.

`kernels` counts the kernel definitions the TileLang model built (`@T.prim_func` functions and
eager `@tilelang.jit` kernels; a factory built with several argument sets counts once) and the
PyPTO DSL functions (`@pl.function`, `@pl.jit`, `@pl.jit.inline`, also in `@pl.program`
classes). `loops` counts the loop statements written in the file that the model built inside
them: every `for` the TileLang frontend makes a TIR loop (`T.Parallel(M, N)` is one loop; a
loop inside a macro counts once however often the macro is inlined; a loop under a Python
condition tilecheck cannot decide counts, since it is checked), and every `pl.pipeline`,
`pl.range`, `pl.parallel` and `pl.unroll` loop of a PyPTO DSL function.

The counts are measured once per file, where the model is (in the worker that checked it),
and travel with the detached result through the worker pool and the content cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilecheck.source.kernel_code import may_hold_pypto, may_hold_tilelang

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


@dataclass(frozen=True)
class Coverage:
    kernels: int = 0
    loops: int = 0

    def __add__(self, other: Coverage) -> Coverage:
        return Coverage(self.kernels + other.kernels, self.loops + other.loops)

    @property
    def empty(self) -> bool:
        return not self.kernels and not self.loops


NONE = Coverage()


def measure(ctx: Context) -> Coverage:
    """The coverage of one checked file, from its kernel model (built if no rule built it yet).

    A model that cannot be built counts as nothing modeled: its TL004/TL005 says why.
    """
    return ctx.memo("coverage", lambda: _tilelang(ctx) + _pypto(ctx))


def _tilelang(ctx: Context) -> Coverage:
    from tilecheck.tilelang.model import Loop, walk

    if not may_hold_tilelang(ctx.source):  # the model is empty: do not build it
        return NONE
    try:
        kernels = ctx.model.kernels
    except Exception:  # the engine has reported the model's failure already
        return NONE
    definitions: set[int] = set()
    loops: set[int] = set()
    for kernel in kernels:
        definitions.add(id(kernel.node))
        for item, _ in walk(kernel.body):
            if isinstance(item, Loop):
                loops.add(id(item.statement if item.statement is not None else item.site.node))
    return Coverage(len(definitions), len(loops))


def _pypto(ctx: Context) -> Coverage:
    if not may_hold_pypto(ctx.source):
        return NONE
    from tilecheck.pypto.dsl import body_statements, dsl_functions, find_aliases, iter_loops, loop_header

    aliases = find_aliases(ctx.module)
    if not aliases.prefixes and not aliases.members:
        return NONE
    functions = dsl_functions(ctx.module, aliases)
    loops = sum(
        1
        for site in functions
        for node in iter_loops(body_statements(site.node))
        if loop_header(node, aliases) is not None
    )
    return Coverage(len(functions), loops)
