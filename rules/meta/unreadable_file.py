from tilecheck.core.meta import Problem
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade


class UnreadableFile(Rule):
    """The file cannot be read.

    ## What it does
    Reports a path that cannot be read: missing, permission denied, a symlink loop, a directory entry that vanished, or a file larger than tilecheck's size limit (16 MiB).

    ## Why is this bad?
    A file that cannot be read cannot be checked; saying so keeps the run honest instead of silently skipping it.

    ## Example
    ```
    tilecheck missing.py
    ```

    ## Use instead
    ```
    tilecheck kernels/
    ```

    ## Backends
    All. Reported by the engine itself, not by a check over the kernel model.
    """

    CODE = "TL003"
    NAME = "unreadable-file"
    GRADE = Grade.META
    REPORTS = Problem.UNREADABLE_FILE
    MODEL = "none"
    HELP = "Check the path and its permissions."
