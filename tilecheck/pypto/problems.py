"""What the PyPTO checks and the lowering find, as typed keys: each PyPTO rule declares the one
it reports (`REPORTS`), and writes the message, help and documentation for it."""

from __future__ import annotations

import enum


class PyptoProblem(enum.Enum):
    BARE_YIELD_WITH_INIT_VALUES = "pypto-bare-yield-with-init-values"
    INIT_VALUES_NOT_SEQUENCE = "pypto-init-values-not-sequence"
    ITER_ARGS_MISMATCH = "pypto-iter-args-mismatch"
    LOOP_MISSING_STOP = "pypto-loop-missing-stop"
    LOOP_TARGET_NOT_TUPLE = "pypto-loop-target-not-tuple"
    LOOP_UNKNOWN_KEYWORD = "pypto-loop-unknown-keyword"
    NESTED_PIPELINE_UNSUPPORTED = "pypto-nested-pipeline-unsupported"
    PIPELINE_BOUNDS_UNRESOLVED = "pypto-pipeline-bounds-unresolved"
    PIPELINE_DYNAMIC_NEGATIVE_STEP = "pypto-pipeline-dynamic-negative-step"
    PIPELINE_INT64_DYNAMIC_BOUND = "pypto-pipeline-int64-dynamic-bound"
    PIPELINE_MEMBERSHIP_UNDECIDED = "pypto-pipeline-membership-undecided"
    PIPELINE_MISSING_STAGE = "pypto-pipeline-missing-stage"
    PIPELINE_NOT_LOWERED = "pypto-pipeline-not-lowered"
    PIPELINE_READS_ENCLOSING_CARRIED = "pypto-pipeline-reads-enclosing-carried"
    PIPELINE_REASSIGNS_UNCARRIED = "pypto-pipeline-reassigns-uncarried"
    PIPELINE_STAGE_NOT_CONSTANT = "pypto-pipeline-stage-not-constant"
    PIPELINE_STAGE_NOT_POSITIVE = "pypto-pipeline-stage-not-positive"
    PIPELINE_STAGES_ATTR_MISMATCH = "pypto-pipeline-stages-attr-mismatch"
    PIPELINE_STEP_NOT_CONSTANT = "pypto-pipeline-step-not-constant"
    PIPELINE_STRICT_REASSIGN_NOT_CARRIED = "pypto-pipeline-strict-reassign-not-carried"
    PIPELINE_ZERO_STEP = "pypto-pipeline-zero-step"
    STAGE_ON_NON_PIPELINE = "pypto-stage-on-non-pipeline"
    UNROLL_DYNAMIC_BOUNDS = "pypto-unroll-dynamic-bounds"
    UNROLL_WITH_INIT_VALUES = "pypto-unroll-with-init-values"
    UNROLL_ZERO_STEP = "pypto-unroll-zero-step"
    YIELD_COUNT_MISMATCH = "pypto-yield-count-mismatch"
