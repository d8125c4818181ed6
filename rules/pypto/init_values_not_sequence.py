"""Rule TL413: pypto-init-values-not-sequence (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoInitValuesNotSequence(PyptoRule):
    """A loop's `init_values=` is not a list or tuple display.

    ## What it does
    Reports `init_values=` that is not a tuple or list display.

    ## Why is this bad?
    The parser reads the init values element by element. The message is PyPTO's own.

    ## Example
    ```python
    for i, (x,) in pl.pipeline(4, stage=2, init_values=s0):
        r = pl.yield_(x)
    ```

    ## Use instead
    ```python
    for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)):
        r = pl.yield_(x)
    ```

    ## Backends
    All PyPTO backends: the error comes from _parse_range_keyword (the DSL parser), before any target is chosen.
    """

    CODE = "TL413"
    REPORTS = PyptoProblem.INIT_VALUES_NOT_SEQUENCE
    NAME = "pypto-init-values-not-sequence"
    GRADE = Grade.SEMANTIC
    MESSAGE = "init_values must be a list or tuple"
    HELP = "Write `init_values=(s0,)`."
    CHECKLIST = checklist(
        shape="`init_values=` whose value is not a tuple or list display.",
        smallest_invalid="for i, (x,) in pl.pipeline(4, stage=2, init_values=s0): r = pl.yield_(x)",
        closest_valid="for i, (x,) in pl.pipeline(4, stage=2, init_values=(s0,)): r = pl.yield_(x)",
        first_pass="_parse_range_keyword (the DSL parser)",
        rewrite="Wrap the values in a tuple: `init_values=(s0,)`.",
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
                "    for i, (x,) in pl.pipeline(4, stage=2, init_values=s0):\n        r = pl.yield_(x)\n"
            ),
            at=((6, 56),),
        )
    ]
