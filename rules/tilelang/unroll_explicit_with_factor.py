from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade
from tilecheck.tilelang.model import Loop, LoopKind
from tilecheck.tilelang.queries import kernel_items, present
from tilecheck.tilelang.values import PyConst, Value

from .._examples import KERNEL

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class UnrollExplicitWithFactor(Rule):
    """`T.unroll(..., explicit=True, unroll_factor=...)`: mutually exclusive options.

    ## What it does
    Reports a `T.unroll` loop that asks for explicit (full, build-time) unrolling and a
    partial unroll factor at the same time, through the arguments or the
    `pragma_unroll_explicit` / `pragma_unroll_factor` annotations, when both are literal.

    ## Why is this bad?
    Explicit unrolling expands every iteration while `unroll_factor` asks the CUDA compiler
    for `#pragma unroll N`; TileLang refuses the combination when it builds the loop:
    `ValueError: T.unroll's explicit and unroll_factor params are mutually exclusive.`
    (verified with TileLang 0.1.15; [`tilelang/language/loop.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/language/loop.py)).

    ## Example
    ```python
    for k in T.unroll(8, explicit=True, unroll_factor=4):
        B[k] = A[k]
    ```

    ## Use instead
    ```python
    for k in T.unroll(8, unroll_factor=4):   # or T.unroll(8, explicit=True)
        B[k] = A[k]
    ```

    ## Backends
    All, and with no backend selected: the kernel fails to build before any target is chosen.
    """

    CODE = "TL207"
    NAME = "unroll-explicit-with-factor"
    GRADE = Grade.SEMANTIC
    HELP = "Choose one: `explicit=True` (full build-time unrolling) or `unroll_factor=N` (a partial unroll pragma)."
    CHECKLIST = Checklist(
        grade="Semantic: the kernel cannot be built on any target.",
        shape="A T.unroll call whose explicit flag is true and whose unroll factor is set.",
        smallest_invalid="`for k in T.unroll(8, explicit=True, unroll_factor=4): ...`",
        closest_valid="`for k in T.unroll(8, unroll_factor=4): ...`",
        siblings="Per loop header.",
        neutral_wrappers="No: the call itself fails.",
        generated_ir="None: the call fails before any IR exists.",
        proof="Proven when both values are literal or constant; unknown values are not reported.",
        first_pass="tilelang.language.unroll.",
        rewrite="Keep only one of the two options.",
    )
    VALID = [
        Valid(KERNEL + "        for k in T.unroll(8, unroll_factor=4):\n            B[k, 0] = 0\n"),
        Valid(
            KERNEL
            + "        for k in T.unroll(8, explicit=False, unroll_factor=4):\n            B[k, 0] = 0\n"
        ),
        Valid(
            KERNEL
            + "        for k in T.unroll(8, explicit=True, unroll_factor=None):\n            B[k, 0] = 0\n"
        ),
    ]
    INVALID = [
        Invalid(
            KERNEL
            + "        for k in T.unroll(8, explicit=True, unroll_factor=4):\n            B[k, 0] = 0\n",
            at=((7, 18),),
            message="mutually exclusive",
        ),
        Invalid(
            KERNEL + '        for k in T.unroll(8, explicit=True, annotations={"pragma_unroll_factor": 2}):\n'
            "            B[k, 0] = 0\n",
            at=((7, 18),),
        ),
        Invalid(
            "import tilelang.language as T\n\n\ndef make(flag):\n    @T.prim_func\n"
            '    def main(B: T.Tensor((64, 64), "float32")):\n'
            "        with T.Kernel(1, threads=128) as bx:\n            if not flag:\n"
            "                for k in T.unroll(8, explicit=True, unroll_factor=4):\n"
            "                    B[k, 0] = 0\n    return main\n",
            at=((9, 26),),
            message="(when `not flag` is true)",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, _ in kernel_items(ctx.model.kernels):
            if not isinstance(item, Loop) or item.kind is not LoopKind.UNROLLED or not present(item):
                continue
            if item.dim != 0 or item.api not in ("T.unroll", "T.Unroll"):
                continue
            arguments = item.arguments
            annotations = _dict(arguments.get("annotations"))
            if annotations is None:
                continue
            # tilelang.language.unroll: an explicit flag, else the annotation's; the CUDA dialect
            # puts unroll_factor into the annotations with setdefault.
            explicit = _known(arguments.get("explicit"))
            if explicit is not _UNKNOWN and not explicit:
                explicit = _known(annotations.get("pragma_unroll_explicit"))
            factor = _known(annotations.get("pragma_unroll_factor"))
            if factor is None:
                factor = _known(arguments.get("unroll_factor"))
            if explicit is _UNKNOWN or not explicit or factor is None or factor is _UNKNOWN:
                continue
            ctx.report(
                item.site,
                f"`{item.api}` with `explicit=True` and an unroll factor ({factor}): TileLang fails to build "
                f"the loop (ValueError: T.unroll's explicit and unroll_factor params are mutually exclusive.)"
                f"{ctx.macro_note(item.site)}{ctx.condition_note(item.guards)}",
            )


_UNKNOWN = object()


def _known(value: Value | None) -> object:
    """The Python value of a literal argument; None when absent; _UNKNOWN when not literal."""
    if value is None:
        return None
    if isinstance(value, PyConst):
        return value.value
    return _UNKNOWN


def _dict(value: Value | None) -> dict[object, Value] | None:
    """A literal annotations dict ({} when absent), or None when it cannot be read."""
    if value is None:
        return {}
    if isinstance(value, PyConst) and isinstance(value.value, dict):
        found: dict[object, Value] = value.value  # a dict literal's values are evaluated (`_value_Dict`)
        return found
    if isinstance(value, PyConst) and value.value is None:
        return {}
    return None
