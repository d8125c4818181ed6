"""Rule TL405: pypto-loop-unknown-keyword (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoLoopUnknownKeyword(PyptoRule):
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
    REPORTS = PyptoProblem.LOOP_UNKNOWN_KEYWORD
    NAME = "pypto-loop-unknown-keyword"
    GRADE = Grade.SEMANTIC
    MESSAGE = "Unknown keyword argument '{keyword}' in pl.{kind}()"
    HELP = "Use only the keywords the loop iterator accepts: `init_values`, `attrs` and, on `pl.pipeline`, `stage`."
    CHECKLIST = checklist(
        shape="A keyword argument of a `pl.<iterator>(...)` loop call that the iterator does not accept.",
        smallest_invalid="for i in pl.range(8, unroll=4): ...",
        closest_valid="for i in pl.range(8): ...",
        first_pass="_parse_range_keyword (the DSL parser)",
        rewrite="Drop the keyword, or use the iterator that accepts it (`pl.pipeline(..., stage=F)` to pipeline, `pl.unroll(...)` to unroll fully).",
    )
    VALID = [Valid(example("    for i in pl.range(8):\n        t = i\n"))]
    INVALID = [Invalid(example("    for i in pl.range(8, unroll=4):\n        t = i\n"), at=((6, 26),))]

    @classmethod
    def help_for(cls, values: dict[str, object]) -> str:
        return f"Supported keywords for pl.{values['kind']}(): {values['supported']}"
