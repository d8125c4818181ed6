"""`with` statements as TileLang's eager builder enters them, one item at a time: `with A as a,
B as b:` is `with A as a:` around `with B as b:`. `T.Kernel` binds its block indices, TileLang's
frames (`T.sblock`, `T.ws`, ...) are block statements, and the event scopes of TileLang's own
tools emit one statement on entry and one on exit; any other context manager may open frames or
emit statements tilecheck cannot see, so what it wraps is only possibly as written."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.tilelang.model import Item, Stmt, StmtKind
from tilecheck.tilelang.scope import Frame, Sink, bind_python
from tilecheck.tilelang.syntax import suite_body
from tilecheck.tilelang.values import UNKNOWN, PyConst

if TYPE_CHECKING:
    from tilecheck.tilelang.statements import KernelInterpreter

# Context managers whose `__enter__` and `__exit__` each evaluate one call (`T.evaluate`) and
# open no frame, as TileLang 0.1.15 defines them (`tilelang/tools/cuda/iket/frontend.py`,
# `_RangeScope`: `range_push` on entry, `range_pop` on exit).
EVENT_SCOPES = {"tilelang.tools.cuda.iket.range": "IKET range"}


def with_statement(
    interpreter: KernelInterpreter, statement: cst.With, frame: Frame, out: list[Item]
) -> None:
    _enter(interpreter, statement, statement.items, frame, out)


def _enter(
    interpreter: KernelInterpreter,
    statement: cst.With,
    items: Sequence[cst.WithItem],
    frame: Frame,
    out: list[Item],
) -> None:
    if not items:
        interpreter.block(suite_body(statement.body), frame, out)
        return
    item, rest = items[0], items[1:]
    call = item.item
    evaluator = interpreter.evaluator
    # A block statement stands at the `with` when it is the only item (its whole header).
    node: cst.CSTNode = statement if len(statement.items) == 1 else call
    if isinstance(call, cst.Call):
        api = evaluator.api(call.func, frame)
        if api == "Kernel":
            values = evaluator.arguments(call, frame, Sink(out))
            kernel = interpreter.state.kernel
            for arg, value in zip(call.args, values, strict=False):
                if kernel is not None and arg.keyword is not None and arg.keyword.value == "threads":
                    number = value.value if isinstance(value, PyConst) else None
                    kernel.threads = number if isinstance(number, int) else None
            if item.asname is not None:
                interpreter.bind_block_indices(item.asname.name, frame)
            _enter(interpreter, statement, rest, frame, out)
            return
        if api is not None:
            sink = Sink(out)
            evaluator.arguments(call, frame, sink)
            stmt = interpreter.statement(StmtKind.BLOCK, node, frame, out, sink)
            stmt.api = api
            if item.asname is not None:
                bind_python(item.asname.name, UNKNOWN, frame.env)
            _enter(interpreter, statement, rest, frame.tir(), stmt.body)
            return
        scope = EVENT_SCOPES.get(str(evaluator.resolve(call.func, frame)))
        if scope is not None:
            sink = Sink(out)
            evaluator.arguments(call, frame, sink)
            interpreter.statement(StmtKind.EVAL, call, frame, out, sink).label = f"the {scope} start"
            if item.asname is not None:
                bind_python(item.asname.name, UNKNOWN, frame.env)
            _enter(interpreter, statement, rest, frame, out)
            frame.add(out, Stmt(frame.site(call), kind=StmtKind.EVAL, label=f"the {scope} end"))
            return
    stmt = interpreter.statement(StmtKind.BLOCK, node, frame, out, Sink(out), certain=False)
    inner = frame.uncertain()
    _enter(interpreter, statement, rest, inner, stmt.body)
    frame.absorb(inner)
