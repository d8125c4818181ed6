"""Rule TL490: pypto-pipeline-bounds-unresolved (PyPTO; emitted by `tilecheck lower`)."""

from __future__ import annotations

from tilecheck.core.types import Grade, Severity
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule


class PyptoPipelineBoundsUnresolved(PyptoRule):
    """`tilecheck lower` cannot resolve a pipeline loop bound and lowers it with dynamic bounds.

    ## What it does
    Reported by `tilecheck lower` (information, not an error) when a bound of a `pl.pipeline(..., stage=F)` loop
    is a name or expression it cannot resolve to an integer, such as a constant imported from a module it cannot
    read. The loop is lowered as PyPTO lowers loops with runtime bounds: a main loop up to `unroll_main_end`,
    then the `unroll_rem` cascade, instead of a flattened static tail.

    ## Why is this bad?
    It is not wrong: the dynamic form computes the same iterations. But if PyPTO knows the bound statically it
    builds the static form, so the lowered file shown may differ in shape from what PyPTO produces.

    ## Example
    ```python
    from config import TILES  # not readable by tilecheck

    for i in pl.pipeline(0, TILES, 1, stage=2):
        x = pl.load(a, [i], [16])
    ```

    ## Use instead
    ```python
    TILES = 8

    for i in pl.pipeline(0, TILES, 1, stage=2):
        x = pl.load(a, [i], [16])
    ```

    ## Backends
    All. Reported by `tilecheck lower` itself, not by a check over the kernel model.
    """

    CODE = "TL490"
    REPORTS = PyptoProblem.PIPELINE_BOUNDS_UNRESOLVED
    NAME = "pypto-pipeline-bounds-unresolved"
    GRADE = Grade.META
    SEVERITY = Severity.INFO
    MESSAGE = "cannot resolve `{name}` statically; lowering this loop with dynamic bounds"
    HELP = "Define the bound as a module-level integer constant tilecheck can read."
