from tilecheck.core.meta import Problem
from tilecheck.core.rule import Invalid, Rule, Valid
from tilecheck.core.types import Grade, Severity

from .._examples import KERNEL

_LOCAL = KERNEL + '        loc = T.alloc_local((64,), "float32")\n        for i in T.Parallel(64):\n'


class UnusedSuppression(Rule):
    """A suppression comment that suppresses nothing.

    ## What it does
    Reports a `# tilecheck: ignore[...]`, `# noqa: TL...`, `# tilecheck: disable[...]` or
    `# tilecheck: file-ignore[...]` naming a rule that ran on the file but reported nothing
    where the comment applies. Codes of rules that did not run (deselected, or filtered by
    `--grade`) are never reported as unused. The fix removes the unused codes, or the whole
    comment when none is left.

    ## Why is this bad?
    A stale suppression hides the next real finding of that rule at that place, and tells
    readers a problem exists where there is none.

    ## Example
    ```python
    for i in T.Parallel(64):  # tilecheck: ignore[TL101]
        B[i, 0] = A[i, 0]
    ```

    ## Use instead
    ```python
    for i in T.Parallel(64):
        B[i, 0] = A[i, 0]
    ```

    ## Backends
    All. Reported by the engine after the other rules ran.
    """

    CODE = "TL901"
    NAME = "unused-suppression"
    GRADE = Grade.META
    REPORTS = Problem.UNUSED_SUPPRESSION
    SEVERITY = Severity.WARNING
    MODEL = "none"
    HELP = "Remove the unused suppression (`tilecheck --fix` does it)."
    VALID = [
        Valid(_LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL104]\n"),
        Valid(
            _LOCAL + "            # tilecheck: ignore[parallel-indexed-local]\n            loc[i] = A[i, 0]\n"
        ),
        Valid(_LOCAL + "            loc[i] = A[i, 0]  # noqa: E501, TL104\n"),
        Valid("x = 1  # noqa: E501\n"),
    ]
    INVALID = [
        Invalid(
            KERNEL
            + "        for i in T.Parallel(64):  # tilecheck: ignore[TL101]\n            B[i, 0] = A[i, 0]\n",
            at=((7, 35),),
            fixed=KERNEL + "        for i in T.Parallel(64):\n            B[i, 0] = A[i, 0]\n",
            message="Unused suppression: no `TL101` diagnostic",
        ),
        Invalid(
            _LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL104, TL101]\n",
            at=((9, 31),),
            fixed=_LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL104]\n",
        ),
        Invalid(
            KERNEL + "        # tilecheck: ignore[TL104]\n        B[0, 0] = A[0, 0]\n",
            at=((7, 9),),
            fixed=KERNEL + "        B[0, 0] = A[0, 0]\n",
        ),
        Invalid(
            KERNEL + "        B[0, 0] = A[0, 0]  # noqa: E501, TL104  # why\n",
            at=((7, 28),),
            fixed=KERNEL + "        B[0, 0] = A[0, 0]  # noqa: E501  # why\n",
        ),
    ]
