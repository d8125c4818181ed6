"""Findings (node + problem) and their conversion to positioned diagnostics.

A finding names its problem; the rule that reports it (`rules/pypto/`, a `PyptoRule`) writes
the message and help, so the checks and the lowering never repeat a rule's text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider

from tilecheck.core.registry import rule_reporting
from tilecheck.core.types import Diagnostic, Span
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.splice import locate
from tilecheck.source.lines import line_starts, utf8_column
from tilecheck.source.positions import Locator, codegen_positions

if TYPE_CHECKING:
    from tilecheck.pypto.rulebase import PyptoRule


@dataclass(frozen=True)
class Finding:
    problem: PyptoProblem
    node: cst.CSTNode
    top: cst.CSTNode  # the module-level statement holding `node`
    values: dict[str, object] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    loop: cst.For | None = None  # the loop statement whose header or body holds `node`


def to_diagnostics(
    module: cst.Module, path: str, findings: list[Finding], source: str | None = None
) -> list[Diagnostic]:
    """Diagnostics for `findings`; with the module's `source`, positions are found by
    regenerating only the loops that hold findings (a `@pl.program` class can be the whole
    file), else the module-level statements that hold them (`Locator`)."""
    if not findings:
        return []
    locator = Locator(module)
    loops = _LoopPositions(module, source, findings) if source is not None else None
    found = []
    for finding in findings:
        span = loops.span(finding) if loops is not None else None
        if span is None:
            try:
                span = locator.span(finding.node, finding.top)
            except (RecursionError, KeyError):  # too deep to regenerate (libcst's position
                # tracking turns the RecursionError into a KeyError while unwinding)
                span = Span.point(1, 0)
        found.append(pypto_rule(finding.problem).diagnostic(path, span, finding.values, finding.notes))
    return sorted(set(found), key=Diagnostic.sort_key)


def pypto_rule(problem: PyptoProblem) -> type[PyptoRule]:
    """The built-in rule that reports `problem`."""
    return cast("type[PyptoRule]", rule_reporting(problem))


class _Shifted(Mapping[cst.CSTNode, CodeRange]):
    """Positions moved down by `lines` lines, computed on access."""

    def __init__(self, ranges: Mapping[cst.CSTNode, CodeRange], lines: int) -> None:
        self._ranges = ranges
        self._lines = lines

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self._ranges[node]
        start, end = found.start, found.end
        return CodeRange((start.line + self._lines, start.column), (end.line + self._lines, end.column))

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self._ranges)

    def __len__(self) -> int:
        return len(self._ranges)


class _LoopPositions:
    """Node positions inside loop statements, each loop regenerated once from its first line."""

    def __init__(self, module: cst.Module, source: str, findings: list[Finding]) -> None:
        self._module = module
        self._source = source
        wanted = {id(finding.loop) for finding in findings if finding.loop is not None}
        self._found = locate(source, module, wanted, partial=True) if wanted else None
        self._ranges: dict[int, Mapping[cst.CSTNode, CodeRange] | None] = {}
        self._starts: list[int] | None = None
        self._too_deep: set[int] = set()

    def span(self, finding: Finding) -> Span | None:
        """None when unsure (the caller then uses `Locator`)."""
        loop = finding.loop
        if loop is None or self._found is None or id(loop) not in self._found:
            return None
        if finding.node is loop.iter or finding.node is loop.target:
            # CPython's tree has them: no regenerating the loop (a long body costs seconds)
            header = self._header_span(finding)
            if header is not None:
                return header
        if id(loop) not in self._ranges:
            try:
                self._ranges[id(loop)] = self._positions(loop)
            except (RecursionError, KeyError):  # too deep to regenerate (KeyError: see above)
                self._too_deep.add(id(loop))
                self._ranges[id(loop)] = None
        if id(loop) in self._too_deep:
            return self._header_span(finding)
        ranges = self._ranges[id(loop)]
        found = ranges.get(finding.node) if ranges is not None else None
        if found is None:
            return None
        return Span(found.start.line, found.start.column, found.end.line, found.end.column)

    def _header_span(self, finding: Finding) -> Span | None:
        """The span of the loop statement, its target or its iterator from CPython's tree."""
        assert self._found is not None and finding.loop is not None
        loop = finding.loop
        tree = self._found[id(loop)][1]
        parts = {
            id(loop): tree,
            id(loop.target): getattr(tree, "target", None),
            id(loop.iter): getattr(tree, "iter", None),
        }
        node = parts.get(id(finding.node))
        if node is None or node.end_lineno is None or node.end_col_offset is None:
            return None
        return Span(
            node.lineno,
            self._column(node.lineno, node.col_offset),
            node.end_lineno,
            self._column(node.end_lineno, node.end_col_offset),
        )

    def _column(self, line: int, offset: int) -> int:
        """The character column of CPython's UTF-8 byte `offset` on `line`."""
        if self._starts is None:
            self._starts = line_starts(self._source)
        start = self._starts[line - 1]
        return utf8_column(self._source[start : start + offset], offset)

    def _positions(self, loop: cst.For) -> Mapping[cst.CSTNode, CodeRange] | None:
        """Positions of the nodes of `loop`, from libcst's public `PositionProvider` over a
        module holding only the loop, inside an `if` whose block has the loop's indentation
        (so libcst writes every line as the file has it, continuation lines included)."""
        assert self._found is not None
        _, tree, indent = self._found[id(loop)]
        module = self._module
        holder: cst.For | cst.If = loop
        if indent:
            holder = cst.If(test=cst.Name("_"), body=cst.IndentedBlock(body=[loop], indent=indent))
        scratch = cst.Module(
            body=[holder], default_indent=module.default_indent, default_newline=module.default_newline
        )
        # The engine's fast path first (libcst's position-tracking codegen without the batched
        # visit the public API adds: about 40% less on a long loop), else the public API.
        found = codegen_positions(scratch, holder) or cst.MetadataWrapper(
            scratch, unsafe_skip_copy=True
        ).resolve(PositionProvider)
        start = found.get(loop)
        if start is None:
            return None
        # The `for` keyword must be where the source has it; then every line moves by as much.
        shift = tree.lineno - start.start.line
        keyword = "async" if loop.asynchronous is not None else "for"
        if start.start.column != len(indent) or not self._at(tree.lineno, start.start.column, keyword):
            return None
        if not shift:
            return found
        return _Shifted(found, shift)

    def _at(self, line: int, column: int, text: str) -> bool:
        if self._starts is None:
            self._starts = line_starts(self._source)
        if not 1 <= line <= len(self._starts):
            return False
        start = self._starts[line - 1] + column
        return self._source[start : start + len(text)] == text
