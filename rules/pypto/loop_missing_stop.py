"""Rule TL406: pypto-loop-missing-stop (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoLoopMissingStop(Rule):
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
    NAME = "pypto-loop-missing-stop"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Pass at least `stop`."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports a loop iterator called without its `stop` argument.",
        smallest_invalid="for i in pl.pipeline(stage=2):",
        closest_valid="for i in pl.pipeline(8, stage=2):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="_parse_range_call (the DSL parser)",
        rewrite="Pass at least `stop`.",
    )
    VALID = [Valid(_HEADER + "    for i in pl.pipeline(8, stage=2):\n        t = i\n")]
    INVALID = [Invalid(_HEADER + "    for i in pl.pipeline(stage=2):\n        t = i\n", at=((6, 14),))]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
