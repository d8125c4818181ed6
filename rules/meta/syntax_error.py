from tilecheck.core.meta import Problem
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class SyntaxErrorRule(Rule):
    """The file is not valid Python.

    ## What it does
    Reports a file that does not parse, at the position of the parse error.

    ## Why is this bad?
    Nothing can be checked in a file that does not parse, and TileLang would fail to import it.

    ## Example
    ```
    for i in T.Parallel(64)
        B[i] = 0
    ```

    ## Use instead
    ```
    for i in T.Parallel(64):
        B[i] = 0
    ```

    ## Backends
    All. Reported by the engine itself, not by a check over the kernel model.
    """

    CODE = "TL001"
    NAME = "syntax-error"
    GRADE = Grade.META
    REPORTS = Problem.SYNTAX_ERROR
    MODEL = "none"
    HELP = "Fix the syntax error."
