"""Rule TL412: pypto-iter-args-mismatch (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoIterArgsMismatch(Rule):
    """A loop's iter_args and `init_values` differ in number.

    ## What it does
    Reports a different number of iter_args and `init_values`.

    ## Why is this bad?
    Each iter_arg starts from one init value. The message is PyPTO's own.

    ## Example
    ```python
    for i, (x, y) in pl.pipeline(4, stage=2, init_values=(s0,)):
        r = pl.yield_(x)
    ```

    ## Use instead
    ```python
    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):
        r = pl.yield_(x)
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL412"
    NAME = "pypto-iter-args-mismatch"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Give one init value per iter_arg."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports a different number of iter_args and `init_values`.",
        smallest_invalid="for i, (x, y) in pl.pipeline(4, stage=2, init_values=(s0,)):",
        closest_valid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Give one init value per iter_arg.",
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
            + "    for i, (x, y) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        r = pl.yield_(x)\n",
            at=((6, 9),),
        )
    ]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
