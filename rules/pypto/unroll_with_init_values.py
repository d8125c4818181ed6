"""Rule TL407: pypto-unroll-with-init-values (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoUnrollWithInitValues(PyptoRule):
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
    REPORTS = PyptoProblem.UNROLL_WITH_INIT_VALUES
    NAME = "pypto-unroll-with-init-values"
    GRADE = Grade.SEMANTIC
    MESSAGE = "pl.unroll() cannot be combined with init_values"
    HELP = "Use `pl.range` or `pl.pipeline` for loop-carried values."
    CHECKLIST = checklist(
        shape="`init_values=` on a `pl.unroll(...)` loop call.",
        smallest_invalid="for i, (x,) in pl.unroll(4, init_values=(s0,)): y = pl.yield_(x)",
        closest_valid="for i, (x,) in pl.range(4, init_values=(s0,)): y = pl.yield_(x)",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Replace `pl.unroll(N, init_values=...)` by `pl.range(N, init_values=...)`, or by `pl.pipeline(N, stage=F, init_values=...)` to replicate the body F times.",
    )
    VALID = [Valid(example("    for i, (x,) in pl.range(4, init_values=(s0,)):\n        y = pl.yield_(x)\n"))]
    INVALID = [
        Invalid(
            example("    for i, (x,) in pl.unroll(4, init_values=(s0,)):\n        y = pl.yield_(x)\n"),
            at=((6, 33),),
        )
    ]
