"""Rule TL417: pypto-yield-count-mismatch (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoYieldCountMismatch(Rule):
    """A pipelined loop body yields a different number of values than it has iter_args.

    ## What it does
    Reports a pipelined loop body that yields a different number of values than it has iter_args (including none at all).

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
    NAME = "pypto-yield-count-mismatch"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Yield exactly one value per iter_arg, as the last statement."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports a pipelined loop body that yields a different number of values than it has iter_args (including none at all).",
        smallest_invalid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):",
        closest_valid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="LowerPipelineLoops (SplitBodyYield)",
        rewrite="Yield exactly one value per iter_arg, as the last statement.",
    )
    VALID = [
        Valid(
            _HEADER
            + "    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        r = pl.yield_(x)\n"
        )
    ]
    INVALID = [
        Invalid(
            _HEADER
            + "    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        r = pl.yield_(x, i)\n",
            at=((7, 9),),
        )
    ]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
