"""Rule TL492: pypto-pipeline-membership-undecided (PyPTO; emitted by `tilecheck lower`)."""

from __future__ import annotations

from tilecheck.core.types import Grade, Severity
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule


class PyptoPipelineMembershipUndecided(PyptoRule):
    """`tilecheck lower` cannot tell whether a result in a lowered loop is a tile, and leaves it untagged.

    ## What it does
    Reported by `tilecheck lower` (information) for an assignment in a lowered `pl.pipeline` body
    whose value is a unified op (`pl.add`, `pl.matmul`, ...) applied to a value whose type
    tilecheck cannot read: an unannotated parameter, or the result of a call it cannot type. The
    DSL makes it a tile op when that operand is a tile, and PyPTO's pass then tags the result with
    its `pipeline_membership`; tilecheck writes no tag.

    ## Why is this bad?
    If the operand is a tile, PyPTO's lowered program carries a tag on this call that the output
    of `tilecheck lower` lacks. Nothing is wrong with the program itself.

    ## Example
    ```python
    @pl.function
    def f(a, x):
        for i in pl.pipeline(0, 4, 1, stage=2):
            u = pl.add(x, x)
    ```

    ## Use instead
    ```python
    @pl.function
    def f(a, x: pl.Tile[[16, 16], pl.FP32]):
        for i in pl.pipeline(0, 4, 1, stage=2):
            u = pl.add(x, x)
    ```

    ## Backends
    All. Reported by `tilecheck lower` itself, not by a check over the kernel model.
    """

    CODE = "TL492"
    REPORTS = PyptoProblem.PIPELINE_MEMBERSHIP_UNDECIDED
    NAME = "pypto-pipeline-membership-undecided"
    GRADE = Grade.META
    SEVERITY = Severity.INFO
    MESSAGE = (
        "`{name}` is left without a pipeline_membership tag: whether pl.{op}() returns a tile here "
        "depends on the type of its first operand, which tilecheck cannot read"
    )
    HELP = "Annotate the operand (`pl.Tile[...]` or `pl.Tensor`) or the result (`x: pl.Tile[...] = ...`)."
