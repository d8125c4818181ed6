"""Rule TL421: pypto-pipeline-int64-dynamic-bound (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import CONTRACT, PyptoRule, checklist

_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, m: pl.Scalar[pl.{kind}]):\n"
)


class PyptoPipelineInt64DynamicBound(PyptoRule):
    """A pipelined loop with runtime bounds takes a bound of type `pl.Scalar[pl.INT64]`.

    ## What it does
    Reports a start or stop of a `pl.pipeline(..., stage=F)` loop (F > 1) with runtime bounds
    that is a parameter declared `pl.Scalar[pl.INT64]`.

    ## Why is this bad?
    For runtime bounds the pass computes `unroll_main_end` and `unroll_rem` and types them as
    INDEX, mixing them with the INT64 bound: the lowered program prints, but does not parse back
    (measured on PyPTO's real pass), so nothing after the pass can read it.

    ## Example
    ```python
    @pl.function
    def kernel(a: pl.Tensor, m: pl.Scalar[pl.INT64]):
        for i in pl.pipeline(0, m, 1, stage=2):
            t = pl.load(a, [i], [16])
    ```

    ## Use instead
    ```python
    @pl.function
    def kernel(a: pl.Tensor, m: pl.Scalar[pl.INDEX]):
        for i in pl.pipeline(0, m, 1, stage=2):
            t = pl.load(a, [i], [16])
    ```

    ## Backends
    All PyPTO backends: the output of LowerPipelineLoops fails to re-parse before any target is chosen.
    """

    CODE = "TL421"
    REPORTS = PyptoProblem.PIPELINE_INT64_DYNAMIC_BOUND
    NAME = "pypto-pipeline-int64-dynamic-bound"
    GRADE = Grade.CONTRACT
    MESSAGE = (
        "LowerPipelineLoops types `unroll_main_end` and `unroll_rem` as INDEX: with the "
        "pl.Scalar[pl.INT64] bound `{name}` its output does not parse back"
    )
    HELP = "Declare the bound `pl.Scalar[pl.INDEX]`, the type loop bounds have."
    CHECKLIST = checklist(
        grade=CONTRACT,
        shape="The start or stop Name of a `pl.pipeline(..., stage>1)` For with runtime bounds, naming a parameter annotated `pl.Scalar[pl.INT64]` that the function never reassigns.",
        smallest_invalid="def kernel(m: pl.Scalar[pl.INT64]): for i in pl.pipeline(0, m, 1, stage=2): ...",
        closest_valid="def kernel(m: pl.Scalar[pl.INDEX]): for i in pl.pipeline(0, m, 1, stage=2): ...",
        proof="Proven for a parameter whose annotation says INT64; a bound computed from one is not reported (its type is not read).",
        first_pass="LowerPipelineLoops (its printed output fails to parse)",
        rewrite="Change the parameter's annotation to `pl.Scalar[pl.INDEX]` (or lower with static bounds).",
    )
    _BODY = "    for i in pl.pipeline(0, m, 1, stage=2):\n        t = pl.load(a, [i], [16])\n"
    VALID = [
        Valid(_HEADER.format(kind="INDEX") + _BODY),
        Valid(_HEADER.format(kind="INT64") + "    for i in pl.pipeline(0, m, 1, stage=1):\n        t = i\n"),
    ]
    INVALID = [Invalid(_HEADER.format(kind="INT64") + _BODY, at=((6, 29),), message="bound `m`")]
