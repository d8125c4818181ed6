"""Lines of a source text: where each starts, offsets of (line, column), CPython's byte columns.

Lines end at `\\n`, `\\r\\n` or `\\r`, as CPython counts them; columns are code points, as
`Span` has them. CPython's tree gives columns in UTF-8 bytes: `utf8_column` converts them.
"""

from __future__ import annotations

from tilecheck.source.python_ast import LINE_BREAK


def line_starts(text: str) -> list[int]:
    """Offsets of the first character of each line."""
    return [0, *(match.end() for match in LINE_BREAK.finditer(text))]


def to_offset(starts: list[int], text: str, line: int, column: int) -> int:
    """The offset of (1-based `line`, 0-based `column`), clamped to the text."""
    if line > len(starts):
        return len(text)
    return min(starts[line - 1] + column, len(text))


def newline_of(text: str) -> str:
    """The text's first line ending (`\\n` when it has none)."""
    match = LINE_BREAK.search(text)
    return match.group() if match else "\n"


def utf8_column(line: str, offset: int) -> int:
    """CPython's column on `line` (an offset in UTF-8 bytes) in code points."""
    return len(line.encode("utf-8")[:offset].decode("utf-8", "replace"))
