"""Rule TL420: pypto-pipeline-reads-enclosing-carried (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import CONTRACT, PyptoRule, checklist, example

_OUTER = "    for k, (acc,) in pl.range(4, init_values=(s0,)):\n"


class PyptoPipelineReadsEnclosingCarried(PyptoRule):
    """A pipelined loop body reads a carried value of an enclosing loop directly.

    ## What it does
    Reports a name read in the body of a `pl.pipeline(..., stage=F)` loop (F > 1) that is an
    iter_arg of an enclosing `pl.range`, `pl.parallel`, `pl.unroll` or `pl.pipeline` loop with
    `init_values`, or of an enclosing `for (acc,) in pl.while_(init_values=(...))` loop, when the
    pipelined loop does not receive it through its own `init_values`.

    ## Why is this bad?
    LowerPipelineLoops copies the body into every stage but does not rebind such a value: the
    lowered program refers to variables that are defined nowhere (PyPTO prints them with a
    `__FREE_VAR` suffix) and fails SSA verification after the pass. Measured on PyPTO's real pass;
    PyPTO itself gives no error before that.

    ## Example
    ```python
    for k, (acc,) in pl.range(4, init_values=(s0,)):
        for i in pl.pipeline(8, stage=2):
            t = pl.add(acc, i)
        r = pl.yield_(acc)
    ```

    ## Use instead
    ```python
    for k, (acc,) in pl.range(4, init_values=(s0,)):
        for i, (inner,) in pl.pipeline(8, stage=2, init_values=(acc,)):
            t = pl.add(inner, i)
            inner_out = pl.yield_(inner)
        r = pl.yield_(acc)
    ```

    ## Backends
    All PyPTO backends: the invalid output comes from LowerPipelineLoops, before any target is chosen.
    """

    CODE = "TL420"
    REPORTS = PyptoProblem.PIPELINE_READS_ENCLOSING_CARRIED
    NAME = "pypto-pipeline-reads-enclosing-carried"
    GRADE = Grade.CONTRACT
    MESSAGE = (
        "LowerPipelineLoops would leave `{name}`, a carried value of the enclosing pl.{kind}() loop, "
        "undefined in the replicated body: pass it through this loop's init_values"
    )
    HELP = (
        "Carry the value into the pipelined loop: `for i, (v,) in pl.pipeline(..., init_values=({name},))`, "
        "read `v` instead of `{name}` in its body, and end the body with `v_out = pl.yield_(v)` "
        "(or reassign `v` there, in a function without `strict_ssa`)."
    )
    CHECKLIST = checklist(
        grade=CONTRACT,
        shape="A Name read (before any assignment) in the body of a `pl.pipeline(..., stage>1)` For that is an iter_arg of an enclosing DSL loop (`pl.range`, `pl.parallel`, `pl.unroll`, `pl.pipeline` or `pl.while_`) and not the pipeline's own loop variable or iter_arg.",
        smallest_invalid="for k, (acc,) in pl.range(4, init_values=(s0,)): for i in pl.pipeline(8, stage=2): t = pl.add(acc, i)",
        closest_valid="for k, (acc,) in pl.range(4, init_values=(s0,)): for i, (v,) in pl.pipeline(8, stage=2, init_values=(acc,)): ...",
        siblings="Only enclosing loops count; a sibling loop's iter_args are out of scope.",
        first_pass="LowerPipelineLoops (its output then fails SSAVerify)",
        rewrite="Add the value to the pipelined loop's `init_values` and read the new iter_arg in the body (yield it back unchanged).",
    )
    VALID = [
        Valid(
            example(
                _OUTER
                + "        for i, (v,) in pl.pipeline(8, stage=2, init_values=(acc,)):\n"
                + "            t = pl.add(v, i)\n            w = pl.yield_(v)\n        r = pl.yield_(acc)\n"
            )
        ),
        Valid(
            example(
                _OUTER
                + "        for i in pl.range(8):\n            t = pl.add(acc, i)\n        r = pl.yield_(acc)\n"
            )
        ),
    ]
    INVALID = [
        Invalid(
            example(
                _OUTER
                + "        for i in pl.pipeline(8, stage=2):\n            t = pl.add(acc, i)\n        r = pl.yield_(acc)\n"
            ),
            at=((8, 24),),
            message="`acc`, a carried value of the enclosing pl.range() loop",
        ),
        Invalid(
            example(
                "    for (acc,) in pl.while_(init_values=(s0,)):\n        pl.cond(n > 0)\n"
                + "        for i in pl.pipeline(8, stage=2):\n            t = pl.add(acc, i)\n"
                + "        r = pl.yield_(acc)\n"
            ),
            at=((9, 24),),
            message="`acc`, a carried value of the enclosing pl.while_() loop",
        ),
    ]

    @classmethod
    def help_for(cls, values: dict[str, object]) -> str | None:
        return cls.HELP.format(**values)
