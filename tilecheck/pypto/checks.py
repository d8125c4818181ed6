"""Pre-lowering checks: the errors PyPTO's parser, LowerPipelineLoops and its verifier raise.

Per loop, parser errors are reported in the order PyPTO's `parse_for_loop` raises them (missing
stop, keywords, tuple target and init_values, bare yield, `pl.unroll` checks, `stage=` checks),
one per loop since the parser stops at the first. The pass's own errors (step, yield arity) are
reported only for a `pl.pipeline` loop with stage > 1 that parses. A value tilecheck cannot
resolve statically is never reported as an error.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from tilecheck.pypto.backends import Capabilities
from tilecheck.pypto.consts import ModuleConstants
from tilecheck.pypto.dataflow import Dataflow
from tilecheck.pypto.dsl import (
    ACCEPTED_KEYWORDS,
    SUPPORTED_KEYWORDS,
    WHILE_ITERATOR,
    Aliases,
    FunctionSite,
    LoopHeader,
    body_statements,
    carries_implicitly,
    child_blocks,
    is_strict_ssa,
    loop_header,
    trailing_yield,
    while_iter_args,
    yield_call,
)
from tilecheck.pypto.findings import Finding
from tilecheck.pypto.loops import LoopPlan, function_locals, plan
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.tilelang.syntax import target_names

_IR_TYPE_NAMES = {
    cst.Add: "Add",
    cst.Subtract: "Sub",
    cst.Multiply: "Mul",
    cst.FloorDivide: "FloorDiv",
    cst.Modulo: "FloorMod",
}


@dataclass
class _Loop:
    header: LoopHeader
    plan: LoopPlan


class FunctionChecker:
    def __init__(
        self,
        aliases: Aliases,
        constants: ModuleConstants,
        site: FunctionSite,
        top: cst.CSTNode,
        backend: Capabilities,
        flows: dict[int, tuple[Dataflow, set[str]]] | None = None,
    ) -> None:
        self.aliases = aliases
        self.constants = constants
        self.function = site.node
        self.top = top
        self.backend = backend
        flow = Dataflow()
        self.flow = flow
        self.local = function_locals(site.node, flow)
        # INT64 scalar parameters the function never reassigns
        self.index_types = _int64_scalars(site.node, aliases) - flow.block(body_statements(site.node)).defs
        if flows is not None:
            flows[id(site.node)] = (flow, self.local)  # the lowering starts from these
        self.findings: list[Finding] = []
        self._current: cst.For | None = None
        self.strict = is_strict_ssa(site.node, aliases)

    def run(self) -> list[Finding]:
        self._block(body_statements(self.function), 0, {})
        return self.findings

    def _report(self, problem: PyptoProblem, node: cst.CSTNode, **values: object) -> None:
        self.findings.append(Finding(problem, node, self.top, values, loop=self._current))

    def _block(
        self, statements: list[cst.BaseStatement], enclosing_pipelines: int, carried: dict[str, str]
    ) -> None:
        """`carried`: the iter_args of the enclosing DSL loops, each with its loop's kind."""
        for statement in statements:
            depth = enclosing_pipelines
            inner = carried
            if isinstance(statement, cst.For):
                header = loop_header(statement, self.aliases)
                if header is not None:
                    loop = _Loop(header, plan(header, self.constants, self.local))
                    if (
                        self._loop(loop, enclosing_pipelines, carried)
                        and loop.plan.factor
                        and loop.plan.factor > 1
                    ):
                        depth += 1
                    own = [name for name in (header.loop_var(), *(header.iter_args() or ())) if name]
                    inner = {name: kind for name, kind in carried.items() if name not in own}
                    inner.update((name, header.kind) for name in header.iter_args() or ())
                else:
                    carried_here = while_iter_args(statement, self.aliases)
                    if carried_here:
                        inner = {name: kind for name, kind in carried.items() if name not in carried_here}
                        inner.update((name, WHILE_ITERATOR) for name in carried_here)
            for block in child_blocks(statement):
                self._block(block, depth, inner)

    def _loop(self, loop: _Loop, enclosing_pipelines: int, carried: dict[str, str]) -> bool:
        """Check one loop; True when it parses (so it counts as a pipeline level)."""
        self._current = loop.header.node  # every finding is on a loop's header or body
        if not self._parser_checks(loop):
            return False
        header, loop_plan = loop.header, loop.plan
        if header.kind != "pipeline":
            attrs = header.attrs()
            if attrs is not None and "pipeline_stages" in attrs:
                self._report(
                    PyptoProblem.PIPELINE_STAGES_ATTR_MISMATCH,
                    header.keywords["attrs"],
                    function=self.function.name.value,
                )
            return True
        factor = loop_plan.factor
        if factor is None or factor <= 1:
            return True
        if self._pass_checks(loop):
            self._replication_checks(loop, carried)
        if enclosing_pipelines and not self.backend.hierarchical_pipelines:
            self._report(PyptoProblem.NESTED_PIPELINE_UNSUPPORTED, header.call, backend=self.backend.name)
        return True

    def _parser_checks(self, loop: _Loop) -> bool:
        header, loop_plan = loop.header, loop.plan
        kind = header.kind
        if not header.positional:
            self._report(PyptoProblem.LOOP_MISSING_STOP, header.call, kind=kind)
            return False
        for name, arg in header.keywords.items():
            if name not in ACCEPTED_KEYWORDS:
                supported = ", ".join(SUPPORTED_KEYWORDS[kind])
                self._report(
                    PyptoProblem.LOOP_UNKNOWN_KEYWORD, arg, keyword=name, kind=kind, supported=supported
                )
                return False
            if name == "init_values" and not isinstance(arg.value, (cst.Tuple, cst.List)):
                self._report(PyptoProblem.INIT_VALUES_NOT_SEQUENCE, arg.value)
                return False
        init_values = header.init_values
        if init_values:
            target = header.node.target
            if not isinstance(target, cst.Tuple):
                self._report(PyptoProblem.LOOP_TARGET_NOT_TUPLE, target)
                return False
            iter_args = header.iter_args()
            if iter_args is not None and len(iter_args) != len(init_values):
                self._report(
                    PyptoProblem.ITER_ARGS_MISMATCH,
                    target,
                    iter_args=len(iter_args),
                    init_values=len(init_values),
                )
                return False
            for statement in body_statements(header.node):
                if isinstance(statement, cst.SimpleStatementLine):
                    for small in statement.body:
                        if isinstance(small, cst.Expr) and yield_call(small, self.aliases) is not None:
                            self._report(PyptoProblem.BARE_YIELD_WITH_INIT_VALUES, small)
                            return False
        if kind == "unroll":
            if init_values is not None and "init_values" in header.keywords:
                self._report(PyptoProblem.UNROLL_WITH_INIT_VALUES, header.keywords["init_values"])
                return False
            if any(
                value is not None and value.kind == "runtime"
                for value in (loop_plan.start, loop_plan.stop, loop_plan.step)
            ):
                self._report(PyptoProblem.UNROLL_DYNAMIC_BOUNDS, header.call)
                return False
            if loop_plan.step.is_int and loop_plan.step.value == 0:
                self._report(PyptoProblem.UNROLL_ZERO_STEP, header.step or header.call)
                return False
        stage_arg = header.keywords.get("stage")
        if stage_arg is None:
            if kind == "pipeline":
                self._report(PyptoProblem.PIPELINE_MISSING_STAGE, header.call)
                return False
            return True
        stage = loop_plan.stage
        assert stage is not None
        if stage.kind in ("runtime", "nonint"):
            self._report(PyptoProblem.PIPELINE_STAGE_NOT_CONSTANT, stage_arg)
            return False
        if stage.is_int and stage.value is not None and stage.value < 1:
            self._report(PyptoProblem.PIPELINE_STAGE_NOT_POSITIVE, stage_arg, value=stage.value)
            return False
        if kind != "pipeline":
            self._report(PyptoProblem.STAGE_ON_NON_PIPELINE, stage_arg, kind=kind)
            return False
        return True

    def _replication_checks(self, loop: _Loop, carried: dict[str, str]) -> None:
        """What the pass replicates into output that fails PyPTO's own verification."""
        header = loop.header
        own = {name for name in (header.loop_var(), *(header.iter_args() or ())) if name}
        if carried:
            reads = self.flow.block(body_statements(header.node)).reads - own
            for name in sorted(reads & set(carried)):
                node = _first_read(header.node.body, name)
                if node is not None:
                    self._report(
                        PyptoProblem.PIPELINE_READS_ENCLOSING_CARRIED, node, name=name, kind=carried[name]
                    )
        self._reassigned_uncarried(loop, own | set(carried))
        if loop.plan.is_static:
            return
        for bound in (header.start, header.stop):
            if isinstance(bound, cst.Name) and bound.value in self.index_types:
                self._report(PyptoProblem.PIPELINE_INT64_DYNAMIC_BOUND, bound, name=bound.value)

    def _reassigned_uncarried(self, loop: _Loop, excluded: set[str]) -> None:
        """TL422 (TL423 under `strict_ssa`): a name the body reads, then reassigns, that is not
        an iter_arg. Under `strict_ssa` PyPTO's parser rejects only a second definition in the
        same scope; the body's first `x = ...` is a new variable local to the body, so the loop
        does not carry `x` at all."""
        statements = body_statements(loop.header.node)
        problem = (
            PyptoProblem.PIPELINE_STRICT_REASSIGN_NOT_CARRIED
            if self.strict
            else PyptoProblem.PIPELINE_REASSIGNS_UNCARRIED
        )
        for name in sorted(self.flow.reassigned(statements, excluded)):
            node = _first_assignment(statements, name)
            if node is not None:
                self._report(problem, node, name=name, stages=loop.plan.factor)

    def _pass_checks(self, loop: _Loop) -> bool:
        """The pass's own errors; True when there is none."""
        before = len(self.findings)
        self._pass_errors(loop)
        return len(self.findings) == before

    def _pass_errors(self, loop: _Loop) -> None:
        header, loop_plan = loop.header, loop.plan
        step = loop_plan.step
        step_node = header.step if header.step is not None else header.call
        if step.kind in ("runtime", "nonint"):
            self._report(
                PyptoProblem.PIPELINE_STEP_NOT_CONSTANT, step_node, type_name=_ir_type_name(header.step)
            )
            return
        if not step.is_int:
            return  # unresolved: the lowering leaves the loop and says so
        assert step.value is not None
        if step.value == 0:
            self._report(PyptoProblem.PIPELINE_ZERO_STEP, step_node)
            return
        if not loop_plan.is_static and step.value < 0:
            bounds = (loop_plan.start, loop_plan.stop)
            if any(value is not None and value.kind == "runtime" for value in bounds):
                self._report(PyptoProblem.PIPELINE_DYNAMIC_NEGATIVE_STEP, step_node, step=step.value)
            return
        iter_args = header.iter_args()
        defs = self.flow.block(body_statements(header.node)).defs
        if carries_implicitly(header, self.strict, defs, self.aliases):
            return  # PyPTO's SSA conversion supplies the yield
        if header.init_values is not None and iter_args is not None:
            statements = body_statements(header.node)
            yielded = trailing_yield(statements, self.aliases)
            got = len(yielded.values) if yielded is not None else 0
            if got != len(iter_args):
                node = yielded.line if yielded is not None else header.node.target
                self._report(PyptoProblem.YIELD_COUNT_MISMATCH, node, expected=len(iter_args), got=got)


def _first_assignment(statements: list[cst.BaseStatement], name: str) -> cst.CSTNode | None:
    """The first statement line (in source order, nested blocks included) assigning `name`."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets: list[cst.BaseExpression] = []
                if isinstance(small, cst.Assign):
                    targets = [target.target for target in small.targets]
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    targets = [small.target]
                if any(name in (target_names(target) or ()) for target in targets):
                    return small
            continue
        for block in child_blocks(statement):
            found = _first_assignment(block, name)
            if found is not None:
                return found
    return None


def _first_read(node: cst.CSTNode, name: str) -> cst.Name | None:
    """The first `name` used as a variable under `node`, in source order."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            if current.value == name:
                return current
            continue
        if isinstance(current, cst.Attribute):
            stack.append(current.value)
            continue
        if isinstance(current, cst.Arg):
            stack.append(current.value)
            continue
        stack.extend(reversed(current.children))
    return None


def _int64_scalars(function: cst.FunctionDef, aliases: Aliases) -> set[str]:
    """Parameters annotated `pl.Scalar[pl.INT64]`."""
    found = set()
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        annotation = param.annotation.annotation if param.annotation is not None else None
        if not isinstance(annotation, cst.Subscript) or aliases.member(annotation.value) != "Scalar":
            continue
        [element] = annotation.slice if len(annotation.slice) == 1 else (None,)
        index = element.slice if element is not None else None
        if isinstance(index, cst.Index) and aliases.member(index.value) == "INT64":
            found.add(param.name.value)
    return found


def _ir_type_name(node: cst.BaseExpression | None) -> str:
    if isinstance(node, cst.Name):
        return "Var"
    if isinstance(node, cst.BinaryOperation):
        return _IR_TYPE_NAMES.get(type(node.operator), type(node.operator).__name__)
    if isinstance(node, cst.Float):
        return "ConstFloat"
    if isinstance(node, cst.Call):
        return "Call"
    return type(node).__name__


def check_functions(
    module: cst.Module,
    aliases: Aliases,
    constants: ModuleConstants,
    sites: list[FunctionSite],
    backend: Capabilities,
    flows: dict[int, tuple[Dataflow, set[str]]] | None = None,
) -> list[Finding]:
    """The findings for `sites`; `flows` receives each function's dataflow and locals."""
    findings: list[Finding] = []
    for site in sites:
        top = module.body[site.path[0]]
        findings.extend(FunctionChecker(aliases, constants, site, top, backend, flows).run())
    return findings
