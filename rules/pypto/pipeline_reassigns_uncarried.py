"""Rule TL422: pypto-pipeline-reassigns-uncarried (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade, Severity
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import CONTRACT, PyptoRule, checklist, example


class PyptoPipelineReassignsUncarried(PyptoRule):
    """A pipelined loop body carries a value by reassigning a name that is not an iter_arg.

    ## What it does
    Reports a name that the body of a `pl.pipeline(..., stage=F)` loop (F > 1) reads before
    assigning it and then reassigns (`x = pl.add(x, 1.0)`), so that its value flows from one
    iteration to the next, when the name is neither the loop variable nor one of the loop's
    iter_args, in a function that allows reassignment (the default).

    ## Why is this bad?
    LowerPipelineLoops copies the reassignment into every stage without carrying the value: on
    PyPTO's real pass the output of a `stage=4` loop prints `x_1 = pl.tensor.adds(x_1, 1.0)`,
    which does not parse back, and the lowered program fails SSA verification. `tilecheck
    lower` still lowers the loop, keeping the name in every clone so that the value flows from
    clone to clone (what the loop means); this warning says that PyPTO's own pass does not.

    ## Example
    ```python
    for i in pl.pipeline(0, 8, 1, stage=4):
        x = pl.add(x, 1.0)
    ```

    ## Use instead
    ```python
    for i, (x,) in pl.pipeline(0, 8, 1, stage=4, init_values=(x,)):
        x = pl.add(x, 1.0)
    ```
    (an iter_arg reassigned without `pl.yield_` is carried by PyPTO's SSA conversion), or the
    strict form with a fresh name and `r = pl.yield_(y)`.

    ## Backends
    All PyPTO backends: the invalid output comes from LowerPipelineLoops, before any target is chosen.
    """

    CODE = "TL422"
    REPORTS = PyptoProblem.PIPELINE_REASSIGNS_UNCARRIED
    NAME = "pypto-pipeline-reassigns-uncarried"
    GRADE = Grade.CONTRACT
    SEVERITY = Severity.WARNING
    MESSAGE = (
        "LowerPipelineLoops would copy this reassignment of `{name}` into each of the {stages} stages "
        "without carrying its value: PyPTO's output fails SSA verification and does not parse back; "
        "carry `{name}` through this loop's init_values"
    )
    HELP = "Make it an iter_arg: `for i, ({name},) in pl.pipeline(..., init_values=({name},))`, keeping `{name} = ...` in the body."
    CHECKLIST = checklist(
        grade=CONTRACT,
        shape="An assignment, in the body of a `pl.pipeline(..., stage>1)` For of a non-strict function, to a Name the body reads before assigning it, that is neither the loop variable, an iter_arg of the loop, nor an iter_arg of an enclosing loop (TL420's case).",
        smallest_invalid="for i in pl.pipeline(0, 8, 1, stage=4): x = pl.add(x, 1.0)",
        closest_valid="for i, (x,) in pl.pipeline(0, 8, 1, stage=4, init_values=(x,)): x = pl.add(x, 1.0)",
        first_pass="LowerPipelineLoops (its output then fails SSAVerify and print -> parse)",
        rewrite="Carry the value through `init_values` (reassigning the iter_arg is enough in a non-strict function).",
        proof="Proven from the source: the name is read before it is assigned in the body, so its value crosses iterations.",
    )
    VALID = [
        Valid(example("    for i, (x,) in pl.pipeline(0, 8, 1, stage=4, init_values=(s0,)):\n        x = pl.add(x, 1.0)\n")),
        Valid(example("    for i in pl.pipeline(0, 8, 1, stage=4):\n        t = pl.load(a, [i], [16])\n        t = pl.add(t, 1.0)\n")),
        Valid(example("    x = s0\n    for i in pl.range(8):\n        x = pl.add(x, 1.0)\n")),
        Valid(example("    x = s0\n    for i in pl.pipeline(0, 8, 1, stage=1):\n        x = pl.add(x, 1.0)\n")),
    ]  # fmt: skip
    INVALID = [
        Invalid(
            example("    x = s0\n    for i in pl.pipeline(0, 8, 1, stage=4):\n        x = pl.add(x, 1.0)\n"),
            at=((8, 9),),
            message="reassignment of `x` into each of the 4 stages",
        ),
        Invalid(
            example("    x = s0\n    for i in pl.pipeline(n, stage=2):\n        y = pl.mul(x, 2.0)\n        x += y\n"),
            at=((9, 9),),
            message="reassignment of `x` into each of the 2 stages",
        ),
    ]  # fmt: skip

    @classmethod
    def help_for(cls, values: dict[str, object]) -> str | None:
        return cls.HELP.format(**values)
