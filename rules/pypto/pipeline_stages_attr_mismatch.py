"""Rule TL418: pypto-pipeline-stages-attr-mismatch (PyPTO; checks in `tilecheck.pypto.checks`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example


class PyptoPipelineStagesAttrMismatch(PyptoRule):
    """A loop that is not `pl.pipeline` carries `attrs={"pipeline_stages": ...}`.

    ## What it does
    Reports a `pl.range`/`pl.parallel`/`pl.unroll` loop carrying `attrs={"pipeline_stages": ...}`.

    ## Why is this bad?
    PyPTO's PipelineLoopValid verifier requires kind Pipeline if and only if the attribute is present; the pass ignores such a loop and the verifier rejects the program. The message is PyPTO's own.

    ## Example
    ```python
    for i in pl.range(8, attrs={"pipeline_stages": 2}):
        t = i
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(8, stage=2):
        t = i
    ```

    ## Backends
    All PyPTO backends: the error comes from PipelineLoopValid verifier, before any target is chosen.
    """

    CODE = "TL418"
    REPORTS = PyptoProblem.PIPELINE_STAGES_ATTR_MISMATCH
    NAME = "pypto-pipeline-stages-attr-mismatch"
    GRADE = Grade.SEMANTIC
    MESSAGE = "ForStmt in function '{function}' carries `attrs[\"pipeline_stages\"]` but `kind_` is not `ForKind::Pipeline`. The attr is only meaningful on Pipeline loops."
    HELP = "Use `pl.pipeline(..., stage=F)`."
    CHECKLIST = checklist(
        shape='`attrs={"pipeline_stages": ...}` on a loop call other than `pl.pipeline(...)`.',
        smallest_invalid='for i in pl.range(8, attrs={"pipeline_stages": 2}): ...',
        closest_valid="for i in pl.pipeline(8, stage=2): ...",
        first_pass="PipelineLoopValid verifier",
        rewrite="Use `pl.pipeline(..., stage=F)`, which sets the attribute itself; drop the hand-written attribute.",
    )
    VALID = [Valid(example("    for i in pl.pipeline(8, stage=2):\n        t = i\n"))]
    INVALID = [
        Invalid(
            example('    for i in pl.range(8, attrs={"pipeline_stages": 2}):\n        t = i\n'),
            at=((6, 26),),
        )
    ]
