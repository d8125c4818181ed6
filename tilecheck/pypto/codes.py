"""The PyPTO diagnostic codes (TL4xx): one per error PyPTO's parser, pass or verifier raises.

Messages are PyPTO's own text (reference `pypto-lowering.md` §3). Grades: errors PyPTO rejects
for every program are `semantic`; constraints that exist only because of how the current
LowerPipelineLoops pass computes its result (it needs `F * step` as an integer; its dynamic trip
formula assumes a positive step) and backend capabilities are `contract`.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilecheck.types import Diagnostic, Grade, Severity, Span


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    grade: Grade
    message: str  # str.format template
    help: str | None = None
    severity: Severity = Severity.ERROR

    def diagnostic(self, path: str, span: Span, notes: tuple[str, ...] = (), **values: object) -> Diagnostic:
        return Diagnostic(
            path=path,
            span=span,
            code=self.code,
            rule=self.name,
            grade=self.grade,
            severity=self.severity,
            message=self.message.format(**values),
            help=self.help.format(**values) if self.help else None,
            notes=notes,
        )


S, C, M = Grade.SEMANTIC, Grade.CONTRACT, Grade.META

PARSE_ERROR = Code("TL400", "pypto-parse-error", M, "cannot parse the file: {detail}")
MISSING_STAGE = Code(
    "TL401",
    "pypto-pipeline-missing-stage",
    S,
    "pl.pipeline() requires stage= (positive integer)",
    "Use pl.pipeline(stop, stage=F).",
)
STAGE_NOT_CONSTANT = Code(
    "TL402",
    "pypto-pipeline-stage-not-constant",
    S,
    "pl.pipeline() stage must be a compile-time constant integer",
    "Use an integer literal: stage=4",
)
STAGE_NOT_POSITIVE = Code(
    "TL403",
    "pypto-pipeline-stage-not-positive",
    S,
    "pl.pipeline() stage must be >= 1, got {value}",
    "Use a positive integer for stage: stage=4",
)
STAGE_ON_NON_PIPELINE = Code(
    "TL404",
    "pypto-stage-on-non-pipeline",
    S,
    "stage= is only supported on pl.pipeline(), not pl.{kind}()",
    "Use pl.pipeline() for software pipelining.",
)
UNKNOWN_KEYWORD = Code(
    "TL405",
    "pypto-loop-unknown-keyword",
    S,
    "Unknown keyword argument '{keyword}' in pl.{kind}()",
    "Supported keywords for pl.{kind}(): {supported}",
)
MISSING_STOP = Code(
    "TL406",
    "pypto-loop-missing-stop",
    S,
    "pl.{kind}() requires at least 1 argument (stop)",
    "Provide at least the stop value: pl.{kind}(10) or pl.{kind}(0, 10)",
)
UNROLL_INIT_VALUES = Code(
    "TL407", "pypto-unroll-with-init-values", S, "pl.unroll() cannot be combined with init_values"
)
UNROLL_DYNAMIC = Code(
    "TL408", "pypto-unroll-dynamic-bounds", S, "pl.unroll() requires compile-time constant integer bounds"
)
UNROLL_ZERO_STEP = Code("TL409", "pypto-unroll-zero-step", S, "pl.unroll() step cannot be zero")
TARGET_NOT_TUPLE = Code(
    "TL410", "pypto-loop-target-not-tuple", S, "For loop target must be a tuple when init_values is provided"
)
BARE_YIELD = Code(
    "TL411",
    "pypto-bare-yield-with-init-values",
    S,
    "Loop with init_values requires an assignment-form pl.yield_(...) \u2014 the LHS supplies the post-loop "
    "binding name. Bare pl.yield_(...) is rejected here.",
)
ITER_ARGS_MISMATCH = Code(
    "TL412", "pypto-iter-args-mismatch", S, "Mismatch: {iter_args} iter_args but {init_values} init_values"
)
INIT_VALUES_NOT_SEQUENCE = Code(
    "TL413", "pypto-init-values-not-sequence", S, "init_values must be a list or tuple"
)
STEP_NOT_CONSTANT = Code(
    "TL414",
    "pypto-pipeline-step-not-constant",
    C,
    "LowerPipelineLoops: step must be a compile-time integer constant, got {type_name}",
)
ZERO_STEP = Code("TL415", "pypto-pipeline-zero-step", S, "LowerPipelineLoops: step cannot be zero")
DYNAMIC_NEGATIVE_STEP = Code(
    "TL416",
    "pypto-pipeline-dynamic-negative-step",
    C,
    "LowerPipelineLoops: dynamic bounds require a positive step, got {step}. "
    "Use static bounds for negative-step loops.",
)
YIELD_COUNT = Code(
    "TL417",
    "pypto-yield-count-mismatch",
    S,
    "Internal error: loop body must yield {expected} values for iter_args, got {got}",
)
STAGES_ATTR_ON_NON_PIPELINE = Code(
    "TL418",
    "pypto-pipeline-stages-attr-mismatch",
    S,
    "ForStmt in function '{function}' carries `attrs[\"pipeline_stages\"]` but `kind_` is not "
    "`ForKind::Pipeline`. The attr is only meaningful on Pipeline loops.",
)
NESTED_PIPELINE = Code(
    "TL419",
    "pypto-nested-pipeline-unsupported",
    C,
    "Backend {backend} does not support nested software pipelines",
    "Lower the inner loop with stage=1 or choose a backend with hierarchical pipelines.",
)
BOUNDS_UNRESOLVED = Code(
    "TL490",
    "pypto-pipeline-bounds-unresolved",
    M,
    "cannot resolve `{name}` statically; lowering this loop with dynamic bounds",
    severity=Severity.INFO,
)
NOT_LOWERED = Code(
    "TL491",
    "pypto-pipeline-not-lowered",
    M,
    "this pipeline loop was left as it is: {reason}",
    severity=Severity.WARNING,
)

ALL = (
    PARSE_ERROR,
    MISSING_STAGE,
    STAGE_NOT_CONSTANT,
    STAGE_NOT_POSITIVE,
    STAGE_ON_NON_PIPELINE,
    UNKNOWN_KEYWORD,
    MISSING_STOP,
    UNROLL_INIT_VALUES,
    UNROLL_DYNAMIC,
    UNROLL_ZERO_STEP,
    TARGET_NOT_TUPLE,
    BARE_YIELD,
    ITER_ARGS_MISMATCH,
    INIT_VALUES_NOT_SEQUENCE,
    STEP_NOT_CONSTANT,
    ZERO_STEP,
    DYNAMIC_NEGATIVE_STEP,
    YIELD_COUNT,
    STAGES_ATTR_ON_NON_PIPELINE,
    NESTED_PIPELINE,
    BOUNDS_UNRESOLVED,
    NOT_LOWERED,
)


def blocks_lowering(diagnostic: Diagnostic) -> bool:
    return diagnostic.severity is Severity.ERROR and diagnostic.grade in (
        Grade.SEMANTIC,
        Grade.CONTRACT,
        Grade.META,
    )
