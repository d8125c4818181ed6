"""A small interpreter for DSL functions, with stub `pl` operations that record every call.

It gives loops PyPTO's IR semantics rather than Python's: a loop with `init_values` carries the
values its body yields, and its return vars hold the init values when it runs zero times. Every
`pl.<op>(...)` call other than `pl.const`/`pl.yield_` is appended to the trace with its
arguments (the `attrs=` keyword excluded, since lowering adds membership tags) and returns a
structural value, so two runs compare equal exactly when they issue the same calls with the same
offsets in the same order.

With `quirk=True`, a `pl.pipeline` loop with stage > 1 and runtime bounds iterates the sequence
the lowered code runs (reference §1.5): identical to `range` while stop >= start; when stop <
start the main loop runs zero times but the `unroll_rem` cascade may run up to F-1 clones.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

_ITERATORS = {"range", "pipeline", "parallel", "unroll"}


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


def lowered_sequence(start: int, stop: int, step: int, factor: int) -> list[int]:
    """The loop-variable values the pass's dynamic lowering runs, in order (Python `//`)."""
    trip = stop - start if step == 1 else (stop - start + step - 1) // step
    main_iters = trip // factor
    main_end = start + main_iters * factor * step
    values = [base + k * step for base in range(start, main_end, factor * step) for k in range(factor)]
    remainder = stop - main_end if step == 1 else trip - main_iters * factor
    if 1 <= remainder <= factor - 1:
        values += [main_end + k * step for k in range(remainder)]
    return values


@dataclass
class Run:
    trace: list[tuple[Any, ...]] = field(default_factory=list)
    result: Any = None


def _is_literal(node: ast.expr | None) -> bool:
    if node is None:
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _is_literal(node.operand)
    return False


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value


class Interpreter:
    def __init__(self, source: str, function: str = "f", quirk: bool = False) -> None:
        tree = ast.parse(source)
        self.function = next(
            node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == function
        )
        self.quirk = quirk

    def run(self, **arguments: Any) -> Run:
        run = Run()
        env = dict(arguments)
        try:
            self._block(self.function.body, env, run)
        except _Return as returned:
            run.result = returned.value
        return run

    # -- statements ------------------------------------------------------------------------

    def _block(self, statements: list[ast.stmt], env: dict[str, Any], run: Run) -> None:
        for statement in statements:
            self._statement(statement, env, run)

    def _statement(self, node: ast.stmt, env: dict[str, Any], run: Run) -> None:
        if isinstance(node, ast.Assign):
            value = self._expr(node.value, env, run)
            for target in node.targets:
                self._bind(target, value, env)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._bind(node.target, self._expr(node.value, env, run), env)
        elif isinstance(node, ast.AugAssign):
            current = self._expr(node.target, env, run)
            self._bind(node.target, self._binary(node.op, current, self._expr(node.value, env, run)), env)
        elif isinstance(node, ast.Expr):
            self._expr(node.value, env, run)
        elif isinstance(node, ast.Return):
            raise _Return(self._expr(node.value, env, run) if node.value is not None else None)
        elif isinstance(node, ast.If):
            branch = node.body if self._expr(node.test, env, run) else node.orelse
            self._block(branch, env, run)
        elif isinstance(node, ast.For):
            self._for(node, env, run)
        elif isinstance(node, ast.With):
            for item in node.items:
                self._expr(item.context_expr, env, run)
            self._block(node.body, env, run)
        elif isinstance(node, ast.Pass):
            pass
        else:
            raise NotImplementedError(type(node).__name__)

    def _bind(self, target: ast.expr, value: Any, env: dict[str, Any]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = list(value)
            assert len(values) == len(target.elts)
            for element, item in zip(target.elts, values, strict=False):
                self._bind(element, item, env)
        else:
            raise NotImplementedError(type(target).__name__)

    def _for(self, node: ast.For, env: dict[str, Any], run: Run) -> None:
        call = node.iter
        assert isinstance(call, ast.Call) and self._member(call.func) in _ITERATORS
        kind = self._member(call.func)
        positional = [self._expr(arg, env, run) for arg in call.args[:3]]
        start, stop, step = 0, positional[0], 1
        if len(positional) >= 2:
            start, stop = positional[0], positional[1]
        if len(positional) >= 3:
            step = positional[2]
        keywords = {keyword.arg: keyword.value for keyword in call.keywords}
        stage = self._expr(keywords["stage"], env, run) if "stage" in keywords else 1
        static = len(call.args) < 2 or (_is_literal(call.args[0]) and _is_literal(call.args[1]))
        if self.quirk and kind == "pipeline" and stage > 1 and not static:
            values = lowered_sequence(start, stop, step, stage)
        else:
            values = list(range(start, stop, step))
        body = node.body
        if "init_values" in keywords:
            carried = list(self._expr(keywords["init_values"], env, run))
            assert isinstance(node.target, ast.Tuple)
            loop_var, iter_args = node.target.elts
            last = body[-1]
            yields = isinstance(last, ast.Assign) and isinstance(last.value, ast.Call)
            if not (yields and self._member(last.value.func) == "yield_"):  # type: ignore[union-attr]
                self._carry_by_reassignment(node, values, carried, env, run)
                return
            assert isinstance(last, ast.Assign) and isinstance(last.value, ast.Call)
            for value in values:
                self._bind(loop_var, value, env)
                self._bind(iter_args, carried, env)
                self._block(body[:-1], env, run)
                carried = [self._expr(arg, env, run) for arg in last.value.args]
            self._bind(last.targets[0], carried[0] if len(carried) == 1 else tuple(carried), env)
        else:
            for value in values:
                self._bind(node.target, value, env)
                self._block(body, env, run)

    def _carry_by_reassignment(
        self, node: ast.For, values: list[int], carried: list[Any], env: dict[str, Any], run: Run
    ) -> None:
        """A non-strict function's loop without a yield: what SSA conversion makes of it. Each
        iteration starts from the iter_args' last values; after the loop their names hold them."""
        assert isinstance(node.target, ast.Tuple)
        loop_var, iter_args = node.target.elts
        assert isinstance(iter_args, ast.Tuple)
        names = [element.id for element in iter_args.elts if isinstance(element, ast.Name)]
        for value in values:
            self._bind(loop_var, value, env)
            env.update(zip(names, carried, strict=True))
            self._block(node.body, env, run)
            carried = [env[name] for name in names]
        env.update(zip(names, carried, strict=True))

    # -- expressions -----------------------------------------------------------------------

    def _member(self, node: ast.expr) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id == "pl":
            return ".".join(reversed(parts))
        return None

    def _binary(self, op: ast.operator, left: Any, right: Any) -> Any:
        if isinstance(left, int) and isinstance(right, int):
            if isinstance(op, ast.Add):
                return left + right
            if isinstance(op, ast.Sub):
                return left - right
            if isinstance(op, ast.Mult):
                return left * right
            if isinstance(op, ast.FloorDiv):
                return left // right
            if isinstance(op, ast.Mod):
                return left % right
        return ("binop", type(op).__name__, left, right)

    def _expr(self, node: ast.expr, env: dict[str, Any], run: Run) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.BinOp):
            return self._binary(node.op, self._expr(node.left, env, run), self._expr(node.right, env, run))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            value = self._expr(node.operand, env, run)
            return -value if isinstance(value, int) else ("neg", value)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left = self._expr(node.left, env, run)
            right = self._expr(node.comparators[0], env, run)
            operator = type(node.ops[0])
            return {
                ast.Eq: left == right,
                ast.NotEq: left != right,
                ast.Lt: left < right if isinstance(left, int) else False,
                ast.LtE: left <= right if isinstance(left, int) else False,
                ast.Gt: left > right if isinstance(left, int) else False,
                ast.GtE: left >= right if isinstance(left, int) else False,
            }[operator]
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self._expr(element, env, run) for element in node.elts)
        if isinstance(node, ast.Slice):
            return self._slice(node, env, run)
        if isinstance(node, ast.Dict):
            return tuple(
                (self._expr(k, env, run), self._expr(v, env, run))
                for k, v in zip(node.keys, node.values, strict=False)
            )  # type: ignore[arg-type]
        if isinstance(node, ast.Attribute):
            member = self._member(node)
            if member is not None:
                return "pl." + member
            return ("attr", self._expr(node.value, env, run), node.attr)
        if isinstance(node, ast.Subscript):
            value = self._expr(node.value, env, run)
            index = self._slice(node.slice, env, run)
            run.trace.append(("getitem", value, index))
            return ("getitem", value, index)
        if isinstance(node, ast.Call):
            return self._call(node, env, run)
        raise NotImplementedError(type(node).__name__)

    def _slice(self, node: ast.expr, env: dict[str, Any], run: Run) -> Any:
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return ("slice", *(self._expr(p, env, run) if p is not None else None for p in parts))
        return self._expr(node, env, run)

    def _call(self, node: ast.Call, env: dict[str, Any], run: Run) -> Any:
        op = self._member(node.func)
        args = tuple(_freeze(self._expr(arg, env, run)) for arg in node.args)
        if op == "const":
            return args[0]
        if op == "yield_":
            return args[0] if len(args) == 1 else args
        kwargs = tuple(
            (keyword.arg, _freeze(self._expr(keyword.value, env, run)))
            for keyword in node.keywords
            if keyword.arg != "attrs"
        )
        name = op if op is not None else ast.unparse(node.func)
        run.trace.append((name, args, kwargs))
        return ("value", name, args, kwargs)
