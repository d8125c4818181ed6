from tilecheck.core.meta import Problem
from tilecheck.core.rule import Invalid, Rule, Valid
from tilecheck.core.types import Grade, Severity

from .._examples import KERNEL

_LOCAL = KERNEL + '        loc = T.alloc_local((64,), "float32")\n        for i in T.Parallel(64):\n'


class UnknownSuppressionCode(Rule):
    """A suppression comment names a rule that does not exist.

    ## What it does
    Reports codes and names in `# tilecheck: ...[...]` comments that are neither a rule
    code nor a rule name (built-in or from a loaded plugin), and `TL` codes in `# noqa`
    comments that are not tilecheck rules. Other tools' noqa codes (`E501`) are left alone.
    A misspelt rule name gets a suggestion (`did you mean `parallel-indexed-local`?`) and
    the correction as its fix; otherwise the fix removes the unknown codes, or the whole
    comment when none is left. Both fixes are unsafe (`--unsafe-fixes`): the correction starts
    suppressing a finding, and the removal throws away what the comment meant to suppress.

    ## Why is this bad?
    A misspelt code suppresses nothing, so the finding it was meant to silence still shows,
    or, worse, the comment looks like it documents an accepted exception that does not exist.

    ## Example
    ```python
    loc[i] = A[i, 0]  # tilecheck: ignore[TL014]
    ```

    ## Use instead
    ```python
    loc[i] = A[i, 0]  # tilecheck: ignore[TL104]
    ```

    ## Backends
    All. Reported by the engine.
    """

    CODE = "TL902"
    NAME = "unknown-suppression-code"
    GRADE = Grade.META
    REPORTS = Problem.UNKNOWN_SUPPRESSION_CODE
    SEVERITY = Severity.WARNING
    MODEL = "none"
    HELP = "Use a rule code or name listed by `tilecheck rules`."
    VALID = [
        Valid(_LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore[parallel-indexed-local]\n"),
        Valid("x = 1  # noqa: E501, F401\n"),
    ]
    INVALID = [
        Invalid(
            _LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL104, TL014]\n",
            at=((9, 31),),
            fixed=_LOCAL + "            loc[i] = A[i, 0]  # tilecheck: ignore[TL104]\n",
            message="Unknown rule code `TL014` in suppression",
        ),
        Invalid(
            "x = 1  # noqa: E501, TL999\n",
            at=((1, 8),),
            fixed="x = 1  # noqa: E501\n",
        ),
        Invalid(
            "x = 1  # tilecheck: file-ignore[nested-paralel]\n",
            at=((1, 8),),
            message="(did you mean `nested-parallel`?)",
            fixed="x = 1  # tilecheck: file-ignore[nested-parallel]\n",
        ),
    ]
