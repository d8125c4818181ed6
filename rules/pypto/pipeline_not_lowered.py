"""Rule TL491: pypto-pipeline-not-lowered (PyPTO; emitted by `tilecheck lower`)."""

from __future__ import annotations

from tilecheck.core.types import Grade, Severity
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule


class PyptoPipelineNotLowered(PyptoRule):
    """`tilecheck lower` leaves a pipeline loop as it is, and says why.

    ## What it does
    Reported by `tilecheck lower` (a warning) for a `pl.pipeline(..., stage=F)` loop it does not lower; the
    message gives the reason. The loop is kept byte for byte and the rest of the file is still lowered.
    Reasons: a step, or a bound needed for a negative step, that cannot be resolved; a loop target that is not
    a simple name; the loop variable or an iter_arg reassigned or deleted in the body; in a `strict_ssa`
    function, a name defined before the loop that the body reads and then reassigns (TL423); a `break`, `continue` or `return`
    in the body (the copies would leave the unrolled loop or the function); `stage=` above 64, or unrolled
    copies, or a lowered file, larger than 2,000,000 characters; code nested too deeply for Python's recursion limit.

    ## Why is this bad?
    The output then does not show what PyPTO's LowerPipelineLoops pass makes of the loop. The loop may still be
    valid PyPTO (PyPTO itself lowers a large `stage=`), or PyPTO may reject or miscompile it (a `break` copied
    into every stage).

    ## Example
    ```python
    for i in pl.pipeline(0, 10, 1, stage=4):
        x = pl.load(a, [i], [16])
        break
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(0, 10, 1, stage=4):
        x = pl.load(a, [i], [16])
    ```

    ## Backends
    All. Reported by `tilecheck lower` itself, not by a check over the kernel model.
    """

    CODE = "TL491"
    REPORTS = PyptoProblem.PIPELINE_NOT_LOWERED
    NAME = "pypto-pipeline-not-lowered"
    GRADE = Grade.META
    SEVERITY = Severity.WARNING
    MESSAGE = "this pipeline loop was left as it is: {reason}"
    HELP = "Remove what the message names, or lower the loop by hand."
