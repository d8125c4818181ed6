"""The PyPTO DSL as tilecheck sees it: which names mean `pypto.language`, which functions are
DSL functions, and what a `for ... in pl.<iterator>(...)` header says.

Everything is read from the libcst tree; nothing is imported. Member names are reported
relative to `pypto.language`: `pl.pipeline` is `"pipeline"`, `pl.tile.load` is `"tile.load"`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from tilecheck.tilelang.imports import dotted_name
from tilecheck.tilelang.syntax import string_value, target_names

LANGUAGE = "pypto.language"
ITERATORS = ("pipeline", "range", "parallel", "unroll")
# `for (a, b) in pl.while_(init_values=(...)):` carries values too, but its header has no loop
# variable or bounds and its parser takes only `init_values` (it ignores every other keyword),
# so it is not a `LoopHeader`: `while_iter_args` reads what it carries.
WHILE_ITERATOR = "while_"
# Keywords `_parse_range_keyword` accepts for every iterator, and the hint list per iterator.
ACCEPTED_KEYWORDS = frozenset({"init_values", "chunk", "chunk_policy", "stage", "attrs"})
SUPPORTED_KEYWORDS = {
    "range": ("init_values", "chunk", "chunk_policy", "attrs"),
    "parallel": ("init_values", "chunk", "chunk_policy", "attrs"),
    "unroll": ("init_values", "attrs"),
    "pipeline": ("init_values", "stage", "attrs"),
}
_FUNCTION_DECORATORS = frozenset({"function", "jit", "jit.inline"})


@dataclass
class Aliases:
    """Local spellings of `pypto.language` and of names imported from it."""

    prefixes: set[str] = field(default_factory=set)  # "pl", "pypto.language"
    members: dict[str, str] = field(default_factory=dict)  # local name -> member

    def member(self, node: cst.BaseExpression) -> str | None:
        name = dotted_name(node)
        if name is None:
            return None
        for prefix in self.prefixes:
            if name.startswith(prefix + "."):
                return name[len(prefix) + 1 :]
        head, _, rest = name.partition(".")
        if head in self.members:
            return self.members[head] + ("." + rest if rest else "")
        return None

    @property
    def prefix(self) -> str:
        """The spelling used for generated code (`pl` in practice)."""
        return min(self.prefixes, key=len) if self.prefixes else "pl"


def find_aliases(module: cst.Module) -> Aliases:
    aliases = Aliases()
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    name = dotted_name(alias.name)
                    if name == LANGUAGE:
                        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                            aliases.prefixes.add(alias.asname.name.value)
                        else:
                            aliases.prefixes.add(LANGUAGE)
            elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
                source = dotted_name(small.module)
                if isinstance(small.names, cst.ImportStar):
                    continue
                for alias in small.names:
                    asname = alias.asname.name if alias.asname else None
                    local = asname.value if isinstance(asname, cst.Name) else None
                    imported = dotted_name(alias.name)
                    if imported is None:
                        continue
                    local = local or imported
                    if source == "pypto" and imported == "language":
                        aliases.prefixes.add(local)
                    elif source == LANGUAGE:
                        aliases.members[local] = imported
                    elif source is not None and source.startswith(LANGUAGE + "."):
                        aliases.members[local] = source[len(LANGUAGE) + 1 :] + "." + imported
    return aliases


def _decorator_member(decorator: cst.Decorator, aliases: Aliases) -> str | None:
    target = decorator.decorator
    if isinstance(target, cst.Call):
        target = target.func
    return aliases.member(target)


def is_dsl_function(node: cst.FunctionDef, aliases: Aliases) -> bool:
    return any(_decorator_member(d, aliases) in _FUNCTION_DECORATORS for d in node.decorators)


def is_strict_ssa(node: cst.FunctionDef, aliases: Aliases) -> bool:
    """`@pl.function(strict_ssa=True)`: the parser rejects reassignment (the default allows it)."""
    for decorator in node.decorators:
        call = decorator.decorator
        if isinstance(call, cst.Call) and _decorator_member(decorator, aliases) in _FUNCTION_DECORATORS:
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "strict_ssa":
                    return not (isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None"))
    return False


def carries_implicitly(header: LoopHeader, strict: bool, defs: set[str], aliases: Aliases) -> bool:
    """A loop whose iter_args are reassigned in its body, with no `pl.yield_`, in a function
    that allows reassignment: PyPTO's SSA conversion makes each iter_arg's last value the
    loop's yield (and `return acc` after the loop its result), so the pass lowers it. In a
    strict function the parser rejects the reassignment instead."""
    iter_args = header.iter_args()
    if strict or not iter_args or header.init_values is None or len(header.init_values) != len(iter_args):
        return False
    if trailing_yield(body_statements(header.node), aliases) is not None:
        return False
    return bool(defs & set(iter_args))


@dataclass(frozen=True)
class FunctionSite:
    """A DSL function and the chain of module/class bodies that holds it (for rebuilding)."""

    node: cst.FunctionDef
    path: tuple[int, ...]  # indices: module.body[i], then class body[j], ...


def dsl_functions(module: cst.Module, aliases: Aliases) -> list[FunctionSite]:
    found: list[FunctionSite] = []
    _walk_sites(module.body, (), aliases, found)
    return found


def _walk_sites(
    body: Sequence[cst.BaseStatement], path: tuple[int, ...], aliases: Aliases, found: list[FunctionSite]
) -> None:
    # A module-level function, not a closure: a recursive closure is a reference cycle, which
    # would keep the whole tree alive until the cyclic collector runs (see `api.lower_source`).
    for index, statement in enumerate(body):
        if isinstance(statement, cst.FunctionDef):
            if is_dsl_function(statement, aliases):
                found.append(FunctionSite(statement, (*path, index)))
        elif isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
            _walk_sites(statement.body.body, (*path, index), aliases, found)


def replace_functions(module: cst.Module, replacements: dict[tuple[int, ...], cst.FunctionDef]) -> cst.Module:
    """Put rebuilt functions back, touching only the containers on their paths."""
    if not replacements:
        return module
    return module.with_changes(body=_rebuild(tuple(module.body), (), replacements))


def _rebuild(
    body: Sequence[cst.BaseStatement],
    prefix: tuple[int, ...],
    replacements: dict[tuple[int, ...], cst.FunctionDef],
) -> tuple[cst.BaseStatement, ...]:
    items = list(body)
    for index, statement in enumerate(items):
        here = (*prefix, index)
        if here in replacements:
            items[index] = replacements[here]
        elif isinstance(statement, cst.ClassDef) and any(p[: len(here)] == here for p in replacements):
            block = statement.body
            assert isinstance(block, cst.IndentedBlock)
            rebuilt = _rebuild(block.body, here, replacements)
            items[index] = statement.with_changes(body=block.with_changes(body=rebuilt))
    return tuple(items)


@dataclass
class LoopHeader:
    """`for <target> in pl.<kind>(<args>, <keywords>):`."""

    node: cst.For
    call: cst.Call
    kind: str
    positional: list[cst.Arg]
    keywords: dict[str, cst.Arg]

    @property
    def start(self) -> cst.BaseExpression | None:
        return self.positional[0].value if len(self.positional) >= 2 else None

    @property
    def stop(self) -> cst.BaseExpression | None:
        if len(self.positional) == 1:
            return self.positional[0].value
        return self.positional[1].value if len(self.positional) >= 2 else None

    @property
    def step(self) -> cst.BaseExpression | None:
        return self.positional[2].value if len(self.positional) >= 3 else None

    def keyword(self, name: str) -> cst.BaseExpression | None:
        arg = self.keywords.get(name)
        return arg.value if arg is not None else None

    @property
    def init_values(self) -> list[cst.BaseExpression] | None:
        value = self.keyword("init_values")
        if isinstance(value, (cst.Tuple, cst.List)):
            return [element.value for element in value.elements]
        return None

    def loop_var(self) -> str | None:
        target = self.node.target
        if isinstance(target, cst.Name):
            return target.value
        if isinstance(target, cst.Tuple) and target.elements:
            first = target.elements[0].value
            return first.value if isinstance(first, cst.Name) else None
        return None

    def iter_args(self) -> list[str] | None:
        """Names of `for i, (a, b) in ...`; None when the target has no iter_args tuple."""
        target = self.node.target
        if not isinstance(target, cst.Tuple) or len(target.elements) != 2:
            return None
        inner = target.elements[1].value
        if not isinstance(inner, (cst.Tuple, cst.List)):
            return None
        names = []
        for element in inner.elements:
            if not isinstance(element.value, cst.Name):
                return None
            names.append(element.value.value)
        return names

    def attrs(self) -> dict[str, cst.BaseExpression] | None:
        value = self.keyword("attrs")
        if not isinstance(value, cst.Dict):
            return None
        found: dict[str, cst.BaseExpression] = {}
        for element in value.elements:
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                key = string_value(element.key)
                if isinstance(key, str):
                    found[key] = element.value
        return found


def loop_header(node: cst.For, aliases: Aliases) -> LoopHeader | None:
    call = node.iter
    if not isinstance(call, cst.Call) or node.asynchronous is not None:
        return None
    kind = aliases.member(call.func)
    if kind not in ITERATORS:
        return None
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    keywords = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
    return LoopHeader(node, call, kind, positional, keywords)


def while_iter_args(node: cst.For, aliases: Aliases) -> list[str] | None:
    """The names a `for (a, b) in pl.while_(init_values=(...)):` loop carries; None otherwise."""
    call = node.iter
    if not isinstance(call, cst.Call) or aliases.member(call.func) != WHILE_ITERATOR:
        return None
    target = node.target
    elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else ()
    return [element.value.value for element in elements if isinstance(element.value, cst.Name)]


def body_statements(
    node: cst.For | cst.If | cst.With | cst.While | cst.Else | cst.FunctionDef | cst.Try | cst.TryStar,
) -> list[cst.BaseStatement]:
    return suite_statements(node.body)


def yield_call(small: cst.BaseSmallStatement, aliases: Aliases) -> cst.Call | None:
    value = getattr(small, "value", None)
    if isinstance(value, cst.Call) and aliases.member(value.func) == "yield_":
        return value
    return None


@dataclass
class TrailingYield:
    """The `r1, r2 = pl.yield_(e1, e2)` (or bare `pl.yield_(...)`) closing a loop body."""

    line: cst.SimpleStatementLine
    targets: list[str] | None  # None for the bare form
    values: list[cst.BaseExpression]
    call: cst.Call  # the `pl.yield_(...)` call of `line`


def trailing_yield(statements: list[cst.BaseStatement], aliases: Aliases) -> TrailingYield | None:
    if not statements or not isinstance(statements[-1], cst.SimpleStatementLine):
        return None
    line = statements[-1]
    if len(line.body) != 1:
        return None
    small = line.body[0]
    call = yield_call(small, aliases)
    if call is None:
        return None
    values = [arg.value for arg in call.args]
    if isinstance(small, cst.Expr):
        return TrailingYield(line, None, values, call)
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        names = target_names(small.targets[0].target)
        if names is not None:
            return TrailingYield(line, names, values, call)
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        return TrailingYield(line, [small.target.value], values, call)
    return None


def iter_loops(statements: list[cst.BaseStatement]) -> Iterator[cst.For]:
    """Every `for` statement under `statements`, outer before inner, in source order."""
    for statement in statements:
        if isinstance(statement, cst.For):
            yield statement
        for block in child_blocks(statement):
            yield from iter_loops(block)


def child_blocks(statement: cst.BaseStatement) -> list[list[cst.BaseStatement]]:
    """The statement lists nested directly in a compound statement."""
    blocks: list[list[cst.BaseStatement]] = []
    if isinstance(statement, (cst.For, cst.While, cst.With, cst.If, cst.Try, cst.TryStar)):
        blocks.append(body_statements(statement))
    if isinstance(statement, cst.If):
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            blocks.append([orelse])
        elif isinstance(orelse, cst.Else):
            blocks.append(body_statements(orelse))
    elif isinstance(statement, (cst.For, cst.While)) and statement.orelse is not None:
        blocks.append(body_statements(statement.orelse))
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        for handler in statement.handlers:
            blocks.append(suite_statements(handler.body))
        for extra in (statement.orelse, statement.finalbody):
            if extra is not None:
                blocks.append(suite_statements(extra.body))
    return blocks


def suite_statements(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a block; a one-line suite (`try: x = 1`) as one statement line."""
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    assert isinstance(suite, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=list(suite.body))]
