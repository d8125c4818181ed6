from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade

from .._examples import KERNEL

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class ParallelTargetMismatch(Rule):
    """A `for` over `T.Parallel(...)` whose targets do not match its extents.

    ## What it does
    `T.Parallel(a, b)` is a two-dimensional loop nest of extents `a` x `b`, not a range from
    `a` to `b`: it needs one `for` target per extent (`for i, j in T.Parallel(a, b)`).
    Reports:
    - a tuple of targets whose length differs from the number of extents
      (`for i, j in T.Parallel(64)`): Python's unpacking fails when TileLang builds the loop;
    - a single target over several extents (`for i in T.Parallel(2, 8)`) used as one index
      among others (`A[i, 0]`): the target is the list of both loop variables and the
      buffer access fails to build.

    A single target over several extents that is never used, or used as a complete index
    tuple (`A[i]` for a two-dimensional `A`), builds and is not reported.

    ## Why is this bad?
    TileLang fails to build the kernel (verified with TileLang 0.1.15:
    `ValueError: not enough values to unpack (expected 2, got 1)` for two targets over one
    extent; `TypeError: Mismatched type on argument #2 when calling:
    script.ir_builder.tirx.BufferStore(...)` for `A[i, 0]` with one target over two extents).

    ## Example
    ```python
    for i in T.Parallel(2, 8):      # meant: i from 2 to 8
        A[i, 0] = 0
    ```

    ## Use instead
    ```python
    for i in T.serial(2, 8):        # a range
        A[i, 0] = 0
    for i, j in T.Parallel(2, 8):   # or a 2 x 8 parallel nest
        A[i, j] = 0
    ```

    ## Backends
    All, and with no backend selected: the kernel fails to build before any target is chosen.
    """

    CODE = "TL204"
    NAME = "parallel-target-mismatch"
    GRADE = Grade.SEMANTIC
    HELP = (
        "Give one `for` target per `T.Parallel` extent (`for i, j in T.Parallel(a, b)`), or use "
        "`T.serial(a, b)` for a range from a to b."
    )
    CHECKLIST = Checklist(
        grade="Semantic: the kernel cannot be built on any target.",
        shape="A Python `for` over a T.Parallel frame with k extents and a target that does not unpack "
        "into k loop variables, or a single target used as a scalar index.",
        smallest_invalid="`for i, j in T.Parallel(64): ...`",
        closest_valid="`for i, j in T.Parallel(64, 64): ...`",
        siblings="Per loop header.",
        neutral_wrappers="No: the header itself fails.",
        generated_ir="None: the frontend fails before any IR exists.",
        proof="Proven: tuple unpacking of a known number of extents; for a single target, only its use "
        "as one index among others (verified to fail) is reported.",
        first_pass="The eager builder (Python unpacking / BufferStore construction).",
        rewrite="One target per extent, or T.serial(a, b) for a range.",
    )
    VALID = [
        Valid(KERNEL + "        for i, j in T.Parallel(2, 8):\n            B[i, j] = 0\n"),
        Valid(KERNEL + "        for i in T.Parallel(2, 8):\n            B[i] = 0\n"),
        Valid(KERNEL + "        for i in T.Parallel(2, 8):\n            B[0, 0] = 0\n"),
    ]
    INVALID = [
        Invalid(
            KERNEL + "        for i, j in T.Parallel(64):\n            B[i, j] = 0\n",
            at=((7, 21),),
            message="not enough values to unpack (expected 2, got 1)",
        ),
        Invalid(
            KERNEL + "        for i in T.Parallel(2, 8):\n            B[i, 0] = 0\n",
            at=((7, 18),),
            message="`B[i, 0]` (line 8)",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for malformed in ctx.model.malformed:
            if malformed.kind != "parallel-targets" or not malformed.certain:
                continue
            extents = malformed.extents
            fix = f"write `for {', '.join('ijkl'[:extents]) if extents <= 4 else '...'} in T.Parallel(...)`"
            if malformed.unpacking:
                if malformed.targets > extents:
                    error = f"not enough values to unpack (expected {malformed.targets}, got {extents})"
                else:
                    error = f"too many values to unpack (expected {malformed.targets})"
                ctx.report(
                    malformed.site,
                    f"`T.Parallel` with {extents} extent{'s' if extents > 1 else ''} unpacked into "
                    f"{malformed.targets} targets: TileLang fails to build the loop (ValueError: {error}); "
                    f"{fix}{ctx.macro_note(malformed.site)}",
                )
            elif malformed.scalar_use is not None:
                use = malformed.scalar_use
                use_line = ctx.line_of(use.report_node, use.report_top)
                ctx.report(
                    malformed.site,
                    f"`T.Parallel` with {extents} extents has a single target: it is a {extents}-D loop nest, "
                    f"not a range, and its target is the list of all {extents} loop variables, so "
                    f"`{ctx.text(use.node)}` (line {use_line}) fails to build (TypeError: mismatched type "
                    f"calling BufferStore); {fix}, or `T.serial(a, b)` for a range"
                    f"{ctx.macro_note(malformed.site)}",
                )
