"""`tilecheck check -`: check source read from standard input, as ruff does.

`--stdin-filename PATH` names the text for configuration (which rules, `per-file-ignores`,
backend) and for messages; without it the path is `-`. With `--fix` the fixed source is
printed to stdout (encoded as it came in) and the remaining findings go to stderr; with
`--diff` the diff is printed instead. Nothing is ever written to a file. Standard input is
read up to the limit files have (`source.reading.MAX_FILE_BYTES`): `yes | tilecheck check -`
is a file too large to check, not a run that grows until it runs out of memory.
"""

from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO

from tilecheck.source.notebook_path import is_notebook

if TYPE_CHECKING:
    from tilecheck.app.workspace import Workspace
    from tilecheck.lint.analysis import FileAnalysis

STDIN_PATH = "-"


@dataclass
class StdinCheck:
    analysis: FileAnalysis  # the findings left (after fixing, with --fix)
    fixed: int = 0  # diagnostics whose fix was applied
    output: bytes | None = None  # --fix: the source to print
    diff: str = ""  # --diff: the fixes as a unified diff
    problems: list[str] = field(default_factory=list)


def _check_notebook(
    workspace: Workspace, data: bytes, name: str, *, fix: bool, diff: bool, unsafe: bool
) -> StdinCheck:
    from tilecheck.app.notebooks import located
    from tilecheck.source.notebook import Notebook, read_notebook

    notebook = read_notebook(data, name)
    if not isinstance(notebook, Notebook):
        from tilecheck.lint.analysis import FileAnalysis

        return StdinCheck(FileAnalysis(name, [notebook]), output=data if fix else None)
    first = located(workspace.check_text(notebook.text, name), notebook)
    if not (fix or diff) or first.text is None:
        return StdinCheck(first, output=data if fix else None)
    outcome = workspace.fix_text(first.text, name, unsafe=unsafe, first=first)
    assert isinstance(outcome.result, type(first))
    if diff:  # the cells as written, as ruff shows a notebook's diff
        return StdinCheck(first, len(outcome.fixed), diff=notebook.diff(outcome.text, name))
    rewritten = notebook.rewrite(outcome.text, data) if outcome.fixed else data
    if isinstance(rewritten, str):  # formatting not reproducible: unchanged, its findings all left
        return StdinCheck(first, output=data)
    fixed = read_notebook(rewritten, name)  # its cells, where a fix added or removed lines
    result = located(outcome.result, fixed if isinstance(fixed, Notebook) else notebook)
    return StdinCheck(result, len(outcome.fixed), output=rewritten)


def read_stdin(stream: BinaryIO | None = None) -> bytes:
    """Standard input, but at most one byte more than a file may have (so it is known to be
    too large without reading the rest)."""
    from tilecheck.source.reading import MAX_FILE_BYTES, read_at_most

    return read_at_most((stream or sys.stdin.buffer).read, MAX_FILE_BYTES)


def check_stdin(
    workspace: Workspace,
    data: bytes,
    path: str | None,
    *,
    fix: bool = False,
    diff: bool = False,
    unsafe: bool = False,
) -> StdinCheck:
    name = path or STDIN_PATH
    from tilecheck.source.reading import MAX_FILE_BYTES

    if len(data) > MAX_FILE_BYTES:
        from tilecheck.core import meta
        from tilecheck.core.meta import Problem
        from tilecheck.lint.analysis import FileAnalysis

        message = f"File is too large to check (more than {MAX_FILE_BYTES} bytes)"
        return StdinCheck(FileAnalysis(name, [meta.at_start(Problem.UNREADABLE_FILE, name, message)]))
    if is_notebook(name):  # a notebook's check; its fixed JSON is what --fix prints
        return _check_notebook(workspace, data, name, fix=fix, diff=diff, unsafe=unsafe)
    first = workspace.check_text(data, name)
    if not (fix or diff) or first.text is None:
        return StdinCheck(first, output=data if fix else None)
    outcome = workspace.fix_text(first.text, name, unsafe=unsafe, first=first)
    result = outcome.result
    if diff:
        before, after = first.text.splitlines(keepends=True), outcome.text.splitlines(keepends=True)
        text = "".join(difflib.unified_diff(before, after, f"a/{name}", f"b/{name}"))
        return StdinCheck(first, len(outcome.fixed), diff=text)
    from tilecheck.app.files import encode_like

    output = encode_like(data, outcome.text) if outcome.fixed else data
    return StdinCheck(result, len(outcome.fixed), output=output)
