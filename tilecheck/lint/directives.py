"""Suppression comments as written: scanned from the token stream (never the CST) and parsed.

- `# tilecheck: ignore[TL101, nested-parallel]` (or `# noqa: TL101`): trailing, it covers the
  whole logical line it is on (so it works on any line of a multi-line call or
  comprehension); on a line of its own, it covers the next logical line.
- `# tilecheck: disable[TL104]` ... `# tilecheck: enable[TL104]`: every line in between.
- `# tilecheck: file-ignore[TL105]`: the whole file.

There is no blanket form: a directive without codes is invalid. A bare `# noqa`, and noqa
codes that are not tilecheck's (`# noqa: E501`), belong to other tools and are left alone.
Which findings they hide, and which of them are unused, is `lint.suppressions`'s job.
"""

from __future__ import annotations

import difflib
import io
import re
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tilecheck.core.registry import by_code
from tilecheck.core.rule import Rule
from tilecheck.core.types import Span
from tilecheck.source.python_ast import LINE_BREAK

KINDS = ("ignore", "disable", "enable", "file-ignore")

_DIRECTIVE = re.compile(r"#\s*tilecheck\s*:\s*(?P<kind>[A-Za-z][\w-]*)?\s*(?:\[(?P<codes>[^\]]*)\])?")
_NOQA = re.compile(
    r"#\s*noqa\b(?:\s*:\s*(?P<codes>[A-Za-z]+[0-9]+(?:(?:\s*,\s*|\s+)[A-Za-z]+[0-9]+)*))?", re.IGNORECASE
)
_OURS = re.compile(r"TL[0-9]{3}", re.IGNORECASE)


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
        for number, line in enumerate(LINE_BREAK.split(text), 1):
            index = line.find("#")
            if index >= 0:
                prefix = line[:index]
                comments.append(
                    Comment(number, index, line[index:], not prefix.strip(), prefix, number, number)
                )
        return comments


def python_lines(text: str) -> Callable[[], str]:
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
    for token in tokenize.generate_tokens(python_lines(text)):
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


def closest_rule(text: str) -> str | None:
    """The rule name (or code) `text` most likely misspells, if one is close enough."""
    from tilecheck.core.registry import builtin_rules

    names = [rule.NAME for rule in builtin_rules()] + [rule.CODE for rule in builtin_rules()]
    close = difflib.get_close_matches(text, names, n=1, cutoff=0.85)
    return close[0] if close else None
