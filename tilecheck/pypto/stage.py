"""The clones of a loop body as the lowering hands them on: `Stage` holds what one clone's
statements share (its `Rewriter`, and the templates when they can serve it), and each of its
statements is a `Clone`, rewritten into a tree only when a tree is needed (`Clone.materialize`,
`materialize`); until then the writers fill the templates (`template`) with the clone's names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, cast, overload

import libcst as cst

from tilecheck.pypto.clone import Rewriter
from tilecheck.pypto.cstutil import literal_int, names_read, precedence, replace
from tilecheck.pypto.template import BodyTemplates, Template, TemplateGroup, parenthesizes, templatable


class Stage:
    """One clone of a loop body: what its statements share (renames, substitutes, the tag).

    Nothing here refers back to the `Clone`s, the writers or anything else that refers to a
    stage: the lowering's structures are freed by reference counting (see `api.lower_source`).
    """

    def __init__(
        self, rewriter: Rewriter, templates: BodyTemplates | None, statements: list[cst.BaseStatement]
    ) -> None:
        self.rewriter = rewriter
        substitutes = rewriter.substitutes
        usable = (
            templates is not None
            and substitutes.keys() <= templates.markers.hole_names
            and all(templatable(substitute) for substitute in substitutes.values())
        )
        self.templates = templates if usable else None
        self.literal = frozenset(name for name, substitute in substitutes.items() if substitute.literal)
        self.statements = statements
        self._marker_names: dict[str, set[str]] = {}

    def clones(self) -> list[Clone]:
        return [Clone(statement, self, position) for position, statement in enumerate(self.statements)]

    def group(self) -> TemplateGroup | None:
        """The templates of all this clone's statements, when templates serve this clone."""
        if self.templates is None:
            return None
        return self.templates.group(self.statements, self.literal)

    def text(self, text_of: Callable[[cst.CSTNode], str], indent: str, fills: Fills) -> str:
        """The text of all this clone's statements (templates serve it)."""
        group = self.group()
        assert group is not None
        parts = group.parts(text_of, indent)
        out = list(parts)
        for index in range(1, len(parts), 2):
            out[index] = fills[parts[index]]
        return "".join(out)

    def add_names(self, found: set[str]) -> None:
        """Add `names_read` of all this clone's statements to `found` (templates serve it)."""
        group = self.group()
        assert group is not None
        plain, markers = group.names()
        found |= plain
        names_for = self.names_for
        for marker in markers:
            found |= names_for(marker)

    def fill(self, marker: str, text_of: Callable[[cst.CSTNode], str]) -> str:
        assert self.templates is not None
        markers = self.templates.markers
        name = markers.renamed.get(marker)
        if name is not None:
            return self.rewriter.renames[name]
        if marker == markers.tag:
            assert self.rewriter.tagging is not None
            return self.rewriter.tagging.pair
        folded = markers.folds.get(marker)
        if folded is not None:
            value = literal_int(self.rewriter.substitutes[folded[0]].expr)
            assert value is not None
            return str(folded[1] * value)  # the text of `int_node(value)`
        name, spot = markers.holes[marker]
        substitute = self.rewriter.substitutes.get(name)
        if substitute is None:
            return name  # not replaced in this clone: the name as written
        text = text_of(substitute.expr)
        return "(" + text + ")" if parenthesizes(spot, precedence(substitute.expr)) else text

    def rename(self, marker: str) -> str:
        """The name a marker in a definition stands for in this clone."""
        assert self.templates is not None
        name = self.templates.markers.renamed.get(marker)
        return marker if name is None else self.rewriter.renames[name]

    def names_for(self, marker: str) -> set[str]:
        """The names a marker stands for in this clone (for `printed_names`)."""
        found = self._marker_names.get(marker)
        if found is None:
            found = self._marker_names[marker] = self._names_for(marker)
        return found

    def _names_for(self, marker: str) -> set[str]:
        assert self.templates is not None
        markers = self.templates.markers
        name = markers.renamed.get(marker)
        if name is not None:
            return {self.rewriter.renames[name]}
        if marker in markers.holes:
            name, _ = markers.holes[marker]
            substitute = self.rewriter.substitutes.get(name)
            return {name} if substitute is None else names_read(substitute.expr)
        if marker in markers.folds:
            return set()
        return {marker}


class Fills(dict[str, str]):
    """Marker -> text for one clone at one indentation, computed on first use."""

    def __init__(self, stage: Stage, text_of: Callable[[cst.CSTNode], str]) -> None:
        super().__init__()
        self._stage = stage
        self._text_of = text_of

    def __missing__(self, marker: str) -> str:
        value = self[marker] = self._stage.fill(marker, self._text_of)
        return value


class Clone:
    """A body statement as one clone has it, rewritten only when a tree is needed."""

    __slots__ = ("_node", "original", "position", "stage")

    def __init__(self, original: cst.BaseStatement, stage: Stage, position: int) -> None:
        self.original = original
        self.stage = stage
        self.position = position  # in the clone's statements
        self._node: cst.BaseStatement | None = None

    def materialize(self) -> cst.BaseStatement:
        if self._node is None:
            self._node = self.stage.rewriter.statement(self.original)
        return self._node

    def template(self) -> Template | None:
        templates = self.stage.templates
        return templates.template(self.original, self.stage.literal) if templates is not None else None

    def add_names(self, found: set[str]) -> None:
        """Add `names_read` of the rewritten statement to `found`."""
        template = self.template()
        if template is None:
            found |= names_read(self.materialize())
            return
        plain, markers = template.names()
        found |= plain
        names_for = self.stage.names_for
        for marker in markers:
            found |= names_for(marker)


# A statement of a lowered block: a libcst statement, or a clone's statement standing for one.
LoweredStatement = cst.BaseStatement | Clone


def in_tree(statements: Sequence[LoweredStatement]) -> Sequence[cst.BaseStatement]:
    """`statements` as the body of a libcst block. A `Clone` stays in the tree in place of the
    statement it stands for: the lowering's writers (`codegen`) and `names.printed_names` read
    it there, and `materialize` replaces it before libcst itself handles the tree."""
    return cast("Sequence[cst.BaseStatement]", statements)


_TreeT = TypeVar("_TreeT", bound=cst.CSTNode)


@overload
def materialize(statement: Clone) -> cst.BaseStatement: ...
@overload
def materialize(statement: _TreeT) -> _TreeT: ...
def materialize(statement: cst.CSTNode | Clone) -> cst.CSTNode:
    """`statement` with every `Clone` in it (at any depth) replaced by its rewritten tree."""
    if isinstance(statement, Clone):
        return statement.materialize()
    if not isinstance(statement, (cst.For, cst.While, cst.If, cst.Else, cst.With, cst.FunctionDef)):
        return statement
    changes: dict[str, object] = {}
    block = statement.body
    if isinstance(block, cst.IndentedBlock):
        body = [materialize(item) for item in block.body]
        if any(new is not old for new, old in zip(body, block.body, strict=True)):
            changes["body"] = replace(block, {"body": body})
    orelse = getattr(statement, "orelse", None)
    if orelse is not None:
        new_orelse = materialize(orelse)
        if new_orelse is not orelse:
            changes["orelse"] = new_orelse
    return replace(statement, changes) if changes else statement
