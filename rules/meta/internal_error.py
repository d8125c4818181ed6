from tilecheck.core.meta import Problem
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class InternalError(Rule):
    """A rule crashed on this file.

    ## What it does
    Reports that a rule raised an exception on this file; the other rules and files are still checked, and tilecheck exits with code 2.

    ## Why is this bad?
    It is a bug in tilecheck or in a plugin rule, not in your kernel.

    ## Example
    ```
    (any file that triggers the bug)
    ```

    ## Use instead
    ```
    (not applicable)
    ```

    ## Backends
    All. Reported by the engine itself, not by a check over the kernel model.
    """

    CODE = "TL005"
    NAME = "internal-error"
    GRADE = Grade.META
    REPORTS = Problem.INTERNAL_ERROR
    MODEL = "none"
    HELP = "Report the bug with the file that triggers it."
