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

import libcst as cst

from tilecheck.pypto.cstutil import names_read
from tilecheck.pypto.dsl import body_statements, target_names


class Tokens:
    """Allocates placeholder names that cannot clash with anything in `source`."""

    def __init__(self, source: str) -> None:
        stem = "__tcfresh"
        while stem in source:
            stem += "x"
        self._stem = stem
        self._pattern = re.compile(re.escape(stem) + r"\d+__")
        self.hints: dict[str, str] = {}

    def new(self, hint: str) -> str:
        hint = self.hints.get(hint, hint)  # cloning a token keeps the original hint
        token = f"{self._stem}{len(self.hints)}__"
        self.hints[token] = hint
        return token

    def is_token(self, name: str) -> bool:
        return name in self.hints

    def replace_all(self, text: str, names: dict[str, str]) -> str:
        return self._pattern.sub(lambda match: names.get(match.group(0), match.group(0)), text)


def _definition_order(function: cst.FunctionDef, tokens: Tokens) -> list[str]:
    order: dict[str, None] = {}

    def add(names: list[str] | None) -> None:
        for name in names or ():
            if tokens.is_token(name):
                order.setdefault(name)

    def yield_targets(statements: list[cst.BaseStatement]) -> list[str] | None:
        if statements and isinstance(statements[-1], cst.SimpleStatementLine):
            small = statements[-1].body[-1] if statements[-1].body else None
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                func = small.value.func
                if (
                    isinstance(func, cst.Attribute)
                    and func.attr.value == "yield_"
                    and len(small.targets) == 1
                ):
                    return target_names(small.targets[0].target)
        return None

    def block(statements: list[cst.BaseStatement]) -> None:
        for statement in statements:
            visit(statement)

    def visit(statement: cst.CSTNode) -> None:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        add(_all_names(target.target))
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    add(_all_names(small.target))
        elif isinstance(statement, cst.For):
            body = body_statements(statement)
            target = statement.target
            if isinstance(target, cst.Tuple) and len(target.elements) == 2:
                add(_all_names(target.elements[0].value))
                add(yield_targets(body))
                add(_all_names(target.elements[1].value))
            else:
                add(_all_names(target))
                add(yield_targets(body))
            block(body)
        elif isinstance(statement, cst.If):
            body = body_statements(statement)
            add(yield_targets(body))
            block(body)
            if isinstance(statement.orelse, cst.If):
                visit(statement.orelse)
            elif isinstance(statement.orelse, cst.Else):
                block(body_statements(statement.orelse))
        elif isinstance(statement, (cst.While, cst.With)):
            if isinstance(statement, cst.With):
                for item in statement.items:
                    if item.asname is not None:
                        add(_all_names(item.asname.name))
            block(body_statements(statement))
        elif isinstance(statement, (cst.Try, cst.TryStar)):
            block(list(statement.body.body))  # type: ignore[union-attr]

    block(body_statements(function))  # type: ignore[arg-type]
    return list(order)


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
    every = names_read(function)
    order = _definition_order(function, tokens)
    order += sorted(name for name in every if tokens.is_token(name) and name not in order)
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
