"""Rule TL412: pypto-iter-args-mismatch (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoIterArgsMismatch(PyptoRule):
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
    REPORTS = PyptoProblem.ITER_ARGS_MISMATCH
    NAME = "pypto-iter-args-mismatch"
    GRADE = Grade.SEMANTIC
    MESSAGE = "Mismatch: {iter_args} iter_args but {init_values} init_values"
    HELP = "Give one init value per iter_arg."
    CHECKLIST = checklist(
        shape="A loop target `i, (a, b, ...)` whose tuple of iter_args differs in length from `init_values=`.",
        smallest_invalid="for i, (x, y) in pl.pipeline(4, stage=2, init_values=(s0,)): r = pl.yield_(x)",
        closest_valid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)): r = pl.yield_(x)",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Give one init value per iter_arg, or drop the extra iter_args.",
    )
    VALID = [
        Valid(
            example(
                "    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        r = pl.yield_(x)\n"
            )
        )
    ]
    INVALID = [
        Invalid(
            example(
                "    for i, (x, y) in pl.pipeline(4, stage=2, init_values=(s0,)):\n        r = pl.yield_(x)\n"
            ),
            at=((6, 9),),
        )
    ]
