"""Expected diagnostics written in fixture kernels as trailing `# expect: TL101:26, TL104:13`."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

EXPECT = re.compile(r"#\s*expect:\s*(.+)$")
ITEM = re.compile(r"^(TL\d{3}):(\d+)$")
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def expectations(source: str) -> set[tuple[int, int, str]]:
    """(line, column, code) triples, columns 1-based, from the file's comments."""
    found: set[tuple[int, int, str]] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        match = EXPECT.search(token.string)
        if match is None:
            continue
        for item in match.group(1).split(","):
            parsed = ITEM.match(item.strip())
            if parsed is None:
                raise ValueError(f"line {token.start[0]}: malformed expectation {item!r}")
            found.add((token.start[0], int(parsed.group(2)), parsed.group(1)))
    return found
