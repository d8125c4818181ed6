from tilecheck.core.meta import Problem
from tilecheck.core.rule import Invalid, Rule, Valid
from tilecheck.core.types import Grade, Severity

from .._examples import KERNEL

_LOCAL = KERNEL + '        loc = T.alloc_local((64,), "float32")\n'


class UnmatchedSuppression(Rule):
    """A `tilecheck: disable` without its `enable`, or an `enable` without its `disable`.

    ## What it does
    Pairs `# tilecheck: disable[CODE]` and `# tilecheck: enable[CODE]` per code, in file
    order. An `enable` with no open `disable` before it is reported (its fix removes it). A
    `disable` that is never closed still applies to the end of the file, and is reported;
    its fix, which removes it, is unsafe because findings may reappear.

    ## Why is this bad?
    An unclosed range silently suppresses every later finding of the rule in the file; a
    stray `enable` suggests a range that does not exist.

    ## Example
    ```python
    # tilecheck: disable[TL104]
    for i in T.Parallel(64):
        loc[i] = A[i, 0]
    ```

    ## Use instead
    ```python
    # tilecheck: disable[TL104]
    for i in T.Parallel(64):
        loc[i] = A[i, 0]
    # tilecheck: enable[TL104]
    ```

    ## Backends
    All. Reported by the engine.
    """

    CODE = "TL903"
    NAME = "unmatched-suppression"
    GRADE = Grade.META
    REPORTS = Problem.UNMATCHED_SUPPRESSION
    SEVERITY = Severity.WARNING
    MODEL = "none"
    HELP = "Close each `tilecheck: disable[...]` with a `tilecheck: enable[...]` of the same codes."
    VALID = [
        Valid(
            _LOCAL + "        # tilecheck: disable[TL104]\n        for i in T.Parallel(64):\n"
            "            loc[i] = A[i, 0]\n        # tilecheck: enable[TL104]\n"
        ),
    ]
    INVALID = [
        Invalid(
            _LOCAL + "        # tilecheck: disable[TL104]\n        for i in T.Parallel(64):\n"
            "            loc[i] = A[i, 0]\n",
            at=((8, 9),),
            fixed=_LOCAL + "        for i in T.Parallel(64):\n            loc[i] = A[i, 0]\n",
            message="has no matching `enable`",
        ),
        Invalid(
            KERNEL + "        B[0, 0] = A[0, 0]\n        # tilecheck: enable[TL104]\n",
            at=((8, 9),),
            fixed=KERNEL + "        B[0, 0] = A[0, 0]\n",
            message="has no matching `disable`",
        ),
    ]
