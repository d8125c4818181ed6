"""A baseline: a `# tilecheck: ignore[...]` comment for every current finding (`--add-ignore`)."""

from __future__ import annotations

import tokenize
from collections.abc import Iterable

from tilecheck.core.types import Diagnostic, Edit, Fix, Span
from tilecheck.lint.directives import parse_directives, python_lines, scan_comments
from tilecheck.source.python_ast import LINE_BREAK


def add_ignores(text: str, diagnostics: Iterable[Diagnostic], reason: str = "") -> tuple[str, int]:
    """`text` with a `# tilecheck: ignore[...]` comment covering each diagnostic; and how many
    comments were added or extended. Comments go at the end of the diagnostic's line, or of
    its logical line when that line ends inside a string or with a backslash."""
    from tilecheck.lint.fixes import apply_fixes

    lines = LINE_BREAK.split(text)
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
    commented: set[int] = set()  # a backslash that ends a comment continues nothing
    try:
        start: int | None = None
        for token in tokenize.generate_tokens(python_lines(text)):
            if token.type == tokenize.COMMENT:
                commented.add(token.start[0])
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
        if content.rstrip().endswith("\\") and number not in commented:
            blocked.add(number)
    return blocked, logical_end
