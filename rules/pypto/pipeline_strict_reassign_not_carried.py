"""Rule TL423: pypto-pipeline-strict-reassign-not-carried (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade, Severity
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import CONTRACT, PyptoRule, checklist

_STRICT_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function(strict_ssa=True)\n"
    "def kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


def _strict(body: str) -> str:
    """A rule example: `body` inside a `@pl.function(strict_ssa=True)` kernel."""
    return _STRICT_HEADER + body


class PyptoPipelineStrictReassignNotCarried(PyptoRule):
    """In a `strict_ssa` function, a pipelined loop body reassigns a name from before the loop.

    ## What it does
    Reports an assignment, in the body of a `pl.pipeline(..., stage=F)` loop (F > 1) of a
    `@pl.function(strict_ssa=True)` function, to a name the body reads before assigning it
    (`x = pl.add(x, 1.0)`) that is neither the loop variable nor an iter_arg of this or an
    enclosing loop. `tilecheck lower` leaves such a loop as it is (TL491).

    ## Why is this bad?
    Under `strict_ssa`, PyPTO's parser rejects a second definition of a name only within one
    scope (`ScopeManager.define_var`); a loop body is a scope of its own, so its first `x = ...`
    defines a new variable local to the body instead of updating the `x` from before the loop.
    The loop therefore carries nothing: every iteration, and every stage LowerPipelineLoops
    copies, reads the `x` from before the loop, unlike the same loop in a function without
    `strict_ssa` (where TL422 applies). Read from PyPTO's parser source, not run on the pass.

    ## Example
    ```python
    @pl.function(strict_ssa=True)
    def kernel(x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        for i in pl.pipeline(8, stage=2):
            x = pl.add(x, 1.0)
        return x
    ```

    ## Use instead
    ```python
    @pl.function(strict_ssa=True)
    def kernel(x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        for i, (acc,) in pl.pipeline(8, stage=2, init_values=(x,)):
            y = pl.add(acc, 1.0)
            out = pl.yield_(y)
        return out
    ```

    ## Backends
    All PyPTO backends: the meaning comes from PyPTO's parser, before any target is chosen.
    """

    CODE = "TL423"
    REPORTS = PyptoProblem.PIPELINE_STRICT_REASSIGN_NOT_CARRIED
    NAME = "pypto-pipeline-strict-reassign-not-carried"
    GRADE = Grade.CONTRACT
    SEVERITY = Severity.WARNING
    MESSAGE = (
        "under strict_ssa this assignment defines a new `{name}` local to the loop body: the loop does "
        "not carry `{name}`, so each of the {stages} stages would read the `{name}` from before the loop; "
        "carry it through this loop's init_values and pl.yield_"
    )
    HELP = (
        "Carry it explicitly: `for i, (acc,) in pl.pipeline(..., init_values=({name},))`, compute "
        "`y = ...` from `acc` (not `{name}`), and end the body with `{name}_out = pl.yield_(y)`."
    )
    CHECKLIST = checklist(
        grade=CONTRACT,
        shape="An assignment, in the body of a `pl.pipeline(..., stage>1)` For of a `strict_ssa` function, to a Name the body reads before assigning it, that is neither the loop variable, an iter_arg of the loop, nor an iter_arg of an enclosing loop (TL420's case).",
        smallest_invalid="@pl.function(strict_ssa=True) ... for i in pl.pipeline(8, stage=2): x = pl.add(x, 1.0)",
        closest_valid="for i, (acc,) in pl.pipeline(8, stage=2, init_values=(x,)): y = pl.add(acc, 1.0); out = pl.yield_(y)",
        first_pass="PyPTO's parser (it binds a new, loop-local variable; nothing reports it)",
        rewrite="Carry the value through `init_values` with a fresh name and `r = pl.yield_(y)`.",
        proof="Proven from the source: the name is read before it is assigned in the body of a strict_ssa function.",
    )
    VALID = [
        Valid(_strict("    for i, (x,) in pl.pipeline(0, 8, 1, stage=2, init_values=(s0,)):\n        y = pl.add(x, 1.0)\n        r = pl.yield_(y)\n")),
        Valid(_strict("    for i in pl.pipeline(0, 8, 1, stage=2):\n        t = pl.load(a, [i], [16])\n        u = pl.add(t, 1.0)\n")),
        Valid(_strict("    x = s0\n    for i in pl.pipeline(0, 8, 1, stage=1):\n        x = pl.add(x, 1.0)\n")),
    ]  # fmt: skip
    INVALID = [
        Invalid(
            _strict("    x = s0\n    for i in pl.pipeline(0, 8, 1, stage=2):\n        x = pl.add(x, 1.0)\n"),
            at=((8, 9),),
            message="defines a new `x` local to the loop body",
        ),
    ]  # fmt: skip

    @classmethod
    def help_for(cls, values: dict[str, object]) -> str | None:
        return cls.HELP.format(**values)
