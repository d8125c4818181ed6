"""`for` statements: which loops TileLang builds, and which Python unrolls."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.tilelang import loops
from tilecheck.tilelang.folding import binary
from tilecheck.tilelang.model import (
    Item,
    Loop,
    LoopKind,
    Malformed,
    Stmt,
    StmtKind,
)
from tilecheck.tilelang.scope import Flow, Frame, Sink
from tilecheck.tilelang.syntax import assigned_names, has_positional, suite_body, target_names
from tilecheck.tilelang.values import (
    UNKNOWN,
    LoopVarList,
    PyConst,
    ShapeValue,
    TirExpr,
    Value,
    Var,
    VarKind,
    constness_of,
)

if TYPE_CHECKING:
    from tilecheck.tilelang.statements import KernelInterpreter

MAX_UNROLL = 64  # Python-level loops longer than this are modelled once, uncertainly


class LoopBuilder:
    """`for` statements: TIR loops from TileLang's constructors and `range`, Python-level
    unrolling of lists and tuples (reference §2.2, §2.3). Loop bodies are interpreted by the
    kernel interpreter that owns this builder."""

    def __init__(self, interpreter: KernelInterpreter) -> None:
        self.interpreter = interpreter
        self.evaluator = interpreter.evaluator

    def for_statement(self, statement: cst.For, frame: Frame, out: list[Item]) -> None:
        iterable = statement.iter
        if isinstance(iterable, cst.Call):
            api = self.evaluator.api(iterable.func, frame)
            if api in loops.CONSTRUCTORS:
                self.tir_loop(statement, loops.match(api, iterable), frame, out)
                return
            if (
                isinstance(iterable.func, cst.Name)
                and iterable.func.value == "range"
                and frame.env.lookup("range") is None
            ):
                constructor = loops.match("serial", iterable)
                constructor.api = "range"
                constructor.kind = LoopKind.RANGE
                self.tir_loop(statement, constructor, frame, out)
                return
        sink = Sink(out)
        sequence = self.evaluator.value(iterable, frame, sink)
        elements = sequence_elements(sequence)
        flow = frame.flow
        if flow is None:  # inside a TIR construct: the Python loop still unrolls
            flow = Flow()
            frame = Frame(frame.env, frame.top, frame.origin, frame.certain, frame.depth, flow, frame.guards)
        if elements is not None and len(elements) <= MAX_UNROLL:
            flow.loops += 1
            try:
                for element in elements:  # Python-level unrolling: one copy of the body each
                    self.bind_target(statement.target, element, frame)
                    self.interpreter.block(suite_body(statement.body), frame, out)
                    if flow.exit in ("break", "continue"):
                        stop, flow.exit = flow.exit == "break", None
                        if stop:
                            break
                    elif flow.exit == "return":
                        break
            finally:
                flow.loops -= 1
            return
        # Unknown length (or inside a TIR construct): the body runs an unknown number of times.
        self.bind_target(statement.target, UNKNOWN, frame)
        inner_flow = Flow(loops=flow.loops + 1)
        inner = Frame(frame.env, frame.top, frame.origin, False, frame.depth, inner_flow, frame.guards)
        self.interpreter.block(suite_body(statement.body), inner, out)
        for name in assigned_names(statement):
            frame.env.bind(name, UNKNOWN)
        if inner_flow.exit == "return":
            frame.certain = False

    def bind_target(self, target: cst.BaseExpression, value: Value, frame: Frame) -> None:
        if isinstance(target, cst.Name):
            frame.env.bind(target.value, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            items = sequence_elements(value)
            for index, element in enumerate(target.elements):
                part = items[index] if items is not None and len(items) == len(target.elements) else UNKNOWN
                self.bind_target(element.value, part, frame)

    def tir_loop(
        self, statement: cst.For, ctor: loops.ConstructorCall, frame: Frame, out: list[Item]
    ) -> None:
        sink = Sink(out)
        named = {k: self.evaluator.value(v, frame, sink) for k, v in ctor.named.items()}
        extents = [self.evaluator.value(e, frame, sink) for e in ctor.extents]
        targets = target_names(statement.target)
        body = suite_body(statement.body)
        if ctor.kind is LoopKind.VECTORIZED and (ctor.extra or "step" in ctor.named):
            # `T.vectorized` has no step: TileLang raises TypeError (reference §2.2).
            detail = "positional" if ctor.extra else "keyword"
            self.interpreter.state.model.malformed.append(
                Malformed(
                    "vectorized-step", frame.site(ctor.call), "T." + ctor.api, frame.certain, detail=detail
                )
            )
        if ctor.starred or targets is None:
            self.bind_target(statement.target, UNKNOWN, frame)
            self.interpreter.block(body, frame.uncertain(), out)
            return
        annotations = named.get("annotations")
        if ctor.kind is LoopKind.PERSISTENT:
            self.persistent(statement, ctor, named, targets, frame, out, sink)
            return
        if ctor.kind in (LoopKind.PARALLEL, LoopKind.GRID) and ctor.api in ("Parallel", "grid"):
            dims: list[tuple[Value, Value]] = [(PyConst(0), e) for e in extents]
            range_nodes: list[cst.CSTNode] = list(ctor.extents)
        else:
            start = named.get("start")
            stop = named.get("stop")
            if start is None:
                self.bind_target(statement.target, UNKNOWN, frame)
                self.interpreter.block(body, frame.uncertain(), out)
                return
            if stop is None:
                start, stop = PyConst(0), start
            dims = [(start, extent_between(start, stop))]
            range_nodes = [ctor.call]
        list_target: Malformed | None = None  # one target over several extents
        if len(targets) != len(dims):
            # TileLang fails to build this loop (e.g. two targets for T.Parallel(a)), unless it is
            # one target over T.Parallel(a, b): that builds the nest, the target being the list
            # of its loop variables, until the target is used as one index among others.
            target_value: Value = UNKNOWN
            if ctor.api == "Parallel":
                malformed = Malformed(
                    "parallel-targets",
                    frame.site(ctor.call),
                    "T.Parallel",
                    frame.certain,
                    targets=len(targets),
                    extents=len(dims),
                    unpacking=not isinstance(statement.target, cst.Name),
                )
                self.interpreter.state.model.malformed.append(malformed)
                if isinstance(statement.target, cst.Name):
                    list_target = malformed
                    targets = targets * len(dims)
            if list_target is None:
                self.bind_target(statement.target, target_value, frame)
                self.interpreter.block(body, frame.uncertain(), out)
                return
        request = None
        if ctor.kind is LoopKind.PIPELINED or (
            annotations is not None and ctor.kind is not LoopKind.PARALLEL
        ):
            request = loops.pipeline_request(
                named.get("num_stages"),
                named.get("order"),
                named.get("stage"),
                annotations,
                positional_stages=has_positional(ctor.call, 2) and ctor.kind is LoopKind.PIPELINED,
            )
        step = named.get("step")
        stepped = step is not None and not (isinstance(step, PyConst) and step.value == 1)
        parent = out
        first: Loop | None = None
        for dim, ((lo, extent), name) in enumerate(zip(dims, targets, strict=True)):
            loop = Loop(
                frame.site(ctor.call),
                kind=ctor.kind,
                api=("" if ctor.api == "range" else "T.") + ctor.api,
                dim=dim,
                ndim=len(dims),
                min=lo,
                extent=extent,
                step=step,
                constness=constness_of(lo).join(constness_of(extent)),
                pipeline=request if dim == 0 else None,
                call=ctor.call,
                range_node=range_nodes[dim] if dim < len(range_nodes) else ctor.call,
                statement=statement,
                arguments=named,
            )
            var = Var(name if not stepped else "_tmp", VarKind.LOOP, loop=loop)
            loop.var = var
            if list_target is not None:
                pass  # the target is bound to the list below
            elif stepped:
                # A stepped serial loop iterates `_tmp` and binds `i = start + _tmp * step`.
                bound = Var(name, VarKind.BIND, hidden=frozenset((var,)))
                frame.env.bind(name, TirExpr.of_var(bound))
                frame.add(loop.body, Stmt(frame.site(statement.target), kind=StmtKind.BIND))
            else:
                frame.env.bind(name, TirExpr.of_var(var))
            frame.add(parent, loop)
            parent = loop.body
            first = first or loop
        if first is not None:
            first.header_accesses = sink.accesses
        if list_target is None:
            self.interpreter.block(body, frame.tir(), parent)
            return
        frame.env.bind(targets[0], LoopVarList(list_target))
        malformed_before = len(self.interpreter.state.model.malformed)
        self.interpreter.block(body, frame.tir(), parent)
        if list_target.scalar_use is not None and first is not None:
            # TileLang fails to build the kernel here: nothing in the nest is proven to exist.
            _demote([first])
            for later in self.interpreter.state.model.malformed[malformed_before:]:
                later.certain = False

    def persistent(
        self,
        statement: cst.For,
        ctor: loops.ConstructorCall,
        named: dict[str, Value],
        targets: list[str],
        frame: Frame,
        out: list[Item],
        sink: Sink,
    ) -> None:
        """`T.Persistent` emits coordinate Binds, then a serial wave loop guarded by an `if`."""
        for name in targets:
            var = Var(name, VarKind.BIND)
            frame.env.bind(name, TirExpr.of_var(var))
            frame.add(out, Stmt(frame.site(statement.target), kind=StmtKind.BIND))
        request = loops.pipeline_request(named.get("num_stages"), None, None, named.get("annotations"))
        loop = Loop(
            frame.site(ctor.call),
            kind=LoopKind.PERSISTENT,
            api="T.Persistent",
            min=PyConst(0),
            extent=UNKNOWN,
            pipeline=request,
            call=ctor.call,
            statement=statement,
        )
        loop.var = Var("w", VarKind.LOOP, loop=loop)
        frame.add(out, loop)
        guard = Stmt(frame.site(statement), kind=StmtKind.IF, label="the persistent-loop guard")
        frame.add(loop.body, guard)
        self.interpreter.block(suite_body(statement.body), frame.tir(), guard.body)


def extent_between(start: Value, stop: Value) -> Value:
    return binary(cst.Subtract, stop, start)


def sequence_elements(value: Value) -> list[Value] | None:
    if isinstance(value, PyConst) and isinstance(value.value, (tuple, list)):
        return [v if isinstance(v, Value) else PyConst(v) for v in value.value]
    if isinstance(value, ShapeValue) and value.buffer.shape is not None:
        return list(value.buffer.shape)
    return None


def _demote(items: list[Item]) -> None:
    """Mark a built subtree as only possibly present."""
    for item in items:
        item.certain = False
        item.conditional = False
        if isinstance(item, Loop):
            _demote(item.body)
        elif isinstance(item, Stmt):
            _demote(item.body)
            _demote(item.orelse)
