"""Rule TL419: pypto-nested-pipeline-unsupported (PyPTO; emitted by `tilecheck lower`)."""

from __future__ import annotations

from tilecheck.core.rule import Invalid, Valid
from tilecheck.core.types import Grade
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rulebase import PyptoRule, checklist, example

_NESTED = (
    "    for i in pl.pipeline(4, stage=2):\n        for j in pl.pipeline(4, stage=2):\n            x = j\n"
)


class PyptoNestedPipelineUnsupported(PyptoRule):
    """A `pl.pipeline(stage>1)` loop nested in another, on a backend without hierarchical pipelines.

    ## What it does
    With a backend selected (`--backend NAME` or `backend = ...`), reports a `pl.pipeline` loop
    with `stage > 1` inside another one when the backend's profile cannot run hierarchical
    (nested) software pipelines. `tilecheck lower --backend NAME` refuses to lower such a file.

    ## Why is this bad?
    PyPTO's pass lowers nested pipelines (inner before outer), but a target that schedules one
    pipeline level only would drop or serialize one of them; a requested schedule must never be
    dropped silently.

    ## Example
    ```python
    for i in pl.pipeline(4, stage=2):
        for j in pl.pipeline(4, stage=2):
            x = j
    ```

    ## Use instead
    ```python
    for i in pl.pipeline(4, stage=2):
        for j in pl.range(4):
            x = j
    ```
    or select a backend whose profile has `hierarchical_pipelines = true` (e.g. `ascend`).

    ## Backends
    Only backends whose profile says `hierarchical_pipelines = false`; never without a backend.
    """

    CODE = "TL419"
    REPORTS = PyptoProblem.NESTED_PIPELINE_UNSUPPORTED
    NAME = "pypto-nested-pipeline-unsupported"
    GRADE = Grade.CONTRACT
    MESSAGE = "Backend {backend} does not support nested software pipelines"
    HELP = "Pipeline one level only on this backend, or choose a backend with hierarchical pipelines."
    CHECKLIST = checklist(
        grade="Contract: nesting is legal in PyPTO; the selected backend cannot schedule it.",
        shape="A `pl.pipeline(..., stage>1)` For nested (at any depth) in another `pl.pipeline(..., stage>1)` For.",
        smallest_invalid="for i in pl.pipeline(4, stage=2): for j in pl.pipeline(4, stage=2): ...",
        closest_valid="for i in pl.pipeline(4, stage=2): for j in pl.range(4): ...",
        siblings="Sibling pipelines are independent; only nesting counts.",
        proof="Proven: both stage factors fold to integers greater than 1.",
        first_pass="The backend's pipeline scheduling after LowerPipelineLoops.",
        rewrite="Demote one level to `pl.range`, or target a backend with hierarchical pipelines.",
    )
    VALID = [Valid(example(_NESTED)), Valid(example(_NESTED), backend="ascend")]
    INVALID = [Invalid(example(_NESTED), at=((7, 18),), backend="cuda-sm80", message="Backend cuda-sm80")]
