"""Rule TL405: pypto-loop-unknown-keyword (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.context import Context
from tilecheck.pypto import rulebase
from tilecheck.rule import Checklist, Invalid, Rule, Valid
from tilecheck.types import Grade

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)


class PyptoLoopUnknownKeyword(Rule):
    """A loop iterator is called with a keyword argument it does not accept.

    ## What it does
    Reports a keyword argument that PyPTO's loop iterators do not accept.

    ## Why is this bad?
    The parser rejects unknown keywords instead of ignoring them. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.range(8, unroll=4):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.range(8):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from _parse_range_keyword (the DSL parser), before any target is chosen.
    """

    CODE = "TL405"
    NAME = "pypto-loop-unknown-keyword"
    GRADE = Grade.SEMANTIC
    MODEL = "pypto"
    HELP = "Use only the supported keywords (see the help line)."
    CHECKLIST = Checklist(
        grade="Semantic: PyPTO rejects the program for every target.",
        shape="A `for` over `pl.<iterator>(...)` in a `@pl.function`/`@pl.jit` function: Reports a keyword argument that PyPTO's loop iterators do not accept.",
        smallest_invalid="for i in pl.range(8, unroll=4):",
        closest_valid="for i in pl.range(8):",
        siblings="Each loop is checked on its own; nesting does not change the answer.",
        neutral_wrappers="`with pl.at(...)`, `if` and other loops around it do not change the answer.",
        generated_ir="Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean.",
        proof="Proven: values tilecheck cannot resolve statically are never reported.",
        first_pass="_parse_range_keyword (the DSL parser)",
        rewrite="Use only the supported keywords (see the help line).",
    )
    VALID = [Valid(_HEADER + "    for i in pl.range(8):\n        t = i\n")]
    INVALID = [Invalid(_HEADER + "    for i in pl.range(8, unroll=4):\n        t = i\n", at=((6, 26),))]

    def check(self, ctx: Context) -> None:
        rulebase.report(ctx, self.CODE)
