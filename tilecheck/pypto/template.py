"""Clones written from one template per body statement instead of one rewrite per clone.

The clones of a loop body differ from each other only in the per-clone names of its
iteration-local variables, in what the loop variable and iter_args are replaced by, and in the
`pipeline_membership` tag. `Rewriter` builds each clone as a new tree; here each body statement
is rewritten once (per set of names replaced by literals, see below), with placeholder names
(markers) where clones differ, and every clone's text is the template's text with the markers
filled in. A clone's statements are written together (`stage.Stage.text`).

A substituted expression is parenthesized according to its precedence and the spot it lands in
(`Rewriter._wrap_*`), so a marker for a substituted name also records that spot,
and the fill decides the parentheses. A name a static tail replaces by a literal may fold into
`pl.const(v, pl.INDEX)` next to another literal: which spots fold does not depend on the value,
so the literal clones get templates of their own, with markers for the folded values. A clone
whose substitutes a template cannot stand for (`templatable`) is rewritten in full by `Rewriter`.
Either way the text is libcst's text of the tree `Rewriter` builds, and `stage.Clone.materialize()`
gives that tree where a tree is needed (nested pipelines, the whole-module fallback).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeGuard

import libcst as cst

from tilecheck.pypto.clone import LIT, Rewriter, Substitute, Tagging
from tilecheck.pypto.cstutil import (
    ATOM_PRECEDENCE,
    UNARY_PRECEDENCE,
    binary_precedence,
    literal_int,
    names_read,
    replace,
)
from tilecheck.pypto.dsl import Aliases

HOLE = "hole"
_POWER = binary_precedence(cst.Power())

# Where a substituted name sits in a template (what decides its parentheses); None: nowhere
# that parenthesizes.
HoleSpot = tuple[object, ...] | None


def parenthesizes(spot: HoleSpot, level: int) -> bool:
    """Whether `Rewriter` parenthesizes an expression of precedence `level` at `spot`."""
    if spot is None or level >= ATOM_PRECEDENCE:
        return False
    if spot[0] == "atom":
        return True
    if spot[0] == "unary":
        return level < UNARY_PRECEDENCE
    _, parent, right = spot
    if parent == _POWER:
        right = not right  # ** is right-associative
    assert isinstance(parent, int)
    return level < parent or (bool(right) and level == parent)


def templatable(substitute: Substitute) -> bool:
    """Whether a template hole can stand for `substitute` (see the module docstring).

    Parenthesized expressions, dicts and strings are left to `Rewriter` (their own parentheses
    and `membership.tag` look at them); so is an integer expression that is not marked literal,
    which a literal next to it would fold with.
    """
    expr = substitute.expr
    if expr.lpar or isinstance(expr, (cst.Dict, cst.BaseString)):
        return False
    return substitute.literal or literal_int(expr) is None


class Markers:
    """The placeholder names of one loop body's templates.

    They start with the stem of `Tokens`, which does not occur in the source, and differ from
    tokens (`<stem><n>__`) by a letter after the stem.
    """

    def __init__(self, stem: str, local: set[str], holes: set[str]) -> None:
        self._stem = stem
        self.pattern = re.compile("(" + re.escape(stem) + r"[fhrt]\d+__)")
        self.renames = {name: f"{stem}r{index}__" for index, name in enumerate(sorted(local))}
        self.renamed = {marker: name for name, marker in self.renames.items()}
        self.hole_names = holes
        self.tag = f"{stem}t0__"
        self.holes: dict[str, tuple[str, HoleSpot]] = {}  # marker -> (name, spot)
        self._hole_markers: dict[tuple[str, HoleSpot], str] = {}
        self.folds: dict[str, tuple[str, int]] = {}  # marker -> (name, sign)
        self._fold_markers: dict[tuple[str, int], str] = {}

    def hole(self, name: str, spot: HoleSpot) -> str:
        key = (name, spot)
        marker = self._hole_markers.get(key)
        if marker is None:
            marker = f"{self._stem}h{len(self._hole_markers)}__"
            self._hole_markers[key] = marker
            self.holes[marker] = key
        return marker

    def fold(self, name: str, sign: int) -> str:
        """A marker for `sign` times the literal a name is replaced by, inside `pl.const(...)`."""
        key = (name, sign)
        marker = self._fold_markers.get(key)
        if marker is None:
            marker = f"{self._stem}f{len(self._fold_markers)}__"
            self._fold_markers[key] = marker
            self.folds[marker] = key
        return marker


class _TemplateRewriter(Rewriter):
    """`Rewriter` with markers for the renamed and substituted names and for the tag.

    `literal` names are those the clones replace by literals (a static tail): they behave as
    `Rewriter` treats literals, folding into `pl.const(...)` next to another literal.
    """

    def __init__(
        self,
        aliases: Aliases,
        markers: Markers,
        tagging: Tagging,
        literal: frozenset[str],
    ) -> None:
        super().__init__(aliases, markers.renames, {}, tagging)
        self.markers = markers
        self.literal = literal

    def _name(self, node: cst.Name) -> tuple[cst.BaseExpression, str | None]:
        value = node.value
        renamed = self.renames.get(value)
        if renamed is not None:
            return replace(node, {"value": renamed}), None
        if value in self.markers.hole_names:
            hole = replace(node, {"value": self.markers.hole(value, None)})
            if value in self.literal:
                return hole, LIT
            # With parentheses of its own the spot keeps them and never adds more (`Rewriter._name`).
            return hole, None if node.lpar else HOLE
        return node, None

    def _is_hole(self, node: cst.CSTNode) -> TypeGuard[cst.Name]:
        return type(node) is cst.Name and node.value in self.markers.holes

    def _hole_at(self, node: cst.Name, spot: HoleSpot) -> cst.Name:
        if node.lpar:
            return node  # parenthesized already: an atom wherever it is
        name, _ = self.markers.holes[node.value]
        return replace(node, {"value": self.markers.hole(name, spot)})

    def _wrap_atom(self, node: cst.BaseExpression, info: str | None) -> cst.BaseExpression:
        if info in (HOLE, LIT) and self._is_hole(node):
            return self._hole_at(node, ("atom",))
        return super()._wrap_atom(node, info)

    def _wrap_operand(self, node: cst.BaseExpression, info: str, level: int, right: bool) -> cst.CSTNode:
        if info == HOLE:
            assert type(node) is cst.Name  # only `_name` gives HOLE, for the name of a hole
            return self._hole_at(node, ("binary", level, right))
        return super()._wrap_operand(node, info, level, right)

    def _wrap_unary(self, node: cst.BaseExpression, info: str | None) -> cst.CSTNode:
        if info == HOLE:
            assert type(node) is cst.Name  # as in `_wrap_operand`
            return self._hole_at(node, ("unary",))
        return super()._wrap_unary(node, info)

    def _fold(
        self, left: cst.BaseExpression, right: cst.BaseExpression
    ) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        left_value = self._symbolic(left)
        right_value = self._symbolic(right)
        if left_value is None or right_value is None:
            return None
        return self._const_of(left_value), self._const_of(right_value)

    def _symbolic(self, node: cst.BaseExpression) -> tuple[str | None, int] | None:
        """`literal_int(node)` with literal holes: (None, value), (name, sign) or None."""
        if self._is_hole(node):
            name, _ = self.markers.holes[node.value]
            return (name, 1) if name in self.literal else None
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            inner = self._symbolic(node.expression)
            if inner is None or isinstance(node.operator, cst.Plus):
                return inner
            return inner[0], -inner[1]
        value = literal_int(node)
        return None if value is None else (None, value)

    def _const_of(self, value: tuple[str | None, int]) -> cst.Call:
        name, number = value
        if name is None:
            return self._const(number)
        marker = cst.Name(self.markers.fold(name, number))
        prefix = cst.Name(self.aliases.prefix)
        return cst.Call(
            func=cst.Attribute(prefix, cst.Name("const")),
            args=[cst.Arg(marker), cst.Arg(cst.Attribute(prefix, cst.Name("INDEX")))],
        )


class Template:
    """One body statement rewritten with markers; its text is split at the markers per indent."""

    def __init__(self, node: cst.BaseStatement, markers: Markers) -> None:
        self.node = node
        self.markers = markers
        self._parts: dict[str, list[str]] = {}
        self._names: tuple[set[str], list[str]] | None = None

    def parts(self, text_of: Callable[[cst.CSTNode], str], indent: str) -> list[str]:
        parts = self._parts.get(indent)
        if parts is None:
            parts = self._parts[indent] = self.markers.pattern.split(text_of(self.node))
        return parts

    def names(self) -> tuple[set[str], list[str]]:
        """The names under the template: those written as they are, and the markers."""
        if self._names is None:
            every = names_read(self.node)
            markers = {name for name in every if self.markers.pattern.fullmatch(name)}
            self._names = (every - markers, sorted(markers))
        return self._names


class TemplateGroup:
    """The templates of all statements of a loop body (one clone's statements, in order)."""

    def __init__(self, templates: list[Template], markers: Markers) -> None:
        self.templates = templates
        self.markers = markers
        self._parts: dict[str, list[str]] = {}
        self._names: tuple[set[str], list[str]] | None = None
        self._defs: list[str] | None = None

    def parts(self, text_of: Callable[[cst.CSTNode], str], indent: str) -> list[str]:
        parts = self._parts.get(indent)
        if parts is None:
            text = "".join([text_of(template.node) for template in self.templates])
            parts = self._parts[indent] = self.markers.pattern.split(text)
        return parts

    def names(self) -> tuple[set[str], list[str]]:
        if self._names is None:
            plain: set[str] = set()
            markers: set[str] = set()
            for template in self.templates:
                more, marked = template.names()
                plain |= more
                markers.update(marked)
            self._names = (plain, sorted(markers))
        return self._names

    def defs(self, order: Callable[[cst.CSTNode], list[str]]) -> list[str]:
        """The rename markers defined by the statements, in definition order (repeats kept)."""
        if self._defs is None:
            self._defs = [marker for template in self.templates for marker in order(template.node)]
        return self._defs


class BodyTemplates:
    """The templates of one loop body, built on first use."""

    def __init__(
        self,
        aliases: Aliases,
        stem: str,
        local: set[str],
        holes: set[str],
        double_buffer_c: bool,
        tiles: frozenset[str] = frozenset(),
    ) -> None:
        self.markers = Markers(stem, local, holes)
        self._aliases = aliases
        self._tagging = Tagging(self.markers.tag, double_buffer_c, tiles)
        self._rewriters: dict[frozenset[str], _TemplateRewriter] = {}
        self._templates: dict[tuple[int, frozenset[str]], Template] = {}
        self._groups: dict[frozenset[str], TemplateGroup] = {}

    def group(self, statements: list[cst.BaseStatement], literal: frozenset[str]) -> TemplateGroup:
        """The templates of `statements` (always the same body) for clones with `literal` names."""
        found = self._groups.get(literal)
        if found is None:
            templates = [self.template(statement, literal) for statement in statements]
            found = self._groups[literal] = TemplateGroup(templates, self.markers)
        return found

    def template(self, statement: cst.BaseStatement, literal: frozenset[str]) -> Template:
        key = (id(statement), literal)
        found = self._templates.get(key)
        if found is None:
            rewriter = self._rewriters.get(literal)
            if rewriter is None:
                rewriter = _TemplateRewriter(self._aliases, self.markers, self._tagging, literal)
                self._rewriters[literal] = rewriter
            found = self._templates[key] = Template(rewriter.statement(statement), self.markers)
        return found
