"""May a file hold TileLang or PyPTO code? One cheap word test, before anything is parsed.

Every check of kernel code starts here: the prefilter (no CST for a file that cannot have a
finding), the kernel model (empty without these words), the PyPTO checks, the dependency
reader (what a cached result depends on), coverage and TL006. A kernel whose `T` comes from a
helper module need not name `tilelang`, but it names a decorator, a kernel or a loop.
"""

from __future__ import annotations

import re

TILELANG_WORDS = ("tilelang", "prim_func", "Kernel", ".macro", "Parallel", "Pipelined")
PYPTO_WORDS = ("pypto",)
KERNEL_WORDS = TILELANG_WORDS + PYPTO_WORDS
_KERNEL_BYTES = tuple(word.encode() for word in KERNEL_WORDS)

# Calls only TileLang code makes, wherever they are (TL006 looks for the ones no kernel holds).
_CONSTRUCT = re.compile(r"\.\s*(?:prim_func|Kernel|Pipelined|Parallel)\b")


def may_hold_tilelang(text: str) -> bool:
    return any(word in text for word in TILELANG_WORDS)


def may_hold_pypto(text: str) -> bool:
    return any(word in text for word in PYPTO_WORDS)


def may_hold_kernel_code(data: str | bytes) -> bool:
    """Either; on bytes, for ASCII-compatible encodings (where a word's absence from the bytes is
    its absence from the text)."""
    if isinstance(data, bytes):
        return any(word in data for word in _KERNEL_BYTES)
    return any(word in data for word in KERNEL_WORDS)


def construct_lines(text: str) -> list[int]:
    """The line of each TileLang construct call (`.prim_func`, `.Kernel`, `.Pipelined`,
    `.Parallel`), in order; lines are counted incrementally, linear in the file."""
    lines: list[int] = []
    line, counted = 1, 0
    for match in _CONSTRUCT.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        lines.append(line)
    return lines
