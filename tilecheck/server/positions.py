"""Positions between tilecheck (1-based lines, code-point columns) and LSP (0-based lines, columns
in the negotiated encoding: UTF-16 code units by default, UTF-8 bytes or UTF-32 code points).

Lines are split as libcst splits them (`\\n`, `\\r\\n`, `\\r`), not as `str.splitlines` does, so a
form feed or U+2028 inside a line does not shift the lines after it.
"""

from __future__ import annotations

import re

from lsprotocol import types

from tilecheck.core.types import Span

_NEWLINE = re.compile(r"\r\n|\r|\n")

UTF8 = types.PositionEncodingKind.Utf8.value
UTF16 = types.PositionEncodingKind.Utf16.value
UTF32 = types.PositionEncodingKind.Utf32.value


def split_lines(text: str) -> list[str]:
    return _NEWLINE.split(text)


def units(text: str, encoding: str) -> int:
    """The length of `text` in the code units of `encoding`."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def code_points(line: str, column: int, encoding: str) -> int:
    """The code-point column of the client column `column` on `line` (clamped to the line)."""
    if encoding == UTF32:
        return max(0, min(column, len(line)))
    seen = 0
    for index, char in enumerate(line):
        width = units(char, encoding)
        if seen + width > column:
            return index
        seen += width
    return len(line)


class PositionMap:
    """Conversions for one text in one encoding."""

    def __init__(self, text: str, encoding: str) -> None:
        self.lines = split_lines(text)
        self.encoding = encoding

    def position(self, line: int, column: int) -> types.Position:
        """tilecheck's (1-based line, code-point column) as an LSP position."""
        index = max(0, min(line - 1, len(self.lines) - 1))
        content = self.lines[index] if self.lines else ""
        if line - 1 > index:  # past the end: the end of the last line
            return types.Position(index, units(content, self.encoding))
        return types.Position(index, units(content[: max(0, column)], self.encoding))

    def range(self, span: Span) -> types.Range:
        return types.Range(
            self.position(span.line, span.column), self.position(span.end_line, span.end_column)
        )

    def point(self, position: types.Position) -> tuple[int, int]:
        """An LSP position as tilecheck's (1-based line, code-point column)."""
        index = max(0, min(position.line, len(self.lines) - 1))
        content = self.lines[index] if self.lines else ""
        if position.line > index:
            return index + 1, len(content)
        return index + 1, code_points(content, position.character, self.encoding)

    def span(self, rng: types.Range) -> Span:
        start, end = self.point(rng.start), self.point(rng.end)
        return Span(start[0], start[1], end[0], end[1])

    def end(self) -> types.Position:
        return types.Position(len(self.lines) - 1, units(self.lines[-1], self.encoding))


def contains(span: Span, line: int, column: int) -> bool:
    """Whether (line, column) lies in `span` (its end included: the cursor just after a name)."""
    return (span.line, span.column) <= (line, column) <= (span.end_line, span.end_column)


def overlaps(span: Span, other: Span) -> bool:
    return (span.line, span.column) <= (other.end_line, other.end_column) and (other.line, other.column) <= (
        span.end_line,
        span.end_column,
    )


def minimal_edit(old: str, new: str, positions: PositionMap) -> types.TextEdit | None:
    """One edit turning `old` into `new` (their common prefix and suffix kept); None if equal."""
    if old == new:
        return None
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    if _inside_crlf(old, start) or _inside_crlf(new, start):
        start -= 1
    if _inside_crlf(old, len(old) - end) or _inside_crlf(new, len(new) - end):
        end -= 1
    first, last = _offset_point(old, start), _offset_point(old, len(old) - end)
    rng = types.Range(positions.position(*first), positions.position(*last))
    return types.TextEdit(range=rng, new_text=new[start : len(new) - end])


def _inside_crlf(text: str, offset: int) -> bool:
    return 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n"


def _offset_point(text: str, offset: int) -> tuple[int, int]:
    """(1-based line, code-point column) of a string offset."""
    before = text[:offset]
    lines = split_lines(before)
    return len(lines), len(lines[-1])
