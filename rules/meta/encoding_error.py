from tilecheck.core.meta import Problem
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class EncodingError(Rule):
    """The file's bytes cannot be decoded.

    ## What it does
    Reports a file whose bytes are not valid in its declared encoding (UTF-8 unless a coding cookie says otherwise).

    ## Why is this bad?
    Python itself refuses to import such a file.

    ## Example
    ```
    b'x = "\\xff\\xfe"'  # invalid UTF-8 bytes
    ```

    ## Use instead
    ```
    x = "ÿ"  # saved as UTF-8
    ```

    ## Backends
    All. Reported by the engine itself, not by a check over the kernel model.
    """

    CODE = "TL002"
    NAME = "encoding-error"
    GRADE = Grade.META
    REPORTS = Problem.ENCODING_ERROR
    MODEL = "none"
    HELP = "Save the file as UTF-8, or declare its encoding with a `# -*- coding: ... -*-` line."
