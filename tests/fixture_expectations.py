"""Expected diagnostics written in fixture kernels as trailing comments.

- `# expect: TL101:26, TL104:13` holds under every backend profile and with no backend;
- `# expect[cpu,hip-gfx942]: TL301:22` holds only under the listed backends. Entries are
  `fnmatch` patterns (`cuda-*`), `none` means "no backend selected" and `all` every profile
  (but not "no backend"). Several expectations can share one comment:
  `# expect: TL102:22  # expect[cpu]: TL301:22`.

The demo kernels (`fixtures/examples/`) read like a kernel author's code, so their expectations
live in a sidecar `NAME.expect` next to `NAME.py`, one line per source line:
`21: expect: TL104:17  <-  row_max[i] = S[i, 0]`; the quoted source (stripped) must match that
line, so an edit that shifts the kernel fails loudly instead of silently moving expectations.
`file_expectations(path, backend)` reads both.
"""

from __future__ import annotations

import fnmatch
import io
import re
import tokenize
from pathlib import Path

EXPECT = re.compile(r"^expect(?:\[([^\]]*)\])?:\s*(.+)$")
ITEM = re.compile(r"^(TL\d{3}):(\d+)$")
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
NO_BACKEND = "none"
SIDECAR_LINE = re.compile(r"^(\d+):\s*(expect(?:\[[^\]]*\])?:.+?)\s+<-\s+(.*)$")


def applies(patterns: str | None, backend: str | None) -> bool:
    """Whether an `expect[patterns]` comment holds under `backend` (None: no backend)."""
    if patterns is None:
        return True
    name = backend if backend is not None else NO_BACKEND
    for pattern in (p.strip() for p in patterns.split(",")):
        if not pattern:
            continue
        if pattern == "all" and backend is not None:
            return True
        if fnmatch.fnmatchcase(name, pattern):
            return True
    return False


def expectations(source: str, backend: str | None = None) -> set[tuple[int, int, str]]:
    """(line, column, code) triples, columns 1-based, expected under `backend` (None: no backend)."""
    found: set[tuple[int, int, str]] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        for part in token.string.split("#"):
            match = EXPECT.match(part.strip())
            if match is None:
                continue
            if not applies(match.group(1), backend):
                continue
            for item in match.group(2).split(","):
                parsed = ITEM.match(item.strip())
                if parsed is None:
                    raise ValueError(f"line {token.start[0]}: malformed expectation {item!r}")
                found.add((token.start[0], int(parsed.group(2)), parsed.group(1)))
    return found


def file_expectations(path: Path, backend: str | None = None) -> set[tuple[int, int, str]]:
    """The expectations of a fixture file: its `# expect:` comments and its `.expect` sidecar."""
    source = path.read_text()
    found = expectations(source, backend)
    sidecar = path.with_suffix(".expect")
    if sidecar.exists():
        found |= sidecar_expectations(sidecar.read_text(), source, backend)
    return found


def sidecar_expectations(text: str, source: str, backend: str | None = None) -> set[tuple[int, int, str]]:
    lines = source.splitlines()
    comments = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        match = SIDECAR_LINE.match(raw.strip())
        if match is None:
            raise ValueError(f"sidecar line {number}: expected `LINE: expect: CODE:COLUMN  <-  source`")
        line = int(match.group(1))
        if not 1 <= line <= len(lines) or lines[line - 1].strip() != match.group(3).strip():
            raise ValueError(f"sidecar line {number}: line {line} of the kernel is not `{match.group(3)}`")
        comments.append((line, match.group(2)))
    found: set[tuple[int, int, str]] = set()
    for line, comment in comments:
        found |= {(line, column, code) for _, column, code in expectations(f"# {comment}\n", backend)}
    return found
