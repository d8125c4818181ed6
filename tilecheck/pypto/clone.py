"""Cloning a loop body: substitute the loop variable and iter_args, rename iteration-local
definitions, and stamp `pipeline_membership` tags, in one walk per clone.

Substituted expressions are parenthesized the way PyPTO's printer writes the pass's IR
(`(i + 1) * 128`, `b + (i + 1)`, but `_y = i + 1`). A literal substituted by a static tail that
ends up in constant-only arithmetic is written `pl.const(v, pl.INDEX) * pl.const(3, pl.INDEX)`:
the pass keeps `Mul(9, 3)` unfolded, while the parser would fold `9 * 3` to `27`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, overload

import libcst as cst

from tilecheck.pypto import membership
from tilecheck.pypto.cstutil import (
    ATOM_PRECEDENCE,
    UNARY_PRECEDENCE,
    binary_precedence,
    child_fields,
    int_node,
    is_node,
    literal_int,
    operand,
    parenthesize,
    precedence,
    replace,
)
from tilecheck.pypto.dsl import Aliases

EXPR = "expr"  # a substituted expression
LIT = "lit"  # a substituted literal (static tail), possibly negated


@dataclass(frozen=True)
class Substitute:
    expr: cst.BaseExpression
    literal: bool = False


@dataclass(frozen=True)
class Tagging:
    pair: str  # "group:stage"
    double_buffer_c: bool
    tiles: frozenset[str] = frozenset()  # names known to be tiles (`membership.tile_facts`)


class Rewriter:
    def __init__(
        self,
        aliases: Aliases,
        renames: dict[str, str],
        substitutes: dict[str, Substitute],
        tagging: Tagging | None,
    ) -> None:
        self.aliases = aliases
        self.renames = renames
        self.substitutes = substitutes
        self.tagging = tagging
        self._const_cache: dict[int, cst.Call] = {}

    def statement(self, node: cst.BaseStatement) -> cst.BaseStatement:
        return self.rewrite(node)[0]

    def expression(self, node: cst.BaseExpression) -> cst.BaseExpression:
        return self.rewrite(node)[0]

    # A rewritten node is of the same kind as the original: an expression (a substitute
    # replaces a name) or a node of the same type.
    @overload
    def rewrite(self, node: cst.BaseExpression) -> tuple[cst.BaseExpression, str | None]: ...
    @overload
    def rewrite(self, node: cst.BaseStatement) -> tuple[cst.BaseStatement, str | None]: ...
    @overload
    def rewrite(self, node: cst.CSTNode) -> tuple[cst.CSTNode, str | None]: ...
    def rewrite(self, node: cst.CSTNode) -> tuple[cst.CSTNode, str | None]:
        """The rewritten node, and what it is when that decides its parentheses (`EXPR`, `LIT`)."""
        if type(node) is cst.Name:
            return self._name(node)
        if type(node) is cst.Attribute:
            child = node.value
            value, info = self.rewrite(child)
            if value is child:
                return node, None
            return replace(node, {"value": self._wrap_atom(value, info)}), None
        if type(node) is cst.Arg:
            child = node.value
            value, _ = self.rewrite(child)
            return (node, None) if value is child else (replace(node, {"value": value}), None)
        kind = type(node)
        changes: dict[str, Any] = {}  # field values, as `with_changes` takes them
        infos: dict[str, str] = {}
        for field in child_fields(kind):
            value = getattr(node, field)
            if type(value) is tuple or type(value) is list:
                if not value or not is_node(value[0]):
                    continue
                items = []
                changed = False
                for item in value:
                    new, _ = self.rewrite(item)
                    changed = changed or new is not item
                    items.append(new)
                if changed:
                    changes[field] = items
            elif is_node(value):
                new, info = self.rewrite(value)
                if new is not value:
                    changes[field] = new
                if info is not None:
                    infos[field] = info
        if type(node) is cst.BinaryOperation:
            return self._binary(node, changes, infos)
        if type(node) is cst.UnaryOperation and "expression" in changes:
            expression = changes["expression"]
            info = infos.get("expression")
            changes["expression"] = self._wrap_unary(expression, info)
            literal = info == LIT and isinstance(node.operator, (cst.Minus, cst.Plus))
            return replace(node, changes), LIT if literal else None
        if kind in (cst.Subscript, cst.Call):
            field = "value" if kind is cst.Subscript else "func"
            if field in changes:
                changes[field] = self._wrap_atom(changes[field], infos.get(field))
        if self.tagging is not None and (type(node) is cst.Assign or type(node) is cst.AnnAssign):
            return self._tag(node, replace(node, changes) if changes else node), None
        return (replace(node, changes) if changes else node), None

    def _name(self, node: cst.Name) -> tuple[cst.BaseExpression, str | None]:
        renamed = self.renames.get(node.value)
        if renamed is not None:
            return replace(node, {"value": renamed}), None
        substitute = self.substitutes.get(node.value)
        if substitute is None:
            return node, None
        expr = substitute.expr
        info = LIT if substitute.literal else (EXPR if precedence(expr) < ATOM_PRECEDENCE else None)
        if node.lpar:
            expr = expr.with_changes(lpar=node.lpar, rpar=node.rpar)
            if info == EXPR:
                info = None
        return expr, info

    def _binary(
        self, node: cst.BinaryOperation, changes: dict[str, Any], infos: dict[str, str]
    ) -> tuple[cst.CSTNode, str | None]:
        left: cst.BaseExpression = changes.get("left", node.left)
        right: cst.BaseExpression = changes.get("right", node.right)
        if LIT in infos.values():
            folded = self._fold(left, right)
            if folded is not None:
                return replace(node, {"left": folded[0], "right": folded[1]}), None
        level = binary_precedence(node.operator)
        info = infos.get("left")
        if info is not None and info != LIT:
            changes["left"] = self._wrap_operand(left, info, level, False)
        info = infos.get("right")
        if info is not None and info != LIT:
            changes["right"] = self._wrap_operand(right, info, level, True)
        return (replace(node, changes) if changes else node), None

    # Where a substituted expression meets its parent: parenthesized the way PyPTO prints.

    def _wrap_atom(self, node: cst.BaseExpression, info: str | None) -> cst.BaseExpression:
        """The value of an attribute, subscript or call."""
        return _atom(node, info)

    def _wrap_operand(self, node: cst.BaseExpression, info: str, level: int, right: bool) -> cst.CSTNode:
        return operand(node, level, right=right)

    def _wrap_unary(self, node: cst.BaseExpression, info: str | None) -> cst.CSTNode:
        if info == EXPR and precedence(node) < UNARY_PRECEDENCE:
            return parenthesize(node)
        return node

    def _fold(
        self, left: cst.BaseExpression, right: cst.BaseExpression
    ) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        """Both operands as `pl.const(v, pl.INDEX)` when both are integer literals."""
        left_value = literal_int(left)
        right_value = literal_int(right)
        if left_value is None or right_value is None:
            return None
        return self._const(left_value), self._const(right_value)

    def _const(self, value: int) -> cst.Call:
        call = self._const_cache.get(value)
        if call is None:
            prefix = cst.Name(self.aliases.prefix)
            call = cst.Call(
                func=cst.Attribute(prefix, cst.Name("const")),
                args=[cst.Arg(int_node(value)), cst.Arg(cst.Attribute(prefix, cst.Name("INDEX")))],
            )
            self._const_cache[value] = call
        return call

    def _tag(self, original: cst.Assign | cst.AnnAssign, updated: cst.Assign | cst.AnnAssign) -> cst.CSTNode:
        assert self.tagging is not None
        found = membership.tile_call(original, self.aliases, self.tagging.tiles)
        if found is None:
            return updated
        _, is_acc_matmul = found
        if is_acc_matmul and not self.tagging.double_buffer_c:
            return updated
        call = updated.value
        if not isinstance(call, cst.Call):  # `tile_call` found a call, and rewriting keeps it one
            return updated
        tagged = membership.tag(call, self.tagging.pair)
        return updated if tagged is None else replace(updated, {"value": tagged})


def _atom(node: cst.BaseExpression, info: str | None) -> cst.BaseExpression:
    if info is not None and precedence(node) < ATOM_PRECEDENCE:
        return parenthesize(node)
    return node
