"""Rule TL407: pypto-unroll-with-init-values (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoUnrollWithInitValues(Rule):
    """A `pl.unroll()` loop is combined with loop-carried `init_values`.

    ## What it does
    Reports `pl.unroll` with loop-carried `init_values`.

    ## Why is this bad?
    `pl.unroll` is fully expanded before SSA conversion and cannot carry values. The message is PyPTO's own.

    ## Example
    ```python
    for i, (x,) in pl.unroll(4, init_values=(s0,)):
        y = pl.yield_(x)
    ```

    ## Use instead
    ```python
    for i, (x,) in pl.range(4, init_values=(s0,)):
        y = pl.yield_(x)
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL407"
    NAME = "pypto-unroll-with-init-values"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Use `pl.range` or `pl.pipeline` for loop-carried values."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports `pl.unroll` with loop-carried `init_values`.",
        smallest_invalid="for i, (x,) in pl.unroll(4, init_values=(s0,)):",
        closest_valid="for i, (x,) in pl.range(4, init_values=(s0,)):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Use `pl.range` or `pl.pipeline` for loop-carried values.",
    )
    VALID = [
        Valid(_HEADER + "    for i, (x,) in pl.range(4, init_values=(s0,)):\n        y = pl.yield_(x)\n")
    ]
    INVALID = [
        Invalid(
            _HEADER + "    for i, (x,) in pl.unroll(4, init_values=(s0,)):\n        y = pl.yield_(x)\n",
            at=((6, 33),),
        )
    ]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
