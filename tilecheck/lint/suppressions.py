"""Suppression comments, resolved by line ranges from the token stream (never the CST).

- `# tilecheck: ignore[TL101, nested-parallel]` (or `# noqa: TL101`): trailing, it covers the
  whole logical line it is on (so it works on any line of a multi-line call or
  comprehension); on a line of its own, it covers the next logical line.
- `# tilecheck: disable[TL104]` ... `# tilecheck: enable[TL104]`: every line in between.
- `# tilecheck: file-ignore[TL105]`: the whole file.

There is no blanket form: a directive without codes is invalid. A bare `# noqa`, and noqa
codes that are not tilecheck's (`# noqa: E501`), belong to other tools and are left alone.
Unused (TL901), unknown (TL902), unmatched (TL903) and malformed (TL904) suppressions are
diagnostics with a fix that removes them. `add_ignores` writes a baseline.
"""

from __future__ import annotations

import dataclasses
import difflib
import io
import re
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from tilecheck.core import meta
from tilecheck.core.meta import SUPPRESSION_PROBLEMS, UNSUPPRESSIBLE, Problem
from tilecheck.core.registry import by_code, rule_reporting
from tilecheck.core.rule import Rule
from tilecheck.core.types import Diagnostic, Edit, Fix, Grade, Span

UNUSED, UNKNOWN, UNMATCHED, INVALID = SUPPRESSION_PROBLEMS
KINDS = ("ignore", "disable", "enable", "file-ignore")

_DIRECTIVE = re.compile(r"#\s*tilecheck\s*:\s*(?P<kind>[A-Za-z][\w-]*)?\s*(?:\[(?P<codes>[^\]]*)\])?")
_NOQA = re.compile(
    r"#\s*noqa\b(?:\s*:\s*(?P<codes>[A-Za-z]+[0-9]+(?:(?:\s*,\s*|\s+)[A-Za-z]+[0-9]+)*))?", re.IGNORECASE
)
_OURS = re.compile(r"TL[0-9]{3}", re.IGNORECASE)
_NEWLINE = re.compile(r"\r\n|\r|\n")


def may_have_suppressions(text: str) -> bool:
    """A cheap test before tokenizing: does any comment mention tilecheck or noqa?"""
    return "tilecheck" in text or "noqa" in text or "NOQA" in text or "Noqa" in text


@dataclass
class Comment:
    line: int
    column: int  # of the `#`
    text: str
    own_line: bool
    prefix: str = ""  # the line's text before the comment
    first: int = 0  # the logical lines it covers
    last: int = 0


@dataclass
class Entry:
    text: str
    rule: type[Rule] | None
    ours: bool = True  # False for another tool's noqa code
    used: bool = False
    unmatched: bool = False


@dataclass
class Directive:
    kind: str  # one of KINDS, "noqa", or the unknown word
    comment: Comment
    start: int  # column range of the directive in the line (from its `#`)
    end: int
    entries: list[Entry]
    codes_span: tuple[int, int] | None  # columns of the code list, for partial removal
    invalid: str | None = None  # why the directive is malformed
    first: int = 0  # lines it covers
    last: int = 0

    @property
    def span(self) -> Span:
        return Span(self.comment.line, self.start, self.comment.line, self.end)


# -- scanning ------------------------------------------------------------------------------


def scan_comments(text: str) -> list[Comment]:
    """Every comment, with the logical line it covers. Falls back to a line scan when the
    tokenizer rejects the text (libcst accepts a few newer constructs)."""
    try:
        return _token_comments(text)
    except (tokenize.TokenError, SyntaxError):
        comments = []
        for number, line in enumerate(_NEWLINE.split(text), 1):
            index = line.find("#")
            if index >= 0:
                prefix = line[:index]
                comments.append(
                    Comment(number, index, line[index:], not prefix.strip(), prefix, number, number)
                )
        return comments


def _python_lines(text: str) -> Callable[[], str]:
    """A `readline` that breaks lines where CPython does: at `\r\n`, `\r` and `\n` (a plain
    StringIO breaks only at `\n`, which makes a CR-only file one line). Each line ends in
    `\n`; columns are unchanged, as only the line break is rewritten."""
    return io.StringIO(text, newline=None).readline


def _token_comments(text: str) -> list[Comment]:
    comments: list[Comment] = []
    inside: list[Comment] = []  # comments within the current logical line
    pending: list[Comment] = []  # own-line comments waiting for the next logical line
    start: int | None = None
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)
    for token in tokenize.generate_tokens(_python_lines(text)):
        kind = token.type
        if kind == tokenize.COMMENT:
            line, column = token.start
            prefix = token.line[:column]
            comment = Comment(line, column, token.string, not prefix.strip(), prefix)
            comments.append(comment)
            (inside if start is not None else pending).append(comment)
        elif kind in (tokenize.NEWLINE, tokenize.ENDMARKER):
            end = token.start[0]
            if start is not None:
                for comment in (*pending, *inside):
                    comment.first, comment.last = start, end
            start = None
            pending, inside = ([], []) if kind == tokenize.NEWLINE else (pending, inside)
        elif kind not in skip and start is None:
            start = token.start[0]
    for comment in comments:
        if comment.first == 0:  # an own-line comment with nothing after it
            comment.first = comment.last = comment.line
    return comments


def parse_directives(comments: Iterable[Comment], known: Iterable[type[Rule]]) -> list[Directive]:
    rules = tuple(known)
    directives: list[Directive] = []
    for comment in comments:
        for match in _DIRECTIVE.finditer(comment.text):
            directives.append(_tilecheck_directive(comment, match, rules))
        for match in _NOQA.finditer(comment.text):
            if match.group("codes"):
                directives.append(_noqa_directive(comment, match, rules))
    return directives


def _tilecheck_directive(comment: Comment, match: re.Match[str], rules: tuple[type[Rule], ...]) -> Directive:
    kind = match.group("kind") or ""
    raw = match.group("codes")
    entries = [
        Entry(part.strip(), by_code(part.strip(), rules)) for part in (raw or "").split(",") if part.strip()
    ]
    codes_span = None
    if raw is not None:
        codes_span = (comment.column + match.start("codes"), comment.column + match.end("codes"))
    directive = Directive(
        kind,
        comment,
        comment.column + match.start(),
        comment.column + match.end(),
        entries,
        codes_span,
    )
    if kind not in KINDS:
        shown = f"`{kind}`" if kind else "nothing"
        directive.invalid = f"expected one of {', '.join(KINDS)} after `tilecheck:`, found {shown}"
    elif not entries:
        directive.invalid = f"`tilecheck: {kind}` needs rule codes, like `tilecheck: {kind}[TL101]`"
    return directive


def _noqa_directive(comment: Comment, match: re.Match[str], rules: tuple[type[Rule], ...]) -> Directive:
    entries = []
    for code in re.split(r"[\s,]+", match.group("codes").strip()):
        rule = by_code(code, rules)
        entries.append(Entry(code, rule, ours=rule is not None or _OURS.fullmatch(code) is not None))
    return Directive(
        "noqa",
        comment,
        comment.column + match.start(),
        comment.column + match.end(),
        entries,
        (comment.column + match.start("codes"), comment.column + match.end("codes")),
    )


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
        lines = len(_NEWLINE.split(text))
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
        corrections = {e.text: _closest_rule(e.text) for e in unknown}
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


def _closest_rule(text: str) -> str | None:
    """The rule name (or code) `text` most likely misspells, if one is close enough."""
    from tilecheck.core.registry import builtin_rules

    names = [rule.NAME for rule in builtin_rules()] + [rule.CODE for rule in builtin_rules()]
    close = difflib.get_close_matches(text, names, n=1, cutoff=0.85)
    return close[0] if close else None


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


# -- baseline ----------------------------------------------------------------------------------


def add_ignores(text: str, diagnostics: Iterable[Diagnostic], reason: str = "") -> tuple[str, int]:
    """`text` with a `# tilecheck: ignore[...]` comment covering each diagnostic; and how many
    comments were added or extended. Comments go at the end of the diagnostic's line, or of
    its logical line when that line ends inside a string or with a backslash."""
    from tilecheck.lint.fixes import apply_fixes

    lines = _NEWLINE.split(text)
    blocked, logical_end = _line_layout(text, lines)
    wanted: dict[int, set[str]] = {}
    for diagnostic in diagnostics:
        line = diagnostic.span.line
        if not 1 <= line <= len(lines):
            continue
        target = line if line not in blocked else logical_end.get(line, line)
        if target in blocked:
            continue
        wanted.setdefault(target, set()).add(diagnostic.code)
    comments = {c.line: c for c in scan_comments(text) if not c.own_line}
    existing = {
        d.comment.line: d
        for d in parse_directives(comments.values(), ())
        if d.kind == "ignore" and d.codes_span
    }
    edits = []
    suffix = f" {reason.strip()}" if reason.strip() else ""
    for line, codes in sorted(wanted.items()):
        directive = existing.get(line)
        if directive is not None and directive.codes_span is not None:
            present = [e.text for e in directive.entries]
            merged = present + sorted(code for code in codes if code not in present)
            start, end = directive.codes_span
            edits.append(Edit(Span(line, start, line, end), ", ".join(merged)))
            continue
        content = lines[line - 1]
        end = len(content.rstrip())
        comment = f"  # tilecheck: ignore[{', '.join(sorted(codes))}]{suffix}"
        edits.append(Edit(Span(line, end, line, len(content)), comment))
    if not edits:
        return text, 0
    return apply_fixes(text, [Fix("Add suppressions", tuple(edits))]), len(edits)


def _line_layout(text: str, lines: list[str]) -> tuple[set[int], dict[int, int]]:
    """Lines a comment cannot end (inside a multi-line token, or continued by a backslash),
    and the last line of the logical line each line belongs to."""
    blocked: set[int] = set()
    logical_end: dict[int, int] = {}
    try:
        start: int | None = None
        for token in tokenize.generate_tokens(_python_lines(text)):
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if start is not None:
                    for line in range(start, token.start[0] + 1):
                        logical_end[line] = token.start[0]
                start = None
            elif token.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                if start is None:
                    start = token.start[0]
                if token.end[0] > token.start[0]:
                    blocked.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    for number, content in enumerate(lines, 1):
        if content.rstrip().endswith("\\"):
            blocked.add(number)
    return blocked, logical_end
