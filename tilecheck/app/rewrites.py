"""`--fix`, `--diff` and `--add-ignore` over many files, in tilecheck's crash-isolated workers.

A worker reads a file, checks it, computes the rewritten text (fixes until none applies, or a
suppression comment for every finding) and checks that text again, all within the file's
budget; only texts and diagnostics come back (`PlannedRewrite`). The parent writes the file
(`write_planned`), atomically and only while its bytes are still those the worker read. A file
that crashes its worker or exhausts its budget costs only itself: it gets its TL005 or TL004
from `tilecheck.app.supervisor` and is left exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecheck.app.notebooks import located
from tilecheck.app.scheduling import file_size, largest_first, worker_count
from tilecheck.app.supervisor import run_isolated
from tilecheck.core.types import Diagnostic
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.lint.prefilter import cannot_have_findings
from tilecheck.source.notebook import Notebook, read_notebook
from tilecheck.source.notebook_path import is_notebook
from tilecheck.source.reading import read_source

if TYPE_CHECKING:
    from tilecheck.app.workspace import Workspace


@dataclass(frozen=True)
class RewriteRequest:
    """What to do to each file: `reason` not None adds suppressions (`--add-ignore[=REASON]`),
    else fixes are applied (`unsafe` ones too when asked)."""

    unsafe: bool = False
    reason: str | None = None


@dataclass
class PlannedRewrite(FileAnalysis):
    """The check of a file as it is (the inherited fields), and what a rewrite would make of it."""

    data: bytes = b""  # the bytes the worker read: the write is refused if the file changed since
    rewritten: str | None = None  # the new text; None when nothing changes
    count: int = 0  # diagnostics fixed, or suppression comments added
    applied: list[Diagnostic] = field(default_factory=list)  # the diagnostics whose fix was applied
    after: FileAnalysis | None = None  # the check of `rewritten`
    encoded: bytes | None = (
        None  # the bytes to write, when not `rewritten` encoded as `data` was (a notebook)
    )
    refusal: str = ""  # why `rewritten` cannot be written (a notebook whose formatting is not reproducible)


def plan_rewrite(workspace: Workspace, path: str, request: RewriteRequest) -> FileAnalysis:
    """Check `path` and compute its rewrite (in a worker); a plain FileAnalysis when the file
    cannot be read or decoded."""
    data, failure = read_source(path)
    if failure is not None or data is None:
        return FileAnalysis(path, [failure] if failure else [])
    if is_notebook(path):
        return _plan_notebook(workspace, path, request, data)
    clean_text = cannot_have_findings(data, workspace.file_settings(path))
    if clean_text is not None:  # no kernel, no suppression: nothing to rewrite (tilecheck.lint.prefilter)
        return FileAnalysis(path, [], False, clean_text)
    return _plan(workspace, path, request, data, workspace.check_text(data, path))


def _plan(
    workspace: Workspace, path: str, request: RewriteRequest, data: bytes, first: FileAnalysis
) -> PlannedRewrite:
    plan = PlannedRewrite(
        path, first.diagnostics, first.internal_error, first.text, measured=first.coverage, data=data
    )
    if first.text is None:
        return plan
    original = first.text
    if request.reason is not None:
        text, count = workspace.add_ignores(original, path, request.reason, first=first)
        after = workspace.check_text(text, path) if count else first
        applied: list[Diagnostic] = []
    else:
        outcome = workspace.fix_text(original, path, unsafe=request.unsafe, first=first)
        assert isinstance(outcome.result, FileAnalysis)
        text, count, after, applied = outcome.text, len(outcome.fixed), outcome.result, outcome.fixed
    if text != original:
        plan.rewritten, plan.count, plan.applied, plan.after = text, count, applied, after.detached()
    return plan


def _plan_notebook(workspace: Workspace, path: str, request: RewriteRequest, data: bytes) -> FileAnalysis:
    """`plan_rewrite` of a notebook: its code cells' text is rewritten, then put back in the
    notebook, formatted as it was (`tilecheck.source.notebook`)."""
    notebook = read_notebook(data, path)
    if not isinstance(notebook, Notebook):
        return FileAnalysis(path, [notebook])
    plan = _plan(workspace, path, request, data, located(workspace.check_text(notebook.text, path), notebook))
    if plan.rewritten is None or plan.after is None:
        return plan
    encoded = notebook.rewrite(plan.rewritten, data)
    if isinstance(encoded, str):
        plan.refusal = encoded
        plan.after = located(plan.after, notebook)
        return plan
    plan.encoded = encoded
    rewritten = read_notebook(encoded, path)  # its cells, where a fix added or removed lines
    plan.after = located(plan.after, rewritten if isinstance(rewritten, Notebook) else notebook)
    return plan


def plan_rewrites(
    workspace: Workspace,
    files: Sequence[str],
    request: RewriteRequest,
    *,
    jobs: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[FileAnalysis]:
    """`plan_rewrite` for every file in crash-isolated workers, largest first, within the
    workspace's per-file budget; results in the order of `files`."""
    sizes = [file_size(path) for path in files]
    order = largest_first(sizes)
    done = run_isolated(
        [files[index] for index in order],
        lambda path: plan_rewrite(workspace, path, request),
        str,
        jobs=max(worker_count(jobs, sizes), 1),
        budget=workspace.budget(),
        progress=progress,
    )
    results = dict(zip(order, done, strict=True))
    return [results[index] for index in range(len(files))]


def write_planned(plan: PlannedRewrite) -> str:
    """Write `plan.rewritten` over the file, encoded as it was; "" when written, else why not."""
    from tilecheck.app.files import WriteError, encode_like, write_atomic

    assert plan.rewritten is not None
    if plan.refusal:
        return f"not modified: {plan.refusal}"
    try:
        data = plan.encoded if plan.encoded is not None else encode_like(plan.data, plan.rewritten)
        write_atomic(plan.path, data, expected=plan.data)
    except WriteError as error:
        return f"not modified: {error}"
    return ""
