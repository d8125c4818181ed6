"""Rule TL406: pypto-loop-missing-stop (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoLoopMissingStop(PyptoRule):
    """A loop iterator is called without its `stop` argument.

    ## What it does
    Reports a loop iterator called without its `stop` argument.

    ## Why is this bad?
    `stop` is the one required bound. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(stage=2):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, stage=2):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from _parse_range_call (the DSL parser), before any target is chosen.
    """

    CODE = "TL406"
    REPORTS = PyptoProblem.LOOP_MISSING_STOP
    NAME = "pypto-loop-missing-stop"
    GRADE = Grade.SEMANTIC
    MESSAGE = "pl.{kind}() requires at least 1 argument (stop)"
    HELP = "Pass at least the stop value: `pl.range(10)` or `pl.range(0, 10)`."
    CHECKLIST = checklist(
        shape="A `pl.<iterator>(...)` loop call without positional arguments.",
        smallest_invalid="for i in pl.pipeline(stage=2): ...",
        closest_valid="for i in pl.pipeline(8, stage=2): ...",
        first_pass="_parse_range_call (the DSL parser)",
        rewrite="Pass the stop value, or start and stop: `pl.range(10)`, `pl.range(0, 10)`.",
    )
    VALID = [Valid(example("    for i in pl.pipeline(8, stage=2):\n        t = i\n"))]
    INVALID = [Invalid(example("    for i in pl.pipeline(stage=2):\n        t = i\n"), at=((6, 14),))]

    @classmethod
    def help_for(cls, values: dict[str, object]) -> str:
        kind = values["kind"]
        return f"Provide at least the stop value: pl.{kind}(10) or pl.{kind}(0, 10)"
