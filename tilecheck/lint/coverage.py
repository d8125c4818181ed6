"""How much of a file's kernel code tilecheck modeled: kernels and loops, counted from the model.

`kernels` counts the kernel definitions the TileLang model built (`@T.prim_func` functions and
eager `@tilelang.jit` kernels; a factory built with several argument sets counts once) and the
PyPTO DSL functions (`@pl.function`, `@pl.jit`, `@pl.jit.inline`, also in `@pl.program`
classes). `loops` counts the loop statements written in the file that the model built inside
them: every `for` the TileLang frontend makes a TIR loop (`T.Parallel(M, N)` is one loop; a
loop inside a macro counts once however often the macro is inlined; a loop under a Python
condition tilecheck cannot decide counts, since it is checked), and every `pl.pipeline`,
`pl.range`, `pl.parallel` and `pl.unroll` loop of a PyPTO DSL function.

`shared` says, for the backend the file is checked for (none when no backend is selected), how
many kernel builds (a factory built with several argument sets counts once per build) TL501
could size and why the others are not sized, one reason per build (`tilecheck.tilelang.sizing`).

The counts are measured once per file, where the model is (in the worker that checked it),
and travel with the detached result through the worker pool and the content cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


@dataclass(frozen=True)
class SharedCoverage:
    """Shared-memory sizing of a file's kernel builds under one backend."""

    backend: str
    builds: int = 0
    sized: int = 0
    not_sized: tuple[tuple[str, int], ...] = ()  # (reason, builds), most builds first

    def __add__(self, other: SharedCoverage) -> SharedCoverage:
        reasons = dict(self.not_sized)
        for reason, count in other.not_sized:
            reasons[reason] = reasons.get(reason, 0) + count
        ordered = tuple(sorted(reasons.items(), key=lambda item: (-item[1], item[0])))
        return SharedCoverage(self.backend, self.builds + other.builds, self.sized + other.sized, ordered)

    def encode(self) -> dict[str, object]:
        return {"backend": self.backend, "builds": self.builds, "sized": self.sized,
                "notSized": [{"reason": r, "builds": n} for r, n in self.not_sized]}  # fmt: skip

    @staticmethod
    def decode(data: dict[str, object]) -> SharedCoverage:
        reasons = data["notSized"]
        assert isinstance(reasons, list)
        not_sized = tuple((str(item["reason"]), int(item["builds"])) for item in reasons)
        return SharedCoverage(
            str(data["backend"]), int(str(data["builds"])), int(str(data["sized"])), not_sized
        )


@dataclass(frozen=True)
class Coverage:
    kernels: int = 0
    loops: int = 0
    shared: SharedCoverage | None = None  # None when no backend is selected

    def __add__(self, other: Coverage) -> Coverage:
        """Kernels and loops summed (shared-memory counts are summed per backend: `shared_totals`)."""
        return Coverage(self.kernels + other.kernels, self.loops + other.loops)

    @property
    def empty(self) -> bool:
        return not self.kernels and not self.loops


NONE = Coverage()


def measure(ctx: Context) -> Coverage:
    """The coverage of one checked file, from its kernel model (built if no rule built it yet).

    A model that cannot be built counts as nothing modeled: its TL004/TL005 says why.
    """

    def counts() -> Coverage:
        tilelang, pypto = _tilelang(ctx), _pypto(ctx)
        return Coverage(tilelang.kernels + pypto.kernels, tilelang.loops + pypto.loops, tilelang.shared)

    return ctx.memo("coverage", counts)


def shared_totals(coverages: list[Coverage]) -> list[SharedCoverage]:
    """The shared-memory counts summed per backend, in backend order."""
    totals: dict[str, SharedCoverage] = {}
    for seen in coverages:
        if seen.shared is not None:
            before = totals.get(seen.shared.backend)
            totals[seen.shared.backend] = seen.shared if before is None else before + seen.shared
    return [totals[name] for name in sorted(totals)]


def _tilelang(ctx: Context) -> Coverage:
    from tilecheck.source.kernel_code import may_hold_tilelang  # measured where a file is checked
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
    return Coverage(len(definitions), len(loops), _shared(ctx))


def _shared(ctx: Context) -> SharedCoverage | None:
    from tilecheck.backends.profile import profile_of
    from tilecheck.tilelang.shared_memory import unsized_reason
    from tilecheck.tilelang.sizing import NO_BUDGET, judged_layout, reason_kind, sized_class

    profile = profile_of(ctx.backend)
    if profile is None:
        return None
    model = ctx.model
    kind = sized_class(profile)
    reasons: dict[str, int] = {}
    sized = 0
    for kernel in model.kernels:
        if kind is None:
            reason = NO_BUDGET if profile.shared_memory_per_block <= 0 else unsized_reason(profile.backend)
        else:
            layout = judged_layout(kernel, model, kind, profile)
            if layout.sized:
                sized += 1
                continue
            reason = reason_kind(layout.undecided[0])
        reasons[reason] = reasons.get(reason, 0) + 1
    ordered = tuple(sorted(reasons.items(), key=lambda item: (-item[1], item[0])))
    return SharedCoverage(profile.name, len(model.kernels), sized, ordered)


def _pypto(ctx: Context) -> Coverage:
    from tilecheck.source.kernel_code import may_hold_pypto

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
