"""Parsing a module one top-level statement at a time, reusing what did not change.

`parse_module(text, cache)` returns a `libcst.Module` equal (`deep_equals`) to
`libcst.parse_module(text)`, built from one libcst parse per top-level statement ("chunk"):
CPython's `ast` (about ten times faster than libcst) finds where each statement starts, each
chunk is parsed on its own, and a `ChunkCache` the caller owns keeps the parsed chunks keyed
by their text, so re-parsing an edited buffer costs only the chunks the edit touched.

How a chunk is parsed so that it becomes exactly what the whole-file parse would have made:

- A chunk is one top-level statement (decorators included; statements sharing a line are one
  chunk) plus the comment and blank lines after it, up to the next statement. libcst splits
  such lines between the statement's last indented block (lines indented further) and the next
  statement (its `leading_lines`); a sentinel `pass` after the chunk takes the next statement's
  place, so the split is the whole-file parse's, and the sentinel's `leading_lines` move to the
  next chunk's first statement.
- libcst stores an indented block's indentation only where it differs from the module's
  default (the file's first indentation) and the newline likewise: each chunk is parsed after a
  prefix `if 1:` block that gives it the file's default indentation and newline.
- The first chunk keeps the file's header comments in front of the prefix (they are the
  module's `header`); the last has no sentinel (its trailing lines are the module's `footer`).

Anything unusual (no statement, a lone carriage return, a form feed, text between statements
that is not a comment, a chunk that does not parse alone) makes this a whole-file parse, which
also raises exactly what `libcst.parse_module` raises for invalid input.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import OrderedDict
from dataclasses import dataclass

import libcst as cst

from tilecheck.source import python_ast
from tilecheck.source.cst_parse import parse_module as parse_whole
from tilecheck.source.tree_cache import TreeCache

_GAP_LINE = re.compile(r"[ \t]*(#[^\r\n]*)?\r?\n?")  # what may stand between two statements
_SENTINEL = "pass"
_DEFAULT_INDENT = "    "  # libcst's, for a file without an indented block
Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


@dataclass(frozen=True)
class ParsedChunk:
    """One chunk's share of the module: its statements, and what belongs to its neighbours."""

    statements: tuple[Statement, ...]
    next_leading: tuple[cst.EmptyLine, ...]  # the next statement's leading lines (not the last chunk)
    header: tuple[cst.EmptyLine, ...]  # the module's header (the first chunk only)
    footer: tuple[cst.EmptyLine, ...]  # the module's footer (the last chunk only)
    has_trailing_newline: bool


class ChunkCache:
    """Parsed chunks keyed by their text and place (first, last, indentation, newline), least
    recently used dropped first. Owned by its caller (e.g. one per editor buffer or per server);
    nothing here is shared between callers. Not thread-safe: one caller at a time."""

    def __init__(self, max_chunks: int = 4096) -> None:
        self.max_chunks = max_chunks
        self.hits = 0
        self.misses = 0
        self._chunks: OrderedDict[tuple[str, bool, bool, str, str], ParsedChunk] = OrderedDict()
        # A chunk's first statement with the previous chunk's trailing lines as its leading
        # lines, by both: an unchanged statement stays the same node from one text to the next
        # (the kernel model reuses what it built from it, `tilelang.reuse`).
        self._joined: OrderedDict[tuple[object, ...], Statement] = OrderedDict()
        # Module-level statements' texts CPython's tree showed not too deep (`guards.checked_tree`).
        self.shallow: set[str] = set()
        self.trees = TreeCache()  # CPython's tree of the buffer's last text

    def __len__(self) -> int:
        return len(self._chunks)

    def clear(self) -> None:
        self._chunks.clear()
        self._joined.clear()
        self.shallow.clear()
        self.trees = TreeCache()

    def _join(
        self, key: tuple[str, bool, bool, str, str], statement: Statement, leading: tuple[cst.EmptyLine, ...]
    ) -> Statement:
        joined_key = (key, tuple(_empty_line_key(line) for line in leading))
        found = self._joined.get(joined_key)
        if found is None:
            found = self._joined[joined_key] = statement.with_changes(leading_lines=leading)
            while len(self._joined) > self.max_chunks:
                self._joined.popitem(last=False)
        else:
            self._joined.move_to_end(joined_key)
        return found

    def _get(self, key: tuple[str, bool, bool, str, str]) -> ParsedChunk | None:
        found = self._chunks.get(key)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
            self._chunks.move_to_end(key)
        return found

    def _put(self, key: tuple[str, bool, bool, str, str], chunk: ParsedChunk) -> None:
        self._chunks[key] = chunk
        while len(self._chunks) > self.max_chunks:
            self._chunks.popitem(last=False)


class _Unsplittable(Exception):
    """The text cannot be parsed chunk by chunk: parse it whole."""


def parse_module(text: str, cache: ChunkCache | None = None, *, tree: ast.Module | None = None) -> cst.Module:
    """`libcst.parse_module(text)`, chunk by chunk, reusing `cache`'s chunks (see the module
    documentation); `tree` is `ast.parse(text)` when the caller has it already."""
    try:
        return _assemble(text, cache if cache is not None else ChunkCache(), tree)
    except _Unsplittable:
        return parse_whole(text)


def split_lines(text: str) -> list[str]:
    """The lines of `text` as CPython numbers them (each with its line ending)."""
    return text.splitlines(keepends=True) if "\r" in text else _split_newlines(text)


def _split_newlines(text: str) -> list[str]:
    lines = text.split("\n")
    last = lines.pop()
    result = [line + "\n" for line in lines]
    if last:
        result.append(last)
    return result


def chunk_starts(text: str, tree: ast.Module | None = None) -> list[int] | None:
    """The first line (1-based) of each chunk after the first, or None when the text cannot be
    split (it does not parse, has no statement, or has unusual line endings)."""
    try:
        return _chunk_bounds(text, split_lines(text), tree)[0]
    except _Unsplittable:
        return None


def _chunk_bounds(text: str, lines: list[str], tree: ast.Module | None) -> tuple[list[int], list[int], int]:
    """Where each chunk after the first starts, where each chunk's own statement ends, and the
    first statement's first line (the lines before it are the module's header)."""
    if "\f" in text or "\r" in text.replace("\r\n", ""):
        raise _Unsplittable  # form feeds and old Mac line endings: rare, and line numbers differ
    if tree is None:
        try:
            tree = python_ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            raise _Unsplittable from None
    if not tree.body:
        raise _Unsplittable
    starts: list[int] = []
    ends: list[int] = []
    opening = 0
    for statement in tree.body:
        first = python_ast.first_line(statement)
        opening = opening or first
        last = statement.end_lineno or statement.lineno
        if ends and first <= ends[-1]:  # `a = 1; b = 2`: one libcst statement line
            ends[-1] = max(ends[-1], last)
            continue
        if ends:
            starts.append(first)
        ends.append(last)
    for gap_start, gap_end in zip(ends, starts, strict=False):
        for line in lines[gap_start : gap_end - 1]:
            if not _GAP_LINE.fullmatch(line):
                raise _Unsplittable  # e.g. a backslash continuation between statements
    return starts, ends, opening


def _assemble(text: str, cache: ChunkCache, tree: ast.Module | None) -> cst.Module:
    lines = split_lines(text)
    starts, ends, first_stmt_line = _chunk_bounds(text, lines, tree)
    newline = _first_newline(text)
    bounds = [1, *starts]
    indent = _first_indent(lines, bounds, ends)
    body: list[Statement] = []
    leading: tuple[cst.EmptyLine, ...] | None = None
    parsed: ParsedChunk | None = None
    header: tuple[cst.EmptyLine, ...] = ()
    for index, start in enumerate(bounds):
        stop = bounds[index + 1] - 1 if index + 1 < len(bounds) else len(lines)
        first, last = index == 0, index == len(bounds) - 1
        chunk_text = "".join(lines[start - 1 : stop])
        key = (chunk_text, first, last, indent, newline)
        parsed = cache._get(key)
        if parsed is None:
            parsed = _parse_chunk(chunk_text, first, last, indent, newline, first_stmt_line)
            cache._put(key, parsed)
        statements = list(parsed.statements)
        if leading is not None and statements:
            statements[0] = cache._join(key, statements[0], leading)
        body.extend(statements)
        leading = parsed.next_leading
        if first:
            header = parsed.header
    assert parsed is not None
    return cst.Module(
        body=body,
        header=header,
        footer=parsed.footer,
        encoding="utf-8",
        default_indent=indent,
        default_newline=newline,
        has_trailing_newline=parsed.has_trailing_newline,
    )


def _parse_chunk(
    chunk_text: str, first: bool, last: bool, indent: str, newline: str, first_stmt_line: int
) -> ParsedChunk:
    prefix = f"if 1:{newline}{indent}{_SENTINEL}{newline}"
    head = ""
    if first:  # the header comments stay in front, where they are the module's header
        head_lines = split_lines(chunk_text)[: first_stmt_line - 1]
        head = "".join(head_lines)
        chunk_text = chunk_text[len(head) :]
    source = head + prefix + chunk_text + ("" if last else f"{_SENTINEL}{newline}")
    try:
        module = parse_whole(source)
    except Exception:  # whatever it is, the whole-file parse reports it
        raise _Unsplittable from None
    body = list(module.body)
    if not body or not isinstance(body[0], cst.If):
        raise _Unsplittable
    body.pop(0)
    next_leading: tuple[cst.EmptyLine, ...] = ()
    if not last:
        sentinel = body.pop() if body else None
        if not _is_sentinel(sentinel):
            raise _Unsplittable
        assert sentinel is not None
        next_leading = tuple(sentinel.leading_lines)
    if not body:
        raise _Unsplittable
    return ParsedChunk(
        statements=tuple(body),
        next_leading=next_leading,
        header=tuple(module.header) if first else (),
        footer=tuple(module.footer) if last else (),
        has_trailing_newline=module.has_trailing_newline,
    )


def _empty_line_key(line: cst.EmptyLine) -> tuple[object, ...]:
    comment = line.comment.value if line.comment is not None else None
    return (line.indent, line.whitespace.value, comment, line.newline.value)


def _is_sentinel(statement: Statement | None) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Pass)
        and statement.trailing_whitespace.comment is None
    )


def _first_newline(text: str) -> str:
    """libcst's default newline: the file's first line ending (else a line feed)."""
    match = re.search(r"\r\n?|\n", text)
    return match.group(0) if match else "\n"


def _first_indent(lines: list[str], bounds: list[int], ends: list[int]) -> str:
    """libcst's default indentation: the file's first INDENT token (else four spaces). It lies in
    the first chunk whose statement has an indented block; the tokenizer stops there."""
    for start, end in zip(bounds, ends, strict=True):
        statement = "".join(lines[start - 1 : end])
        if ":" not in statement:
            continue
        try:
            for token in tokenize.generate_tokens(io.StringIO(statement).readline):
                if token.type == tokenize.INDENT:
                    return token.string
        except (tokenize.TokenError, SyntaxError, IndentationError):
            raise _Unsplittable from None
    return _DEFAULT_INDENT
