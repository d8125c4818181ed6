"""Rule TL401: pypto-pipeline-missing-stage (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoPipelineMissingStage(Rule):
    """A `pl.pipeline()` loop has no `stage=` argument.

    ## What it does
    Reports a `pl.pipeline(...)` loop without the `stage=` keyword.

    ## Why is this bad?
    PyPTO's parser rejects it: the stage factor F is what the pipeline replicates by. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.pipeline(8):
        t = pl.tile.load(a, [i * 16], [16])
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, stage=2):
        t = pl.tile.load(a, [i * 16], [16])
    ```

    ## Backends
    All PyPTO backends: the error comes from parse_for_loop (the DSL parser), before any target is chosen.
    """

    CODE = "TL401"
    NAME = "pypto-pipeline-missing-stage"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Use pl.pipeline(stop, stage=F)."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports a `pl.pipeline(...)` loop without the `stage=` keyword.",
        smallest_invalid="for i in pl.pipeline(8):",
        closest_valid="for i in pl.pipeline(8, stage=2):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="parse_for_loop (the DSL parser)",
        rewrite="Add `stage=F` (F >= 1).",
    )
    VALID = [
        Valid(
            _HEADER + "    for i in pl.pipeline(8, stage=2):\n        t = pl.tile.load(a, [i * 16], [16])\n"
        )
    ]
    INVALID = [
        Invalid(
            _HEADER + "    for i in pl.pipeline(8):\n        t = pl.tile.load(a, [i * 16], [16])\n",
            at=((6, 14),),
        )
    ]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
