"""`grouped` (ruff's): the diagnostics under a header naming their file, one line each.

```
k.py:
  10:13 error: TL104 [*] [semantic] Local buffer `loc` ...
  15:22 error: TL101 [semantic] Nested `T.Parallel` loop ...

Found 2 errors in 1 file.
```
Line and column numbers are aligned within a file; `[*]` marks a fix `--fix` would apply. In a
notebook each position names its cell, the line counted in it (`  cell 3:6:22 error: ...`), as
ruff prints it.
"""

from __future__ import annotations

from itertools import groupby
from typing import TextIO

from tilecheck.core.types import Diagnostic
from tilecheck.report import BOLD, CYAN, LEVEL_COLOURS, Run, closing, display_path, level, paint, shown_line


def _fixable(diagnostic: Diagnostic, run: Run) -> bool:
    return run.fix_hints and diagnostic.fix is not None and (diagnostic.fix.safe or run.unsafe_fixes)


def _cell(diagnostic: Diagnostic) -> str:
    return "" if diagnostic.cell is None else f"cell {diagnostic.cell.number}:"


def render(run: Run, out: TextIO) -> None:
    for path, found in groupby(run.diagnostics, key=lambda d: display_path(d.path)):
        diagnostics = list(found)
        out.write(paint(path, run.color, BOLD) + ":\n")
        cells = max(len(_cell(d)) for d in diagnostics)
        lines = max(len(str(shown_line(d.span, d.cell))) for d in diagnostics)
        columns = max(len(str(d.span.column + 1)) for d in diagnostics)
        for diagnostic in diagnostics:
            colour = LEVEL_COLOURS[diagnostic.severity]
            line = shown_line(diagnostic.span, diagnostic.cell)
            where = f"{_cell(diagnostic):<{cells}}{line:>{lines}}:{diagnostic.span.column + 1:<{columns}}"
            word = paint(level(diagnostic) + ":", run.color, BOLD, colour)
            code = paint(diagnostic.code, run.color, BOLD, colour)
            mark = paint("[*]", run.color, BOLD, CYAN) + " " if _fixable(diagnostic, run) else ""
            out.write(f"  {where} {word} {code} {mark}[{diagnostic.grade.value}] {diagnostic.message}\n")
        out.write("\n")
    out.write(closing(run))
