"""What replaces one pipeline loop (PyPTO's LowerPipelineLoops, reference `pypto-lowering.md`
§1): a main loop of F clones per iteration marked `stage=1`, then a flattened static tail or the
dynamic `unroll_rem` cascade of the remaining trips. Each clone is one pipeline group's stage.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from tilecheck.pypto.clone import Rewriter, Substitute, Tagging
from tilecheck.pypto.cstutil import binop, int_node
from tilecheck.pypto.dataflow import Dataflow
from tilecheck.pypto.dsl import Aliases
from tilecheck.pypto.implicit import assign, feed_seeds
from tilecheck.pypto.loop_body import LoopBody
from tilecheck.pypto.loops import LoopPlan
from tilecheck.pypto.membership import TileFacts
from tilecheck.pypto.names import Tokens
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
from tilecheck.pypto.stage import LoweredStatement, Stage, in_tree, materialize


class Unroller:
    """Writes the lowered form of the pipeline loops of one function."""

    def __init__(
        self, aliases: Aliases, tokens: Tokens, tiles: TileFacts, flow: Dataflow, clone_templates: bool
    ) -> None:
        self.aliases = aliases
        self.tokens = tokens
        self.tiles = tiles
        self.flow = flow
        self.clone_templates = clone_templates  # False: every clone is rewritten in full
        self.group = 0  # pipeline group ids restart in every function

    def _replicate(
        self,
        body: LoopBody,
        count: int,
        offset: Callable[[int], Substitute | None],
        seeds: list[Substitute] | None,
    ) -> tuple[list[LoweredStatement], list[cst.BaseExpression]]:
        """ReplicateBody: `count` clones in one new pipeline group."""
        group = self.group
        self.group += 1
        statements: list[LoweredStatement] = []
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
                if self.clone_templates
                else None
            )
            shared = Stage(rewriter, templates, body.core)
            statements.extend(shared.clones())
            if body.yielded is not None:
                yields = [rewriter.expression(value) for value in body.yielded.values]
        return statements, yields

    def _main_offset(self, body: LoopBody, step: int) -> Callable[[int], Substitute | None]:
        def offset(stage: int) -> Substitute | None:
            if stage * step == 0:
                return None
            return Substitute(binop(cst.Name(body.loop_var), cst.Add(), int_node(stage * step)))

        return offset

    def _main_loop(
        self,
        loop: LoopPlan,
        body: LoopBody,
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

    def static(self, loop: LoopPlan, body: LoopBody, factor: int, step: int) -> list[LoweredStatement]:
        """Static bounds: the main loop over the whole groups of trips, then the flattened tail."""
        header = loop.header
        trips = loop.trip_count()
        if trips == 0:
            demoted = demoted_call(header, self.aliases)
            return [
                header.node.with_changes(
                    iter=demoted, body=with_body(header.node.body, body.core + body.trailing_yield())
                )
            ]
        main_iters, rest = divmod(trips, factor)
        start = loop.start.value
        assert start is not None
        out: list[LoweredStatement] = []
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
                    tail = [*fed[0], *tail[count:]]
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

    def dynamic(self, loop: LoopPlan, body: LoopBody, factor: int, step: int) -> list[LoweredStatement]:
        """Runtime bounds: the main loop up to `unroll_main_end`, then one branch per remainder."""
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
        out: list[LoweredStatement] = [
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
                body=cst.IndentedBlock(in_tree(then) or [cst.SimpleStatementLine([cst.Pass()])]),
                orelse=cst.Else(cst.IndentedBlock(orelse)) if orelse else None,
            )
        assert inner is not None
        out.append(inner)
        return out
