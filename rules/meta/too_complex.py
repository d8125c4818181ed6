from tilecheck.core.meta import Problem
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class TooComplex(Rule):
    """The file is too deeply nested to analyze.

    ## What it does
    Reports a file whose nesting exceeds what the parser or the analyzer can handle (thousands of nested brackets or operators).

    ## Why is this bad?
    Such files are almost always generated; analyzing them would exhaust the stack. No rule is run on the file.

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
