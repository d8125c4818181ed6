"""The application layer: what every front end (CLI, language server, pre-commit) asks of tilecheck.

A `Workspace` owns configuration resolution for a set of options (the command line's flags or
an editor's settings) and answers in terms of files and texts: check paths, check one source
text under a path (an unsaved editor buffer), fix a text, add suppressions, lower a PyPTO file.
It keeps no process-wide state: two workspaces, or two threads using one, do not interfere.
Nothing here knows of argparse or of the Language Server Protocol.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecheck.config import Overrides, Resolver, Settings
from tilecheck.discover import discover
from tilecheck.engine import FileAnalysis, lint_source, read_source
from tilecheck.runner import DEFAULT_MEMORY, DEFAULT_TIMEOUT, Budget, run_isolated
from tilecheck.types import Diagnostic, Grade

if TYPE_CHECKING:
    from tilecheck.config import FileSettings
    from tilecheck.fixes import FixOutcome
    from tilecheck.pypto.api import LowerResult
    from tilecheck.rule import Rule

# At least this many files per worker process (a fork costs more than checking a few files).
CHUNK = 4


@dataclass(frozen=True)
class Options:
    """What a front end may override; unset fields leave the configuration files in charge."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    backend: str | None = None
    grades: frozenset[str] | None = None  # only rules of these grades
    output_format: str | None = None
    config_path: str | None = None  # one configuration file for every file
    isolated: bool = False  # no configuration files at all
    per_file_timeout: float | None = DEFAULT_TIMEOUT  # seconds per file (None: unlimited)
    per_file_memory: int | None = DEFAULT_MEMORY  # MiB per file (None: unlimited)

    def overrides(self) -> Overrides:
        return Overrides(
            select=list(self.select) if self.select is not None else None,
            extend_select=list(self.extend_select),
            ignore=list(self.ignore),
            backend=self.backend,
            grades=self.grades,
            output_format=self.output_format,
        )


@dataclass
class CheckRun:
    """The results of checking many files, in the order they were found."""

    files: list[str]
    analyses: dict[str, FileAnalysis] = field(default_factory=dict)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for path in self.files for d in self.analyses[path].diagnostics]

    @property
    def internal_error(self) -> bool:
        return any(analysis.internal_error for analysis in self.analyses.values())


class Workspace:
    """Configuration plus the operations on files and texts that every front end needs."""

    def __init__(self, options: Options | None = None, *, cwd: str | None = None) -> None:
        self.options = options or Options()
        self.resolver = Resolver(
            self.options.overrides(),
            config_path=self.options.config_path,
            isolated=self.options.isolated,
            cwd=cwd,
        )
        self._lock = threading.RLock()  # the resolver caches per directory

    # -- configuration -----------------------------------------------------------------------
    def settings_for(self, path: str) -> Settings:
        """The resolved configuration of the directory `path` is in."""
        with self._lock:
            return self.resolver.for_path(path)

    def file_settings(self, path: str) -> FileSettings:
        """What the engine needs for `path`: enabled rules, backend, severities."""
        with self._lock:
            return self.resolver.for_path(path).for_file(path)

    def enabled_rules(self, paths: Iterable[str]) -> tuple[type[Rule], ...]:
        found = {rule for path in paths for rule in self.file_settings(path).rules}
        return tuple(sorted(found, key=lambda rule: rule.CODE))

    def is_excluded(self, path: str, explicit: bool = False) -> bool:
        parent = os.path.dirname(os.path.abspath(path))
        with self._lock:
            return self.resolver.for_directory(parent).is_excluded(path, whole=explicit)

    def discover(self, paths: Sequence[str], *, force_exclude: bool = False) -> list[str]:
        """The files a check of `paths` covers, in a stable order."""
        return list(discover(list(paths), self.is_excluded, force_exclude=force_exclude))

    # -- checking ----------------------------------------------------------------------------
    def check_text(self, text: str | bytes, path: str) -> FileAnalysis:
        """Check a source text as if it were the file `path` (an unsaved editor buffer)."""
        return lint_source(text, path, self.file_settings(path))

    def check_file(self, path: str) -> FileAnalysis:
        data, failure = read_source(path)
        if failure is not None or data is None:
            return FileAnalysis(path, [failure] if failure else [])
        return self.check_text(data, path)

    def check_paths(
        self, paths: Sequence[str], *, jobs: int | None = None, force_exclude: bool = False
    ) -> CheckRun:
        """Check every file under `paths`, in `jobs` processes (default: one per core)."""
        files = self.discover(paths, force_exclude=force_exclude)
        return self.check_files(files, jobs=jobs)

    def check_files(self, files: Sequence[str], *, jobs: int | None = None) -> CheckRun:
        """Check `files` in crash-isolated worker processes (`tilecheck.runner`), even with one job:
        a file that crashes or exhausts its budget costs only its own result."""
        if jobs is not None and jobs < 1:
            raise ValueError("jobs must be at least 1")
        run = CheckRun(list(files))
        tasks = [(path, self.file_settings(path)) for path in run.files]
        budget = Budget(self.options.per_file_timeout, self.options.per_file_memory)
        workers = min(jobs or os.cpu_count() or 1, len(tasks) // CHUNK or 1)
        results = run_isolated(tasks, check_task, _task_path, jobs=workers, budget=budget)
        run.analyses = dict(zip(run.files, results, strict=True))
        return run

    # -- rewriting ---------------------------------------------------------------------------
    def fix_text(
        self, text: str, path: str, *, unsafe: bool = False, first: FileAnalysis | None = None
    ) -> FixOutcome:
        """Apply the fixes of `text`'s diagnostics until none applies (as `--fix` does)."""
        from tilecheck.fixes import fix_text

        settings = self.file_settings(path)
        return fix_text(text, lambda again: lint_source(again, path, settings), unsafe=unsafe, first=first)

    def add_ignores(
        self, text: str, path: str, reason: str = "", *, first: FileAnalysis | None = None
    ) -> tuple[str, int]:
        """`text` with a suppression comment for each of its current findings, and how many."""
        from tilecheck.suppressions import add_ignores

        analysis = first if first is not None else self.check_text(text, path)
        targets = [d for d in analysis.diagnostics if d.grade is not Grade.META]
        return add_ignores(text, targets, reason)

    # -- PyPTO -------------------------------------------------------------------------------
    def lower_text(self, text: str | bytes, path: str) -> LowerResult:
        """What PyPTO's LowerPipelineLoops pass makes of `text` (bytes are decoded as Python
        decodes a file), under `path`'s configuration: backend, rule selection, severities,
        and the text's suppression comments."""
        from tilecheck.pypto.api import lower_source

        return lower_source(text, path, settings=self.file_settings(path))


def _task_path(task: tuple[str, FileSettings]) -> str:
    return task[0]


def check_task(task: tuple[str, FileSettings]) -> FileAnalysis:
    """Check one file in a worker; the result leaves the CST behind (it is costly to pickle)."""
    path, settings = task
    data, failure = read_source(path)
    if failure is not None or data is None:
        return FileAnalysis(path, [failure] if failure else [])
    return lint_source(data, path, settings).detached()
