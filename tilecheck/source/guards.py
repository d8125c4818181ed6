"""Spotting source that could crash or stall libcst's native parser, cheaply, before parsing.

libcst 1.9 segfaults at about 1,270 nested brackets and needs minutes on a few thousand chained
calls; CPython rejects more than 200 nested brackets and protects itself from deep nesting.
`suspicious` is a single regular-expression pass over brackets and line ends (no tokenizing):
it flags any file whose bracket depth or logical-line length could hide deep nesting, so that
CPython's parser, and `too_deep` on its tree, decide before libcst sees the file. Brackets inside
strings and comments are counted too: that can only flag a file, never miss one.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilecheck.source import python_ast

if TYPE_CHECKING:
    from tilecheck.source.tree_cache import TreeCache

MAX_BRACKETS = 100  # CPython's own limit is 200; flag well below it
MAX_LOGICAL_LINE = 2000  # characters: chains of operators or calls need long logical lines
MAX_DEPTH = 1000  # syntax-tree depth libcst parses safely (it crashes beyond about 8,000)

# CPython refuses decimal literals of more than 4,300 digits (a SyntaxError since 3.11); libcst
# reads them, and tilecheck folds them as unknown. The same digits as hexadecimal keep every
# position and the tree's shape, so CPython can still judge the rest of the file.
_LONG_DECIMAL = re.compile(r"(?<![\w.])[0-9]{4301,}(?![\w.])")
_DIGIT_LIMIT = "Exceeds the limit"
_SCAN = re.compile(r"[(\[{]|[)\]}]|\\\r?\n|\n")
_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")


def suspicious(text: str) -> bool:
    """True when `text` may nest deeply enough to endanger libcst (false alarms are possible)."""
    if len(text) < MAX_LOGICAL_LINE and text.count("(") + text.count("[") + text.count("{") <= MAX_BRACKETS:
        return False
    depth = 0
    line_start = 0
    for match in _SCAN.finditer(text):
        token = match.group()
        if token in _OPEN:
            depth += 1
            if depth > MAX_BRACKETS:
                return True
        elif token in _CLOSE:
            depth = max(depth - 1, 0)
        elif token == "\n" and depth == 0:
            if match.start() - line_start > MAX_LOGICAL_LINE:
                return True
            line_start = match.end()
    return len(text) - line_start > MAX_LOGICAL_LINE


@dataclass(frozen=True)
class Refusal:
    """Why a text must not be handed to libcst: `syntax` (CPython's own syntax error) or `complex`."""

    kind: str
    line: int
    column: int  # 0-based
    message: str


def cpython_verdict(text: str, path: str = "<string>", *, deep: bool = False) -> Refusal | None:
    """CPython's verdict on `text`: its syntax error at its position, `complex` when CPython
    gives up on it, or (with `deep`) when its tree nests beyond MAX_DEPTH; None when it is fine.
    With `deep`, decimal literals beyond CPython's digit limit are no error (libcst reads them)."""
    return checked_tree(text, path, deep=deep)[1]


def checked_tree(
    text: str,
    path: str = "<string>",
    *,
    deep: bool = False,
    shallow: set[str] | None = None,
    trees: TreeCache | None = None,
) -> tuple[ast.Module | None, Refusal | None]:
    """CPython's tree of `text` and `cpython_verdict`'s verdict (the tree is None when CPython
    refuses the text, or accepts it only with its long decimals rewritten), so that a caller
    that needs the tree as well parses only once. `shallow` holds module-level statements'
    texts known not to nest too deeply (an editor buffer's, from its earlier versions): they are
    not walked again, and the ones found so are added; `trees` parses the buffer's text
    re-using its previous version's tree."""
    try:
        # Not under `path`: CPython re-reads an error's line from that file when it exists, so an
        # unsaved editor buffer would get columns measured on the saved text. One thread at a time.
        tree = trees.parse(text) if trees is not None else python_ast.parse(text, "<tilecheck>")
    except SyntaxError as error:
        column = max((error.offset or 1) - 1, 0)
        if deep and error.msg.startswith(_DIGIT_LIMIT):
            hexadecimal = _LONG_DECIMAL.sub(lambda match: "0x" + "0" * (len(match.group()) - 2), text)
            if hexadecimal != text:
                return None, cpython_verdict(hexadecimal, path, deep=True)
        if error.msg.startswith("too many"):  # CPython's nesting limits: brackets, indentation, blocks
            message = f"File is too deeply nested to parse: {error.msg}"
            return None, Refusal("complex", error.lineno or 1, column, message)
        if error.lineno is None and "\0" in text:  # CPython 3.11 does not say where the NUL is
            return None, Refusal("syntax", *_nul_position(text), f"Syntax error: {error.msg}")
        return None, Refusal("syntax", error.lineno or 1, column, f"Syntax error: {error.msg}")
    except RecursionError:
        return None, Refusal(
            "complex", 1, 0, "File is too deeply nested to parse (CPython's parser gives up on it too)"
        )
    except MemoryError:  # CPython's parser stack, or the worker's memory budget
        message = (
            "File is too complex to parse: CPython's parser runs out of memory on it (too deep or too large)"
        )
        return None, Refusal("complex", 1, 0, message)
    except ValueError as error:  # NUL bytes (a comment's too), before Python 3.12
        return None, Refusal("syntax", *_nul_position(text), f"Syntax error: {error}")
    where = _too_deep_statement(text, tree, shallow) if deep else None
    if where is not None:
        message = f"File is too deeply nested to analyze (an expression nests more than {MAX_DEPTH} levels)"
        return None, Refusal("complex", *where, message)
    return tree, None


def compiler_verdict(
    text: str, tree: ast.Module | None, trees: TreeCache | None = None
) -> tuple[ast.Module | None, Refusal | None]:
    """What CPython says of a text libcst parsed: its parser's verdict (when `tree`, its tree of
    `text`, is not known yet) and then its compiler's, which refuses what no parser does
    (`break` outside a loop, `return` outside a function, a repeated keyword argument, `nonlocal`
    at module level, ...). The tree is returned for the rules' context to reuse. With `trees`
    (the buffer's, which parsed `tree`), only the statements an edit changed are compiled when
    the rest compiled before (`TreeCache.changed`)."""
    if tree is None:
        tree, refusal = checked_tree(text, deep=True)  # a decimal past CPython's digit limit is no error
        if tree is None:  # refused, or accepted only with its long decimals rewritten
            return None, refusal
    changed = trees.changed(tree) if trees is not None else None
    try:
        python_ast.compile_module(tree if changed is None else ast.Module(body=changed, type_ignores=[]))
    except SyntaxError as error:
        column = max((error.offset or 1) - 1, 0)
        return tree, Refusal("syntax", error.lineno or 1, column, f"Syntax error: {error.msg}")
    except (RecursionError, MemoryError, ValueError):
        return tree, None  # the compiler gave up: nothing proven against the file
    if trees is not None:
        trees.compiled(tree)
    return tree, None


def _nul_position(text: str) -> tuple[int, int]:
    offset = text.find("\0")
    if offset < 0:
        return 1, 0
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start


def refuse(text: str, path: str = "<string>") -> Refusal | None:
    """Why `text` must not reach libcst, decided cheaply for ordinary files; None when it may.

    A suspicious text CPython rejects is refused with CPython's syntax error: CPython stops at
    its first error without building the tree, so the depth of the rest is unknown, and libcst
    needs minutes on a few thousand chained calls (`y()()()...`) even in a file that has one."""
    return cpython_verdict(text, path, deep=True) if suspicious(text) else None


def _too_deep_statement(
    text: str, tree: ast.Module, shallow: set[str] | None = None
) -> tuple[int, int] | None:
    """`too_deep(tree)`, walking only the module-level statements that are `suspicious` on
    their own: nesting never crosses a statement, and the rest of a large suspicious file (one
    long line in it) need not be walked; the first such statement's deep node, if any."""
    starts = [0] + [match.end() for match in python_ast.LINE_BREAK.finditer(text)]  # offset of each line
    for statement in tree.body:
        first = python_ast.first_line(statement)
        last = statement.end_lineno or statement.lineno
        segment = text[starts[first - 1] : starts[last] if last < len(starts) else len(text)]
        if shallow is not None and segment in shallow:
            continue  # its depth depends on its text alone
        if suspicious(segment):
            where = too_deep(statement, start=1)
            if where is not None:
                return where
        if shallow is not None:
            shallow.add(segment)
    return None


def too_deep(tree: ast.AST, limit: int = MAX_DEPTH, *, start: int = 0) -> tuple[int, int] | None:
    """The (line, column) of the first node nested more than `limit` levels deep, if any;
    `tree` itself is `start` levels deep."""
    stack = [(tree, start)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return None
