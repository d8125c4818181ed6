from tilecheck.core.meta import Problem
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class ParserLimitation(Rule):
    """The file is valid Python that libcst cannot parse, so it could not be analyzed.

    ## What it does
    Reports a file that CPython parses but libcst (the parser tilecheck is built on) rejects, at the position where libcst stopped. No rule is run on the file; it is not a syntax error in your code.

    ## Why is this bad?
    Nothing in the file is checked. libcst 1.9 rejects a few rare valid forms, such as an annotated assignment to a parenthesized name.

    ## Example
    ```
    (pars): bool = True
    ```

    ## Use instead
    ```
    pars: bool = True
    ```

    ## Backends
    All. Reported by the engine itself, not by a check over the kernel model.
    """

    CODE = "TL007"
    NAME = "parser-limitation"
    GRADE = Grade.META
    REPORTS = Problem.PARSER_LIMITATION
    MODEL = "none"
    HELP = "Rewrite the construct libcst cannot parse (it is valid Python), or report it to libcst."
