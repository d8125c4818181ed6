"""Rule TL410: pypto-loop-target-not-tuple (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoLoopTargetNotTuple(Rule):
    """A loop with `init_values` has a target that is not an `i, (iter_args...)` tuple.

    ## What it does
    Reports a loop with `init_values` whose target is not `i, (iter_args...)`.

    ## Why is this bad?
    The iter_args need names. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(4, stage=2, init_values=(s0,)):
        x = pl.yield_(i)
    ```

    ## Use instead
    ```python
    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):
        y = pl.yield_(x)
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL410"
    NAME = "pypto-loop-target-not-tuple"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Write `for i, (acc,) in ...`."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports a loop with `init_values` whose target is not `i, (iter_args...)`.",
        smallest_invalid="for i in pl.pipeline(4, stage=2, init_values=(s0,)):",
        closest_valid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Write `for i, (acc,) in ...`.",
    )
    VALID = [
        Valid(
            _HEADER
            + "    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        y = pl.yield_(x)\n"
        )
    ]
    INVALID = [
        Invalid(
            _HEADER + "    for i in pl.pipeline(4, stage=2, init_values=(s0,)):\n        x = pl.yield_(i)\n",
            at=((6, 9),),
        )
    ]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
