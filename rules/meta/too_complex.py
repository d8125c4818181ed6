from tilecheck.core.meta import Problem
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class TooComplex(Rule):
    """The file is too complex to analyze: too deeply nested, too large to parse, or beyond its budget.

    ## What it does
    Reports a file that cannot be analyzed within tilecheck's limits: nesting beyond what the parser or the analyzer can handle (thousands of nested brackets or operators), a file libcst's parser aborts on (it does when an allocation fails, as on a file of several megabytes), or a check that took longer than `per-file-timeout` or needed more memory than `per-file-memory`. The message says which.

    ## Why is this bad?
    Such files are almost always generated; analyzing them would exhaust the stack or the budget. No rule is run on the file, so nothing in it is checked.

    ## Example
    ```
    x = ((((((...))))))  # thousands of levels
    ```

    ## Use instead
    ```
    Split the expression into named parts.
    ```

    ## Backends
    All. Reported by the engine itself, not by a check over the kernel model.
    """

    CODE = "TL004"
    NAME = "too-complex"
    GRADE = Grade.META
    REPORTS = Problem.TOO_COMPLEX
    MODEL = "none"
    HELP = "Simplify or split the deeply nested expression."
