"""Which findings suppression comments hide, by line ranges (`lint.directives` reads them).

Unused (TL901), unknown (TL902), unmatched (TL903) and malformed (TL904) suppressions are
diagnostics with a fix that removes them. `lint.baseline` writes suppressions for every finding.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from tilecheck.core import meta
from tilecheck.core.meta import SUPPRESSION_PROBLEMS, UNSUPPRESSIBLE, Problem
from tilecheck.core.registry import rule_reporting
from tilecheck.core.rule import Rule
from tilecheck.core.types import Diagnostic, Edit, Fix, Grade, Span
from tilecheck.lint.directives import (
    Comment,
    Directive,
    Entry,
    closest_rule,
    may_have_suppressions,
    parse_directives,
    scan_comments,
)
from tilecheck.source.python_ast import LINE_BREAK

__all__ = ["Suppressions", "may_have_suppressions", "removal_edits"]

UNUSED, UNKNOWN, UNMATCHED, INVALID = SUPPRESSION_PROBLEMS


# -- applying ------------------------------------------------------------------------------


@dataclass
class _Range:
    directive: Directive
    entry: Entry
    code: str
    first: int
    last: int


@dataclass
class Suppressions:
    directives: list[Directive]
    lines: int
    ranges: list[_Range] = field(default_factory=list)

    @classmethod
    def from_source(cls, text: str, known: Iterable[type[Rule]]) -> Suppressions:
        directives = parse_directives(scan_comments(text), known)
        lines = len(LINE_BREAK.split(text))
        suppressions = cls(directives, lines)
        suppressions._resolve()
        return suppressions

    def _resolve(self) -> None:
        open_: dict[str, list[_Range]] = {}
        for directive in self.directives:
            if directive.invalid is not None:
                continue
            comment = directive.comment
            for entry in directive.entries:
                if entry.rule is None:
                    continue
                code = entry.rule.CODE
                if directive.kind in ("ignore", "noqa"):
                    first, last = (comment.first, comment.last)
                    self.ranges.append(_Range(directive, entry, code, first, last))
                elif directive.kind == "file-ignore":
                    self.ranges.append(_Range(directive, entry, code, 1, self.lines))
                elif directive.kind == "disable":
                    span = _Range(directive, entry, code, comment.line, self.lines)
                    open_.setdefault(code, []).append(span)
                    self.ranges.append(span)
                elif directive.kind == "enable":
                    stack = open_.get(code)
                    if stack:
                        stack.pop().last = comment.line
                    else:
                        entry.unmatched = True
        for stack in open_.values():
            for span in stack:
                span.entry.unmatched = True  # still applies to the end of the file

    def is_suppressed(self, diagnostic: Diagnostic) -> bool:
        line = diagnostic.span.line
        hit = False
        for span in self.ranges:
            if span.code == diagnostic.code and span.first <= line <= span.last:
                span.entry.used = True
                hit = True
        return hit

    def filter(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """The diagnostics no suppression covers (meta findings about the file itself stay)."""
        kept = meta.codes_of(UNSUPPRESSIBLE)
        return [d for d in diagnostics if d.code in kept or not self.is_suppressed(d)]

    def report(self, path: str, ran: set[str], enabled: set[Problem]) -> list[Diagnostic]:
        """TL901-TL904 for this file. `ran`: the codes of the rules that ran; `enabled`: the
        suppression problems whose rules are enabled."""
        found: list[Diagnostic] = []
        for directive in self.directives:
            if directive.invalid is not None:
                if INVALID in enabled:
                    found.append(self._meta(path, INVALID, directive, directive.invalid, directive.entries))
                continue
            ours = [e for e in directive.entries if e.ours]
            unknown = [e for e in ours if e.rule is None]
            if unknown and UNKNOWN in enabled:
                found.append(self._unknown(path, directive, unknown))
            unmatched = [e for e in ours if e.unmatched]
            if unmatched and UNMATCHED in enabled:
                found.append(self._unmatched(path, directive, unmatched))
            unused = [
                e
                for e in ours
                if e.rule is not None
                and not e.used
                and not e.unmatched
                and directive.kind != "enable"
                and e.rule.CODE in ran
                and e.rule.GRADE is not Grade.META
            ]
            if unused and UNUSED in enabled:
                names = ", ".join(f"`{e.text}`" for e in unused)
                message = f"Unused suppression: no {names} diagnostic to suppress"
                found.append(self._meta(path, UNUSED, directive, message, unused))
        # A suppression diagnostic may itself be suppressed (`file-ignore[TL901]`).
        return [d for d in found if not self.is_suppressed(d)]

    def _unmatched(self, path: str, directive: Directive, entries: list[Entry]) -> Diagnostic:
        names = ", ".join(f"`{e.text}`" for e in entries)
        if directive.kind == "disable":
            message = f"`tilecheck: disable[{names.replace('`', '')}]` has no matching `enable`; it applies to the end of the file"
            return self._meta(path, UNMATCHED, directive, message, entries, safe=False)
        message = f"`tilecheck: enable` of {names} has no matching `disable` before it"
        return self._meta(path, UNMATCHED, directive, message, entries)

    def _unknown(self, path: str, directive: Directive, unknown: list[Entry]) -> Diagnostic:
        """TL902. A typo gets its correction as the fix; a removal would throw away what the user
        meant to suppress, so it is never a safe fix here."""
        names = ", ".join(f"`{e.text}`" for e in unknown)
        message = f"Unknown rule code{'s' if len(unknown) > 1 else ''} {names} in suppression"
        corrections = {e.text: closest_rule(e.text) for e in unknown}
        meant = [f"`{corrections[e.text]}`" for e in unknown if corrections[e.text]]
        diagnostic = self._meta(path, UNKNOWN, directive, message, unknown, safe=False)
        if not meant or directive.codes_span is None or len(meant) != len(unknown):
            return diagnostic
        text = ", ".join(corrections.get(e.text) or e.text for e in directive.entries)
        start, end = directive.codes_span
        line = directive.comment.line
        fix = Fix(f"Replace with {', '.join(meant)}", (Edit(Span(line, start, line, end), text),), safe=False)
        return dataclasses.replace(
            diagnostic, message=f"{message} (did you mean {', '.join(meant)}?)", fix=fix
        )

    def _meta(
        self,
        path: str,
        problem: Problem,
        directive: Directive,
        message: str,
        remove: list[Entry],
        safe: bool = True,
    ) -> Diagnostic:
        rule = rule_reporting(problem)
        fix = Fix(
            "Remove the suppression"
            if len(remove) == len(directive.entries)
            else "Remove the unneeded codes",
            removal_edits(directive, remove),
            safe=safe,
        )
        return Diagnostic(
            path,
            directive.span,
            rule.CODE,
            rule.NAME,
            rule.GRADE,
            rule.severity(),
            message,
            rule.HELP or None,
            fix,
        )


# -- removing --------------------------------------------------------------------------------


# A new comment starts at `# ` or at a pragma without a space (`noqa`); `#42` in a reason does not.
_NEXT_PRAGMA = re.compile(r"#(?:\s|noqa|type:|fmt:|pragma|tilecheck:|pylint:|ruff:|flake8:|nosec|mypy:)")


def removal_edits(directive: Directive, remove: list[Entry]) -> tuple[Edit, ...]:
    """Edits that drop `remove` from the directive, or the directive (or its line) entirely."""
    comment = directive.comment
    line = comment.line
    keep = [e for e in directive.entries if all(e is not r for r in remove)]
    if keep and directive.codes_span is not None:
        start, end = directive.codes_span
        joined = ", ".join(e.text for e in keep)
        if directive.kind == "noqa":
            joined = " ".join(e.text for e in keep) if "," not in _slice(comment, start, end) else joined
        return (Edit(Span(line, start, line, end), joined),)
    # The directive's extent: its reason runs up to the next comment (`# other`, or a pragma without a space);
    # a `#` inside the reason (`see #42`) is part of it.
    offset = directive.start - comment.column
    rest = comment.text[directive.end - comment.column :]
    found = _NEXT_PRAGMA.search(rest)
    next_hash = found.start() if found else -1
    extent_end = directive.end + (next_hash if next_hash >= 0 else len(rest))
    comment_end = comment.column + len(comment.text)
    if offset == 0 and extent_end >= comment_end:  # the directive is the whole comment
        if comment.own_line:
            return (Edit(Span(line, 0, line + 1, 0), ""),)
        return (Edit(Span(line, comment.column - _blank_before(comment), line, comment_end), ""),)
    if offset == 0:  # `# tilecheck: ignore[X]  # other` -> `# other`
        return (Edit(Span(line, directive.start, line, extent_end), ""),)
    # `# other  # tilecheck: ignore[X] why  # more` -> `# other  # more`
    before = comment.text[:offset]
    trimmed = len(before) - len(before.rstrip())
    reason = rest[:next_hash] if next_hash >= 0 else rest
    end = directive.end + len(reason.rstrip())
    return (Edit(Span(line, directive.start - trimmed, line, end), ""),)


def _slice(comment: Comment, start: int, end: int) -> str:
    return comment.text[start - comment.column : end - comment.column]


def _blank_before(comment: Comment) -> int:
    """Whitespace between the code and a trailing comment (removed with the comment)."""
    return len(comment.prefix) - len(comment.prefix.rstrip())
