"""Static facts about one `pl.<iterator>(...)` loop: its stage factor and its bounds."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tilecheck.pypto.consts import ModuleConstants, Value
from tilecheck.pypto.dataflow import Dataflow
from tilecheck.pypto.dsl import LoopHeader, body_statements

_ZERO = Value("int", 0)
_ONE = Value("int", 1)


@dataclass
class LoopPlan:
    header: LoopHeader
    stage: Value | None  # None: no `stage=`
    start: Value
    stop: Value | None
    step: Value

    @property
    def factor(self) -> int | None:
        return self.stage.value if self.stage is not None and self.stage.is_int else None

    @property
    def is_static(self) -> bool:
        return self.start.is_int and self.stop is not None and self.stop.is_int and self.step.is_int

    def trip_count(self) -> int:
        """ComputeStaticTripCount."""
        assert self.is_static and self.stop is not None
        start, stop, step = self.start.value, self.stop.value, self.step.value
        assert start is not None and stop is not None and step is not None
        if step > 0 and start < stop:
            return (stop - start + step - 1) // step
        if step < 0 and start > stop:
            return (start - stop + (-step) - 1) // (-step)
        return 0


def plan(header: LoopHeader, constants: ModuleConstants, local: set[str]) -> LoopPlan:
    stage_expr = header.keyword("stage")
    stage = constants.evaluate(stage_expr, local) if stage_expr is not None else None
    start = constants.evaluate(header.start, local) if header.start is not None else _ZERO
    stop = constants.evaluate(header.stop, local) if header.stop is not None else None
    step = constants.evaluate(header.step, local) if header.step is not None else _ONE
    return LoopPlan(header, stage, start, stop, step)


def function_locals(function: cst.FunctionDef, flow: Dataflow) -> set[str]:
    """Names that are DSL variables in `function`: parameters and everything it assigns."""
    names = {param.name.value for param in _params(function.params)}
    names |= flow.block(body_statements(function)).defs
    return names | flow.opaque


def _params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    for extra in (params.star_arg, params.star_kwarg):
        if isinstance(extra, cst.Param):
            found.append(extra)
    return found
