"""Rule TL404: pypto-stage-on-non-pipeline (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoStageOnNonPipeline(PyptoRule):
    """`stage=` is given to `pl.range`, `pl.parallel` or `pl.unroll` instead of `pl.pipeline`.

    ## What it does
    Reports `stage=` on `pl.range`, `pl.parallel` or `pl.unroll`. Not on `pl.while_`: PyPTO's
    parser reads only `init_values` from a `pl.while_(...)` call and ignores every other keyword
    (`_parse_while_init_values`), so `stage=` there is accepted and has no effect.

    ## Why is this bad?
    Only `pl.pipeline` loops are software-pipelined; the parser rejects the keyword elsewhere. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.range(8, stage=2):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, stage=2):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL404"
    REPORTS = PyptoProblem.STAGE_ON_NON_PIPELINE
    NAME = "pypto-stage-on-non-pipeline"
    GRADE = Grade.SEMANTIC
    MESSAGE = "stage= is only supported on pl.pipeline(), not pl.{kind}()"
    HELP = "Use pl.pipeline() for software pipelining."
    CHECKLIST = checklist(
        shape="`stage=` on `pl.range(...)`, `pl.parallel(...)` or `pl.unroll(...)` (the parser ignores it on `pl.while_(...)`).",
        smallest_invalid="for i in pl.range(8, stage=2): ...",
        closest_valid="for i in pl.pipeline(8, stage=2): ...",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Use `pl.pipeline(..., stage=F)`, or drop `stage=`.",
    )
    VALID = [
        Valid(example("    for i in pl.pipeline(8, stage=2):\n        t = i\n")),
        Valid(example("    for (x,) in pl.while_(init_values=(s0,), stage=2):\n        pl.cond(x < n)\n        r = pl.yield_(x)\n")),
    ]  # fmt: skip
    INVALID = [Invalid(example("    for i in pl.range(8, stage=2):\n        t = i\n"), at=((6, 26),))]
