from tilecheck.core.meta import Problem
from tilecheck.core.rule import Invalid, Rule, Valid
from tilecheck.core.types import Grade, Severity


class InvalidSuppression(Rule):
    """A malformed `# tilecheck:` comment, or one without rule codes.

    ## What it does
    Reports `# tilecheck:` comments that are not `ignore[...]`, `disable[...]`,
    `enable[...]` or `file-ignore[...]` with at least one code. There is no blanket form:
    `# tilecheck: ignore` alone suppresses nothing. The fix removes the comment.

    ## Why is this bad?
    tilecheck ignores a comment it cannot read, so whatever it was meant to suppress is
    still reported, and blanket suppressions would hide findings nobody has looked at.

    ## Example
    ```python
    loc[i] = A[i, 0]  # tilecheck: ignore
    ```

    ## Use instead
    ```python
    loc[i] = A[i, 0]  # tilecheck: ignore[TL104]
    ```

    ## Backends
    All. Reported by the engine.
    """

    CODE = "TL904"
    NAME = "invalid-suppression"
    GRADE = Grade.META
    REPORTS = Problem.INVALID_SUPPRESSION
    SEVERITY = Severity.WARNING
    MODEL = "none"
    HELP = (
        "Write `# tilecheck: ignore[CODE]` (or `disable`, `enable`, `file-ignore`) with rule codes or names."
    )
    VALID = [Valid("x = 1  # see the tilecheck docs: it is fine\n")]
    INVALID = [
        Invalid("x = 1  # tilecheck: ignore\n", at=((1, 8),), fixed="x = 1\n", message="needs rule codes"),
        Invalid("x = 1  # tilecheck: ignore[]  # keep\n", at=((1, 8),), fixed="x = 1  # keep\n"),
        Invalid(
            "# tilecheck: ignor[TL101]\nx = 1\n",
            at=((1, 1),),
            fixed="x = 1\n",
            message="expected one of ignore, disable, enable, file-ignore",
        ),
    ]
