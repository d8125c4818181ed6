"""Fresh names in PyPTO's printer convention.

While lowering, every variable a clone defines is a placeholder token. Once a function is fully
lowered the tokens get their printed names the way PyPTO's printer (`BuildRenameMapForDefs`)
assigns them: definitions are ordered depth-first (for a `for`: loop var, return vars, iter_args,
body; for an `if`: return vars, then, else); a hint used by one variable prints unchanged; the
variables sharing a hint print as `x`, `x_1`, `x_2`, ... in that order, skipping taken names.

tilecheck keeps every name the user wrote outside the cloned regions, so those names count as
taken: a clone never shadows a user name, and a hint the user also uses starts at `x_1`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from tilecheck.pypto.cstutil import child_fields, is_node
from tilecheck.pypto.dsl import body_statements, suite_statements
from tilecheck.pypto.stage import Clone
from tilecheck.tilelang.syntax import target_names


class Tokens:
    """Allocates placeholder names that cannot clash with anything in `source`."""

    def __init__(self, source: str) -> None:
        stem = "__tcfresh"
        while stem in source:
            stem += "x"
        self._stem = stem
        self._pattern = re.compile(re.escape(stem) + r"\d+__")
        self.hints: dict[str, str] = {}

    @property
    def stem(self) -> str:
        """The prefix of every token; it does not occur in the source."""
        return self._stem

    def new(self, hint: str) -> str:
        hint = self.hints.get(hint, hint)  # cloning a token keeps the original hint
        token = f"{self._stem}{len(self.hints)}__"
        self.hints[token] = hint
        return token

    def is_token(self, name: str) -> bool:
        return name in self.hints

    def replace_all(self, text: str, names: dict[str, str]) -> str:
        return self._pattern.sub(lambda match: names.get(match.group(0), match.group(0)), text)


Mapping = Callable[[str], str] | None


def _resolve(statement: cst.CSTNode) -> tuple[cst.CSTNode, Mapping]:
    """A `Clone` as a tree to read: its template with a marker-to-name mapping, or its rewrite."""
    if not isinstance(statement, Clone):
        return statement, None
    template = statement.template()
    if template is None:
        return statement.materialize(), None
    return template.node, statement.stage.rename


def _definition_order(function: cst.FunctionDef, tokens: Tokens) -> list[str]:
    order = _Order(tokens.is_token)
    order.block(body_statements(function), None)
    return list(order.names)


class _Order:
    """Collects defined names in definition order (methods, not closures: no reference cycles)."""

    def __init__(self, keep: Callable[[str], bool]) -> None:
        self.keep = keep
        self.names: dict[str, None] = {}
        self.done: set[int] = set()  # clones (Stage ids) whose statements are all in `names`

    def add(self, names: list[str] | None, mapping: Mapping) -> None:
        for name in names or ():
            if mapping is not None:
                name = mapping(name)
            if self.keep(name):
                self.names.setdefault(name)

    def block(self, statements: list[cst.BaseStatement], mapping: Mapping) -> None:
        for statement in statements:
            if mapping is None and isinstance(statement, Clone) and self.clone(statement):
                continue
            if mapping is None:
                tree, inner = _resolve(statement)
                _visit_definitions(tree, inner, self.add, self.block)
            else:
                _visit_definitions(statement, mapping, self.add, self.block)

    def clone(self, statement: Clone) -> bool:
        """Add all of a clone's definitions at once, from its templates; False without them."""
        stage = statement.stage
        group = stage.group()
        if group is None:
            return False
        if id(stage) not in self.done:
            self.done.add(id(stage))
            self.add(group.defs(_template_defs), stage.rename)
        return True


def _template_defs(node: cst.CSTNode) -> list[str]:
    """The names a template defines, in definition order (markers not yet mapped)."""
    order = _Order(_always)
    _visit_definitions(node, None, order.add, order.block)
    return list(order.names)


def _always(name: str) -> bool:
    return True


def _visit_definitions(
    statement: cst.CSTNode,
    mapping: Mapping,
    add: Callable[[list[str] | None, Mapping], None],
    block: Callable[[list[cst.BaseStatement], Mapping], None],
) -> None:
    """PyPTO's definition order (BuildRenameMapForDefs) of the names defined in `statement`:
    for a `for`, loop var, return vars, iter_args, body; for an `if`, return vars, then, else."""
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for assigned in small.targets:
                    add(_all_names(assigned.target), mapping)
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                add(_all_names(small.target), mapping)
    elif isinstance(statement, cst.For):
        body = body_statements(statement)
        target = statement.target
        if isinstance(target, cst.Tuple) and len(target.elements) == 2:
            add(_all_names(target.elements[0].value), mapping)
            _yield_targets(body, mapping, add)
            add(_all_names(target.elements[1].value), mapping)
        else:
            add(_all_names(target), mapping)
            _yield_targets(body, mapping, add)
        block(body, mapping)
    elif isinstance(statement, cst.If):
        body = body_statements(statement)
        _yield_targets(body, mapping, add)
        block(body, mapping)
        if isinstance(statement.orelse, cst.If):
            _visit_definitions(statement.orelse, mapping, add, block)
        elif isinstance(statement.orelse, cst.Else):
            block(body_statements(statement.orelse), mapping)
    elif isinstance(statement, (cst.While, cst.With)):
        if isinstance(statement, cst.With):
            for item in statement.items:
                if item.asname is not None:
                    add(_all_names(item.asname.name), mapping)
        block(body_statements(statement), mapping)
    elif isinstance(statement, (cst.Try, cst.TryStar)):
        block(suite_statements(statement.body), mapping)


def _yield_targets(
    statements: list[cst.BaseStatement], mapping: Mapping, add: Callable[[list[str] | None, Mapping], None]
) -> None:
    """Add the targets of the `pl.yield_` closing a block (the return vars of its loop or if)."""
    if not statements:
        return
    last: cst.CSTNode = statements[-1]
    if mapping is None:
        last, mapping = _resolve(last)
    if isinstance(last, cst.SimpleStatementLine):
        small = last.body[-1] if last.body else None
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
            func = small.value.func
            if isinstance(func, cst.Attribute) and func.attr.value == "yield_" and len(small.targets) == 1:
                add(target_names(small.targets[0].target), mapping)


def _every_name(function: cst.FunctionDef) -> set[str]:
    """`names_read(function)` for a lowered function, whose bodies may hold `Clone`s."""
    found: set[str] = set()
    done: set[int] = set()
    stack: list[object] = [function]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name:
            found.add(current.value)
        elif type(current) is cst.Attribute or type(current) is cst.Arg:
            stack.append(current.value)
        elif type(current) is Clone:
            stage = current.stage
            if stage.templates is None:
                current.add_names(found)
            elif id(stage) not in done:
                done.add(id(stage))  # one clone's statements are added together
                stage.add_names(found)
        elif is_node(current):
            for field in child_fields(type(current)):
                value = getattr(current, field)
                if type(value) is tuple or type(value) is list:
                    stack.extend(value)
                else:
                    stack.append(value)
    return found


def _all_names(node: cst.CSTNode) -> list[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    found: list[str] = []
    if isinstance(node, (cst.Tuple, cst.List)):
        for element in node.elements:
            found.extend(_all_names(element.value))
    elif isinstance(node, cst.StarredElement):
        found.extend(_all_names(node.value))
    return found


def printed_names(function: cst.FunctionDef, tokens: Tokens) -> dict[str, str]:
    """Final names for the tokens defined in `function`."""
    every = _every_name(function)
    order = _definition_order(function, tokens)
    defined = set(order)
    order += sorted(name for name in every if tokens.is_token(name) and name not in defined)
    taken = {name for name in every if not tokens.is_token(name)}
    counts: dict[str, int] = {}
    for token in order:
        hint = tokens.hints[token]
        counts[hint] = counts.get(hint, 0) + 1
    # Hints used once print unchanged and are reserved first (unless the user took the name).
    result: dict[str, str] = {}
    for token in order:
        hint = tokens.hints[token]
        if counts[hint] == 1 and hint not in taken:
            result[token] = hint
    taken |= set(result.values())
    counters: dict[str, int] = {}
    for token in order:
        if token in result:
            continue
        hint = tokens.hints[token]
        index = counters.get(hint, 0)
        while True:
            candidate = hint if index == 0 else f"{hint}_{index}"
            index += 1
            if candidate not in taken:
                break
        counters[hint] = index
        taken.add(candidate)
        result[token] = candidate
    return result
