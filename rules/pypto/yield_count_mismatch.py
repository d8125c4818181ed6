"""Rule TL417: pypto-yield-count-mismatch (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoYieldCountMismatch(PyptoRule):
    """A pipelined loop body yields a different number of values than it has iter_args.

    ## What it does
    Reports a pipelined loop body that yields a different number of values than it has iter_args (including none at all). One exception: in a function that allows reassignment (the default, not `@pl.function(strict_ssa=True)`), a body without `pl.yield_` that reassigns its iter_args (`acc = pl.add(acc, 1.0)`) is lowered, because PyPTO's SSA conversion makes their last values the yield.

    ## Why is this bad?
    Each clone feeds its yields to the next clone's iter_args; the pass stops with an internal error when they do not match. The message is PyPTO's own.

    ## Example
    ```python
    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):
        r = pl.yield_(x, i)
    ```

    ## Use instead
    ```python
    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):
        r = pl.yield_(x)
    ```

    ## Backends
    All PyPTO backends: the error comes from LowerPipelineLoops (SplitBodyYield), before any target is chosen.
    """

    CODE = "TL417"
    REPORTS = PyptoProblem.YIELD_COUNT_MISMATCH
    NAME = "pypto-yield-count-mismatch"
    GRADE = Grade.SEMANTIC
    MESSAGE = "Internal error: loop body must yield {expected} values for iter_args, got {got}"
    HELP = "Yield exactly one value per iter_arg, as the last statement."
    CHECKLIST = checklist(
        shape="A `pl.pipeline(..., stage>1, init_values=...)` loop whose trailing `pl.yield_(...)` has a different number of values than iter_args (or no trailing yield).",
        smallest_invalid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)): r = pl.yield_(x, i)",
        closest_valid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)): r = pl.yield_(x)",
        first_pass="LowerPipelineLoops (SplitBodyYield)",
        rewrite="Yield exactly one value per iter_arg, as the last statement of the body.",
    )
    VALID = [
        Valid(
            example(
                "    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        r = pl.yield_(x)\n"
            )
        ),
        Valid(
            example(
                "    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        x = pl.add(x, 1.0)\n"
            )
        ),
    ]
    INVALID = [
        Invalid(
            example(
                "    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        r = pl.yield_(x, i)\n"
            ),
            at=((7, 9),),
        )
    ]
