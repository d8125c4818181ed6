"""LowerPipelineLoops as a source-to-source transformation.

Each `for i in pl.pipeline(start, stop, step, stage=F)` loop with F > 1 in a DSL function is
replaced by what PyPTO's pass builds (reference `pypto-lowering.md` §1): a main loop of F clones
per iteration marked `stage=1`, then a flattened static tail or the dynamic `unroll_rem`
cascade. Nested pipelines are lowered first. Every other byte of the file is left as it was.

Here each function's statements are walked and each loop is either lowered or noted (TL491)
as left as it is; `loop_body` splits a loop's body for replication and `unroll` writes what
replaces the loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tilecheck.pypto.codegen import Codegen
from tilecheck.pypto.consts import ModuleConstants
from tilecheck.pypto.dataflow import Dataflow, Frame
from tilecheck.pypto.dsl import Aliases, body_statements, is_strict_ssa, loop_header
from tilecheck.pypto.findings import Finding
from tilecheck.pypto.limits import MAX_STAGE, TOO_DEEP, LoweredSize, escaping_statement, predicted_size
from tilecheck.pypto.loop_body import Refusal, split_body
from tilecheck.pypto.loops import LoopPlan, function_locals, plan
from tilecheck.pypto.membership import tile_facts, undecided_in
from tilecheck.pypto.names import Tokens
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rewrite import with_body
from tilecheck.pypto.stage import LoweredStatement, materialize
from tilecheck.pypto.unroll import Unroller


@dataclass
class ModuleContext:
    """What the lowerings of one module's functions share."""

    aliases: Aliases
    constants: ModuleConstants
    tokens: Tokens
    notes: list[Finding] = field(default_factory=list)
    # id(function) -> its dataflow and locals, as `check_functions` computed them.
    flows: dict[int, tuple[Dataflow, set[str]]] = field(default_factory=dict)
    clone_templates: bool = True  # False: every clone is rewritten in full (the tests compare)
    # The writer the splice uses (its memoized texts measure the loops first), and the length of
    # the file as lowered so far: what `limits.predicted_size` holds to the cap.
    codegen: Codegen | None = None
    lowered_chars: int = 0


class FunctionLowering:
    """Lowers the pipeline loops of one DSL function; `regions` are the outermost lowered loops."""

    def __init__(
        self, context: ModuleContext, function: cst.FunctionDef, top: cst.CSTNode, depth: int = 0
    ) -> None:
        self.context = context
        self.depth = depth  # how many class bodies hold the function (its indentation level)
        self.aliases = context.aliases
        self.tokens = context.tokens
        self.function = function
        self.top = top
        known = context.flows.get(id(function))
        if known is not None:
            self.flow, self.local = known
        else:
            self.flow = Dataflow()
            self.local = function_locals(function, self.flow)
        self.strict = is_strict_ssa(function, self.aliases)
        self.tiles = tile_facts(function, self.aliases)
        self.unroller = Unroller(self.aliases, self.tokens, self.tiles, self.flow, context.clone_templates)
        self._undecided_noted: set[int] = set()
        # The outermost lowered loops, each with what replaces it, in source order.
        self.regions: list[tuple[cst.For, list[LoweredStatement]]] = []
        # The predicted sizes of the outermost lowered loops walked so far (see `_predicted_size`).
        self.sizes: list[LoweredSize] = []

    def run(self) -> cst.FunctionDef | None:
        body = self.block(body_statements(self.function), [], self.function)
        if body is None:
            return None
        return self.function.with_changes(body=with_body(self.function.body, body))

    # -- walking ---------------------------------------------------------------------------

    def block(
        self, statements: list[cst.BaseStatement], chain: list[Frame], owner: cst.CSTNode
    ) -> list[LoweredStatement] | None:
        """`statements` with their pipeline loops lowered; None when none is."""
        out: list[LoweredStatement] = []
        changed = False
        for index, statement in enumerate(statements):
            result = self.statement(statement, [*chain, Frame(statements, index, owner)])
            if result is None:
                out.append(statement)
            else:
                out.extend(result)
                changed = True
        return out if changed else None

    def statement(self, node: cst.BaseStatement, chain: list[Frame]) -> list[LoweredStatement] | None:
        """What replaces `node` when a loop in it is lowered; None when none is."""
        if isinstance(node, cst.For):
            mark = len(self.regions)
            sizes_mark = len(self.sizes)
            body = body_statements(node)
            new_body = self.block(body, chain, node)
            header = loop_header(node, self.aliases)
            if header is not None and header.kind == "pipeline":
                loop = plan(header, self.context.constants, self.local)
                if loop.factor is not None and loop.factor > 1:
                    try:
                        lowered = None
                        size = self._predicted_size(loop, node, body, self.sizes[sizes_mark:], chain)
                        if size is not None:
                            statements = body if new_body is None else [materialize(s) for s in new_body]
                            lowered = self.pipeline(loop, statements, chain)
                    except RecursionError:
                        self._note(
                            PyptoProblem.PIPELINE_NOT_LOWERED, header.call, header.node, reason=TOO_DEEP
                        )
                        lowered = None
                    if lowered is not None:
                        self._note_undecided(body, node)
                        del self.regions[mark:]  # nested lowered loops are part of this one now
                        self.regions.append((node, lowered))
                        assert size is not None
                        absorbed = self.sizes[sizes_mark:]
                        self.context.lowered_chars += size.growth() - sum(s.growth() for s in absorbed)
                        del self.sizes[sizes_mark:]
                        self.sizes.append(size)
                        return lowered
            return None if new_body is None else [node.with_changes(body=with_body(node.body, new_body))]
        if isinstance(node, cst.If):
            new_if = self._if(node, chain)
            return None if new_if is None else [new_if]
        if isinstance(node, (cst.With, cst.While)):
            inner = self.block(body_statements(node), chain, node)
            return None if inner is None else [node.with_changes(body=with_body(node.body, inner))]
        return None

    def _if(self, node: cst.If, chain: list[Frame]) -> cst.If | None:
        """`node` with the loops of its branches (`elif`s included) lowered; None if none is."""
        then = self.block(body_statements(node), chain, node)
        orelse = node.orelse
        new_orelse: cst.If | cst.Else | None = None
        if isinstance(orelse, cst.If):
            new_orelse = self._if(orelse, chain)
        elif isinstance(orelse, cst.Else):
            inner = self.block(body_statements(orelse), chain, node)
            if inner is not None:
                new_orelse = orelse.with_changes(body=with_body(orelse.body, inner))
        if then is None and new_orelse is None:
            return None
        changes: dict[str, object] = {}
        if then is not None:
            changes["body"] = with_body(node.body, then)
        if new_orelse is not None:
            changes["orelse"] = new_orelse
        return node.with_changes(**changes)

    def _predicted_size(
        self,
        loop: LoopPlan,
        node: cst.For,
        body: list[cst.BaseStatement],
        inner: list[LoweredSize],
        chain: list[Frame],
    ) -> LoweredSize | None:
        """`limits.predicted_size`; None, with a TL491 note, when it refuses the loop."""
        codegen = self.context.codegen
        assert codegen is not None
        # The loop's body: one level below the blocks of `chain`, below the function's own level.
        indent = (self.depth + len(chain) + 1) * len(codegen.state.default_indent)
        size = predicted_size(loop, node, body, inner, codegen, indent, self.context.lowered_chars)
        if isinstance(size, str):
            self._note(PyptoProblem.PIPELINE_NOT_LOWERED, loop.header.call, node, reason=size)
            return None
        return size

    def _note_undecided(self, body: list[cst.BaseStatement], loop: cst.For) -> None:
        """TL492 for each assignment in a lowered body whose tile-ness cannot be decided."""
        for node, name, op in undecided_in(body, self.tiles, self._undecided_noted):
            self._note(PyptoProblem.PIPELINE_MEMBERSHIP_UNDECIDED, node, loop, name=name, op=op)

    def _note(self, problem: PyptoProblem, node: cst.CSTNode, loop: cst.For, **values: object) -> None:
        self.context.notes.append(Finding(problem, node, self.top, values, loop=loop))

    # -- one pipeline loop -----------------------------------------------------------------

    def pipeline(
        self, loop: LoopPlan, statements: list[cst.BaseStatement], chain: list[Frame]
    ) -> list[LoweredStatement] | None:
        header = loop.header
        if not loop.step.is_int:
            if loop.step.kind == "unresolved":
                self._note(
                    PyptoProblem.PIPELINE_NOT_LOWERED,
                    header.call,
                    header.node,
                    reason=f"cannot resolve the step `{loop.step.name}`",
                )
            return None  # a runtime step is reported by the checks
        step = loop.step.value
        assert step is not None
        if step == 0:
            return None  # reported by the checks
        if not loop.is_static and step < 0:
            unresolved = [v.name for v in (loop.start, loop.stop) if v is not None and v.kind == "unresolved"]
            if unresolved:
                reason = f"cannot resolve `{unresolved[0]}`, and a negative step needs static bounds"
                self._note(PyptoProblem.PIPELINE_NOT_LOWERED, header.call, header.node, reason=reason)
            return None
        factor = loop.factor
        assert factor is not None
        if factor > MAX_STAGE:
            reason = f"stage={factor} is more than the {MAX_STAGE} stages `tilecheck lower` unrolls"
            self._note(PyptoProblem.PIPELINE_NOT_LOWERED, header.call, header.node, reason=reason)
            return None
        escape = escaping_statement(statements)
        if escape is not None:
            reason = f"its body has a `{escape}` statement, which cannot be copied into the unrolled stages"
            self._note(PyptoProblem.PIPELINE_NOT_LOWERED, header.call, header.node, reason=reason)
            return None
        body = split_body(header, statements, chain, self.flow, self.aliases, self.strict)
        if isinstance(body, Refusal):
            self._note(PyptoProblem.PIPELINE_NOT_LOWERED, body.node, header.node, reason=body.reason)
            return None
        if body is None:
            return None
        if loop.is_static:
            return self.unroller.static(loop, body, factor, step)
        for value in (loop.start, loop.stop):
            if value is not None and value.kind == "unresolved":
                self._note(PyptoProblem.PIPELINE_BOUNDS_UNRESOLVED, header.call, header.node, name=value.name)
        return self.unroller.dynamic(loop, body, factor, step)
