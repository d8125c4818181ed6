"""LowerPipelineLoops as a source-to-source transformation.

Each `for i in pl.pipeline(start, stop, step, stage=F)` loop with F > 1 in a DSL function is
replaced by what PyPTO's pass builds (reference `pypto-lowering.md` §1): a main loop of F clones
per iteration marked `stage=1`, then a flattened static tail or the dynamic `unroll_rem`
cascade. Nested pipelines are lowered first. Every other byte of the file is left as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from tilecheck.pypto.clone import Rewriter, Substitute, Tagging
from tilecheck.pypto.codegen import Codegen
from tilecheck.pypto.consts import ModuleConstants
from tilecheck.pypto.cstutil import binop, int_node
from tilecheck.pypto.dataflow import Dataflow, Frame, Summary, live_after
from tilecheck.pypto.dsl import (
    Aliases,
    LoopHeader,
    TrailingYield,
    body_statements,
    carries_implicitly,
    is_strict_ssa,
    loop_header,
    trailing_yield,
)
from tilecheck.pypto.findings import Finding
from tilecheck.pypto.implicit import assign, feed_seeds
from tilecheck.pypto.limits import (
    MAX_STAGE,
    TOO_DEEP,
    LoweredSize,
    deleted_names,
    escaping_statement,
    predicted_size,
)
from tilecheck.pypto.loops import LoopPlan, function_locals, plan
from tilecheck.pypto.membership import tile_facts, undecided_in
from tilecheck.pypto.names import Tokens
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.rewrite import (
    blank_prefix,
    demoted_call,
    index_assign,
    main_call,
    seed,
    with_body,
    yield_line,
    yield_statement,
)
from tilecheck.pypto.template import BodyTemplates, Stage, materialize


@dataclass
class ModuleContext:
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


@dataclass
class _Body:
    """A loop body split for replication: statements, and the trailing yield when iter_args."""

    core: list[cst.BaseStatement]
    yielded: TrailingYield | None
    loop_var: str
    iter_args: list[str]
    local: set[str]  # names given fresh per-clone names
    double_buffer_c: bool
    # iter_args carried by reassignment, without a yield (`dsl.carries_implicitly`): they keep
    # their names in every clone, as other reassigned names do, and the seeds are bound first.
    implicit: dict[str, cst.BaseExpression] = field(default_factory=dict)
    _templates: BodyTemplates | None = None

    def templates(self, aliases: Aliases, stem: str, tiles: frozenset[str]) -> BodyTemplates:
        if self._templates is None:
            holes = {self.loop_var, *self.iter_args} - self.local
            self._templates = BodyTemplates(aliases, stem, self.local, holes, self.double_buffer_c, tiles)
        return self._templates


class FunctionLowering:
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
        self.group = 0  # pipeline group ids restart in every function
        self.strict = is_strict_ssa(function, self.aliases)
        self.tiles = tile_facts(function, self.aliases)
        self._undecided_noted: set[int] = set()
        # The outermost lowered loops, each with what replaces it, in source order.
        self.regions: list[tuple[cst.For, list[cst.BaseStatement]]] = []
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
    ) -> list[cst.BaseStatement] | None:
        out: list[cst.BaseStatement] = []
        changed = False
        for index, statement in enumerate(statements):
            result = self.statement(statement, [*chain, Frame(statements, index, owner)])
            if result is None:
                out.append(statement)
            else:
                out.extend(result)
                changed = True
        return out if changed else None

    def statement(self, node: cst.BaseStatement, chain: list[Frame]) -> list[cst.BaseStatement] | None:
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
            then = self.block(body_statements(node), chain, node)
            orelse = node.orelse
            new_orelse: cst.If | cst.Else | None = None
            if isinstance(orelse, cst.If):
                result = self.statement(orelse, chain)
                new_orelse = result[0] if result else None  # type: ignore[assignment]
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
            return [node.with_changes(**changes)]
        if isinstance(node, (cst.With, cst.While)):
            inner = self.block(body_statements(node), chain, node)
            return None if inner is None else [node.with_changes(body=with_body(node.body, inner))]
        return None

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
    ) -> list[cst.BaseStatement] | None:
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
        body = self._split(header, statements, chain)
        if body is None:
            return None
        if loop.is_static:
            return self._static(loop, body, factor, step)
        for value in (loop.start, loop.stop):
            if value is not None and value.kind == "unresolved":
                self._note(PyptoProblem.PIPELINE_BOUNDS_UNRESOLVED, header.call, header.node, name=value.name)
        return self._dynamic(loop, body, factor, step)

    def _split(
        self, header: LoopHeader, statements: list[cst.BaseStatement], chain: list[Frame]
    ) -> _Body | None:
        loop_var = header.loop_var()
        if loop_var is None:
            self._note(
                PyptoProblem.PIPELINE_NOT_LOWERED,
                header.node.target,
                header.node,
                reason="the loop target is not a simple name",
            )
            return None
        iter_args = header.iter_args() or []
        yielded = None
        if carries_implicitly(header, self.strict, self.flow.block(list(statements)).defs, self.aliases):
            return self._implicit_body(header, statements, chain, loop_var, iter_args)
        if iter_args:
            yielded = trailing_yield(statements, self.aliases)
            init_values = header.init_values
            if (
                yielded is None
                or yielded.targets is None
                or init_values is None
                or len(init_values) != len(iter_args)
                or len(yielded.values) != len(iter_args)
                or len(yielded.targets) != len(iter_args)
            ):
                return None  # reported by the checks
        core = statements[:-1] if yielded is not None else list(statements)
        summary = self.flow.block(core)
        reassigned = summary.defs & {loop_var, *iter_args}
        if reassigned:
            names = ", ".join(f"`{name}`" for name in sorted(reassigned))
            reason = f"{names} is reassigned in the loop body"
            self._note(PyptoProblem.PIPELINE_NOT_LOWERED, header.node.target, header.node, reason=reason)
            return None
        deleted = deleted_names(core) & {loop_var, *iter_args}
        if deleted:
            names = ", ".join(f"`{name}`" for name in sorted(deleted))
            reason = f"{names} is deleted in the loop body"
            self._note(PyptoProblem.PIPELINE_NOT_LOWERED, header.node.target, header.node, reason=reason)
            return None
        shadowed = self.flow.reassigned(core, {loop_var, *iter_args}) if self.strict else set()
        if shadowed:
            # TL423: each stage would read the value from before the loop, not the previous
            # stage's; chaining the clones, as for a non-strict function, would change the program.
            names = ", ".join(f"`{name}`" for name in sorted(shadowed))
            reason = f"under strict_ssa the loop body's {names} is a new variable, not a carried value"
            self._note(PyptoProblem.PIPELINE_NOT_LOWERED, header.node.target, header.node, reason=reason)
            return None
        return self._body(header, core, summary, chain, yielded, loop_var, iter_args)

    def _body(
        self,
        header: LoopHeader,
        core: list[cst.BaseStatement],
        summary: Summary,
        chain: list[Frame],
        yielded: TrailingYield | None,
        loop_var: str,
        iter_args: list[str],
    ) -> _Body:
        candidates = summary.defs - summary.reads - self.flow.opaque - set(iter_args)
        candidates -= live_after(self.flow, chain, candidates)
        attrs = header.attrs() or {}
        flag = attrs.get("pipeline_double_buffer_c")
        double_buffer_c = isinstance(flag, cst.Name) and flag.value == "True"
        return _Body(core, yielded, loop_var, iter_args, candidates, double_buffer_c)

    def _implicit_body(
        self,
        header: LoopHeader,
        statements: list[cst.BaseStatement],
        chain: list[Frame],
        loop_var: str,
        iter_args: list[str],
    ) -> _Body | None:
        """`for i, (acc,) in pl.pipeline(..., init_values=(x,)): acc = pl.add(acc, 1.0)` in a
        non-strict function: each clone reassigns `acc` and the next clone reads it, which is
        what PyPTO's SSA conversion and the pass make of it; no yield is written."""
        core = list(statements)
        summary = self.flow.block(core)
        if loop_var in summary.defs:
            self._note(
                PyptoProblem.PIPELINE_NOT_LOWERED,
                header.node.target,
                header.node,
                reason=f"`{loop_var}` is reassigned in the loop body",
            )
            return None
        deleted = deleted_names(core) & {loop_var, *iter_args}
        if deleted:
            names = ", ".join(f"`{name}`" for name in sorted(deleted))
            self._note(
                PyptoProblem.PIPELINE_NOT_LOWERED,
                header.node.target,
                header.node,
                reason=f"{names} is deleted in the loop body",
            )
            return None
        body = self._body(header, core, summary, chain, None, loop_var, [])
        body.local -= set(iter_args)
        body.implicit = dict(zip(iter_args, header.init_values or (), strict=True))
        return body

    def _replicate(
        self,
        body: _Body,
        count: int,
        offset: Callable[[int], Substitute | None],
        seeds: list[Substitute] | None,
    ) -> tuple[list[cst.BaseStatement], list[cst.BaseExpression]]:
        """ReplicateBody: `count` clones in one new pipeline group."""
        group = self.group
        self.group += 1
        statements: list[cst.BaseStatement] = []
        yields: list[cst.BaseExpression] = []
        for stage in range(count):
            renames = {name: self.tokens.new(name) for name in body.local}
            substitutes: dict[str, Substitute] = {}
            moved = offset(stage)
            if moved is not None:
                substitutes[body.loop_var] = moved
            if stage == 0:
                if seeds is not None:
                    substitutes.update(zip(body.iter_args, seeds, strict=False))
            else:
                substitutes.update(
                    (name, Substitute(value)) for name, value in zip(body.iter_args, yields, strict=False)
                )
            rewriter = Rewriter(
                self.aliases,
                renames,
                substitutes,
                Tagging(f"{group}:{stage}", body.double_buffer_c, self.tiles.tiles),
            )
            templates = (
                body.templates(self.aliases, self.tokens.stem, self.tiles.tiles)
                if self.context.clone_templates
                else None
            )
            shared = Stage(rewriter, templates, body.core)
            statements.extend(shared.clones())  # type: ignore[arg-type]
            if body.yielded is not None:
                yields = [rewriter.expression(value) for value in body.yielded.values]
        return statements, yields

    def _main_offset(self, body: _Body, step: int) -> Callable[[int], Substitute | None]:
        def offset(stage: int) -> Substitute | None:
            if stage * step == 0:
                return None
            return Substitute(binop(cst.Name(body.loop_var), cst.Add(), int_node(stage * step)))

        return offset

    def _main_loop(
        self,
        loop: LoopPlan,
        body: _Body,
        factor: int,
        step: int,
        stop: cst.BaseExpression,
        targets: list[str] | None,
    ) -> tuple[cst.For, list[str] | None]:
        header = loop.header
        clones, yields = self._replicate(body, factor, self._main_offset(body, step), None)
        statements = list(clones)
        if body.yielded is not None:
            assert targets is not None
            statements.append(yield_line(body.yielded, targets, yields))
        start = header.start if header.start is not None else cst.Integer("0")
        call = main_call(header, start, stop, int_node(factor * step))
        return header.node.with_changes(iter=call, body=with_body(header.node.body, statements)), targets

    def _static(self, loop: LoopPlan, body: _Body, factor: int, step: int) -> list[cst.BaseStatement]:
        header = loop.header
        trips = loop.trip_count()
        if trips == 0:
            demoted = demoted_call(header, self.aliases)
            return [
                header.node.with_changes(
                    iter=demoted, body=with_body(header.node.body, body.core + _yield(body))
                )
            ]
        main_iters, rest = divmod(trips, factor)
        start = loop.start.value
        assert start is not None
        out: list[cst.BaseStatement] = []
        returns = body.yielded.targets if body.yielded is not None else None
        main_returns = returns
        if main_iters > 0:
            if rest and returns:
                main_returns = [self.tokens.new(f"{name}_main") for name in returns]
            stop = int_node(start + main_iters * factor * step)
            main, _ = self._main_loop(loop, body, factor, step, stop, main_returns)
            out.append(main)
        if rest:
            base = start + main_iters * factor * step

            def offset(stage: int) -> Substitute:
                return Substitute(int_node(base + stage * step), literal=True)

            if main_iters > 0:
                seeds = [Substitute(cst.Name(name)) for name in main_returns or ()]
            else:
                seeds = [seed(value) for value in loop.header.init_values or ()]
            tail, yields = self._replicate(body, rest, offset, seeds)
            bindings: list[cst.SimpleStatementLine] = []
            if main_iters == 0 and body.implicit:  # no loop binds the iter_args: see `implicit`
                count = len(body.core)
                fed = feed_seeds(self.flow, self.aliases, body.core, tail[:count], body.implicit)
                if fed is not None:
                    tail = [*fed[0], *tail[count:]]  # type: ignore[list-item]
                    bindings = fed[1]
                else:
                    tail = [assign(name, value) for name, value in body.implicit.items()] + tail
            if main_iters == 0 and tail:
                first = materialize(tail[0])
                assert isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
                tail[0] = first.with_changes(
                    leading_lines=[*blank_prefix(header.node.leading_lines), *first.leading_lines]
                )
            out.extend(tail)
            for name, value in zip(returns or (), yields, strict=False):
                out.append(assign(name, value))
            out.extend(bindings)
            if not out:
                out.append(
                    cst.SimpleStatementLine(
                        [cst.Pass()], leading_lines=blank_prefix(header.node.leading_lines)
                    )
                )
        return out

    def _dynamic(self, loop: LoopPlan, body: _Body, factor: int, step: int) -> list[cst.BaseStatement]:
        header = loop.header
        prefix = self.aliases.prefix
        start = header.start if header.start is not None else cst.Integer("0")
        stop = header.stop
        assert stop is not None
        main_end = self.tokens.new("unroll_main_end")
        remainder = self.tokens.new("unroll_rem")
        span = binop(stop, cst.Subtract(), start)
        trip = (
            span
            if step == 1
            else binop(binop(span, cst.Add(), int_node(step - 1)), cst.FloorDivide(), int_node(step))
        )
        main_iters = binop(trip, cst.FloorDivide(), int_node(factor))
        end_value = binop(start, cst.Add(), binop(main_iters, cst.Multiply(), int_node(factor * step)))
        if step == 1:
            rem_value = binop(stop, cst.Subtract(), cst.Name(main_end))
        else:
            rem_value = binop(trip, cst.Subtract(), binop(main_iters, cst.Multiply(), int_node(factor)))
        returns = body.yielded.targets if body.yielded is not None else None
        main_returns = [self.tokens.new(f"{name}_main") for name in returns] if returns else None
        main, _ = self._main_loop(loop, body, factor, step, cst.Name(main_end), main_returns)
        comments, blanks = header.node.leading_lines, blank_prefix(header.node.leading_lines)
        main = main.with_changes(leading_lines=comments[len(blanks) :])
        out: list[cst.BaseStatement] = [
            index_assign(prefix, main_end, end_value, blanks),
            main,
            index_assign(prefix, remainder, rem_value, ()),
        ]

        def offset(stage: int) -> Substitute:
            if stage * step == 0:
                return Substitute(cst.Name(main_end))
            return Substitute(binop(cst.Name(main_end), cst.Add(), int_node(stage * step)))

        seeds = [Substitute(cst.Name(name)) for name in main_returns or ()]
        inner: cst.If | None = None
        inner_returns: list[str] | None = None
        for count in range(factor - 1, 0, -1):
            clones, yields = self._replicate(body, count, offset, seeds)
            test = cst.Comparison(
                cst.Name(remainder), [cst.ComparisonTarget(cst.Equal(), cst.Integer(str(count)))]
            )
            then = list(clones)
            orelse: list[cst.BaseStatement] | None
            if returns is not None and body.yielded is not None:
                level = (
                    list(returns)
                    if count == 1
                    else [self.tokens.new(f"{name}_rem{count}") for name in returns]
                )
                then.append(yield_statement(self.aliases.prefix, level, yields))
                if inner is None:
                    orelse = [
                        yield_statement(
                            self.aliases.prefix, level, [cst.Name(name) for name in main_returns or ()]
                        )
                    ]
                else:
                    assert inner_returns is not None
                    orelse = [
                        inner,
                        yield_statement(
                            self.aliases.prefix, level, [cst.Name(name) for name in inner_returns]
                        ),
                    ]
                inner_returns = level
            else:
                orelse = None if inner is None else [inner]
            inner = cst.If(
                test=test,
                body=cst.IndentedBlock(then or [cst.SimpleStatementLine([cst.Pass()])]),
                orelse=cst.Else(cst.IndentedBlock(orelse)) if orelse else None,
            )
        assert inner is not None
        out.append(inner)
        return out


def _yield(body: _Body) -> list[cst.BaseStatement]:
    return [body.yielded.line] if body.yielded is not None else []
