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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecheck.app.budget import DEFAULT_MEMORY, DEFAULT_TIMEOUT, Budget
from tilecheck.app.discover import discover
from tilecheck.app.scheduling import file_size, largest_first, worker_count
from tilecheck.config.resolver import CLI_NAMES, OptionNames, Overrides, Resolver, Settings
from tilecheck.config.selection import SelectionError, validate
from tilecheck.core.errors import UsageError
from tilecheck.core.types import Diagnostic, Grade
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.source.notebook_path import is_notebook
from tilecheck.source.reading import read_source

if TYPE_CHECKING:
    from tilecheck.app.cache import ResultCache
    from tilecheck.config.resolver import FileSettings
    from tilecheck.core.catalogue import RuleEntry
    from tilecheck.lint.fixes import FixOutcome
    from tilecheck.pypto.api import LowerResult

Task = tuple[str, "FileSettings", "bytes | None"]  # bytes: already read (e.g. for the cache's hash)
Progress = Callable[[int], None]  # called with the number of files done so far


@dataclass(frozen=True)
class Options:
    """What a front end may override; unset fields leave the configuration files in charge."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    backend: str | None = None
    tilelang_version: str | None = None  # a TileLang version or range; None: the configuration's
    grades: frozenset[str] | None = None  # only rules of these grades
    output_format: str | None = None
    config_path: str | None = None  # one configuration file for every file
    isolated: bool = False  # no configuration files at all
    cache: bool = False  # reuse and store results in the content cache (the CLI's default)
    cache_dir: str | None = None  # default: TILECHECK_CACHE_DIR, else .tilecheck_cache in the project root
    respect_gitignore: bool | None = None  # None: the configuration's `respect-gitignore` (default true)
    allow_plugins: bool | None = None  # local plugins: None asks the environment and the trust list
    # Per-file budgets, 0 meaning no limit; None: the working directory's configuration
    # (`per-file-timeout`, `per-file-memory`), else DEFAULT_TIMEOUT seconds and DEFAULT_MEMORY MiB.
    per_file_timeout: float | None = None
    per_file_memory: int | None = None
    names: OptionNames = CLI_NAMES  # how messages name these options (the CLI's flags)
    # Configuration keys the front end sets (`--config KEY=VALUE`, `--exclude`, ...), in order;
    # they override every configuration file.
    config_values: tuple[tuple[str, object], ...] = ()

    def overrides(self) -> Overrides:
        return Overrides(
            names=self.names,
            select=list(self.select) if self.select is not None else None,
            extend_select=list(self.extend_select),
            ignore=list(self.ignore),
            backend=self.backend,
            tilelang_version=self.tilelang_version,
            grades=self.grades,
            output_format=self.output_format,
            values=dict(self.config_values),
        )


@dataclass
class CheckRun:
    """The results of checking many files, in the order they were found."""

    files: list[str]
    analyses: dict[str, FileAnalysis] = field(default_factory=dict)
    settings: list[FileSettings] = field(default_factory=list)  # each file's, in the same order

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for path in self.files for d in self.analyses[path].diagnostics]

    @property
    def internal_error(self) -> bool:
        return any(analysis.internal_error for analysis in self.analyses.values())


class Workspace:
    """Configuration plus the operations on files and texts that every front end needs."""

    def __init__(
        self,
        options: Options | None = None,
        *,
        cwd: str | None = None,
        on_warning: Callable[[str], None] | None = None,
    ) -> None:
        """`on_warning` receives each configuration warning once (e.g. untrusted local plugins);
        they are also kept in `self.resolver.warnings`."""
        self.options = options or Options()
        self.resolver = Resolver(
            self.options.overrides(),
            config_path=self.options.config_path,
            isolated=self.options.isolated,
            cwd=cwd,
            allow_plugins=self.options.allow_plugins,
            on_warning=on_warning,
        )
        self._lock = threading.RLock()  # the resolver caches per directory
        self._cache: ResultCache | None = None

    # -- configuration -----------------------------------------------------------------------
    def settings_for(self, path: str) -> Settings:
        """The resolved configuration of the directory `path` is in."""
        with self._lock:
            return self.resolver.for_path(path)

    def file_settings(self, path: str) -> FileSettings:
        """What the engine needs for `path`: enabled rules, backend, severities."""
        absolute = os.path.abspath(path)  # once: each step below would ask for the working directory
        with self._lock:
            return self.resolver.for_path(absolute).for_file(absolute)

    def enabled_rules(
        self, paths: Iterable[str], settings: Iterable[FileSettings] | None = None
    ) -> tuple[RuleEntry, ...]:
        """The rules enabled for any of `paths` (whose settings, when known, are `settings`)."""
        chosen = settings if settings is not None else map(self.file_settings, paths)
        distinct = {id(each): each for each in chosen}  # the files of a directory share one
        found = {rule for each in distinct.values() for rule in each.rules}
        return tuple(sorted(found, key=lambda rule: rule.CODE))

    def is_excluded(self, path: str, explicit: bool = False) -> bool:
        parent = os.path.dirname(os.path.abspath(path))
        with self._lock:
            return self.resolver.for_directory(parent).is_excluded(path, whole=explicit)

    def is_included(self, path: str) -> bool:
        parent = os.path.dirname(os.path.abspath(path))
        with self._lock:
            return self.resolver.for_directory(parent).is_included(path)

    def validate_selectors(self, paths: Iterable[str] = ()) -> None:
        """Each `select`/`extend_select`/`ignore` option must name a rule of the configuration of
        one of `paths`, or of any resolved so far (or of the working directory's): UsageError otherwise."""
        selectors = [*(self.options.select or ()), *self.options.extend_select, *self.options.ignore]
        if not selectors:
            return
        with self._lock:
            for path in paths:
                self.resolver.for_path(path)
            resolved = self.resolver.all_settings() or [self.resolver.for_directory(self.resolver.cwd)]
            known = {rule for settings in resolved for rule in settings.rules}
            untrusted = any(settings.skipped_plugins for settings in resolved)
        try:
            validate(selectors, known)
        except SelectionError as error:
            if not untrusted:  # else the selector may name a rule of a plugin that was not loaded
                raise UsageError(str(error)) from None

    def discover(self, paths: Sequence[str], *, force_exclude: bool = False) -> list[str]:
        """The files a check of `paths` covers, in a stable order."""
        respect = self.respects_gitignore()
        return list(
            discover(
                list(paths),
                self.is_excluded,
                force_exclude=force_exclude,
                respect_gitignore=respect,
                included=self.is_included,
            )
        )

    def output_format(self, flag: str | None = None) -> str:
        """The report format: `flag`, else TILECHECK_OUTPUT_FORMAT, else the working directory's
        `output-format`, else `full`; UsageError naming where an unknown one came from."""
        from tilecheck.report import OUTPUT_FORMATS

        chosen = flag or os.environ.get("TILECHECK_OUTPUT_FORMAT")
        where = "--output-format" if flag else "TILECHECK_OUTPUT_FORMAT"
        if not chosen:
            value, origin = self.settings_for(self.resolver.cwd).lookup("output-format")
            chosen, where = (str(value), f"{origin.label}: `output-format`") if origin else ("full", "")
        if chosen not in OUTPUT_FORMATS:
            raise UsageError(
                f"{where}: unknown output format `{chosen}` (choose from {', '.join(OUTPUT_FORMATS)})"
            )
        return chosen

    def respects_gitignore(self) -> bool:
        """Options first, else the working directory's `respect-gitignore` (default true)."""
        if self.options.respect_gitignore is not None:
            return self.options.respect_gitignore
        value, origin = self.settings_for(self.resolver.cwd).lookup("respect-gitignore")
        return bool(value) if origin is not None else True

    # -- checking ----------------------------------------------------------------------------
    def check_text(self, text: str | bytes, path: str) -> FileAnalysis:
        """Check a source text as if it were the file `path` (an unsaved editor buffer)."""
        return lint_source(text, path, self.file_settings(path))

    def check_file(self, path: str) -> FileAnalysis:
        data, failure = read_source(path)
        if failure is not None or data is None:
            return FileAnalysis(path, [failure] if failure else [])
        if is_notebook(path):
            from tilecheck.app.notebooks import check_notebook

            return check_notebook(data, path, self.file_settings(path))
        return self.check_text(data, path)

    def check_paths(
        self, paths: Sequence[str], *, jobs: int | None = None, force_exclude: bool = False
    ) -> CheckRun:
        """Check every file under `paths`, in `jobs` processes (default: one per core)."""
        files = self.discover(paths, force_exclude=force_exclude)
        return self.check_files(files, jobs=jobs)

    def check_files(
        self, files: Sequence[str], *, jobs: int | None = None, progress: Progress | None = None
    ) -> CheckRun:
        """Check `files` in crash-isolated worker processes (`tilecheck.app.supervisor`), even with one job:
        a file that crashes or exhausts its budget costs only its own result. `progress(done)` is
        called as results arrive (e.g. a progress line)."""
        if jobs is not None and jobs < 1:
            raise ValueError("jobs must be at least 1")
        run = CheckRun(list(files))
        run.settings = [self.file_settings(path) for path in run.files]
        tasks = list(zip(run.files, run.settings, strict=True))
        budget = self.budget()
        cache = self.result_cache()
        if cache is not None:
            run.analyses = cache.check(
                tasks, lambda missed, done: check_tasks(missed, jobs, done, budget), progress
            )
            if cache.problem is not None:  # the run went on without it; said once
                self.resolver.warn(f"result cache {cache.directory} not used: {cache.problem}")
        else:
            results = check_tasks(
                [(path, settings, None) for path, settings in tasks], jobs, progress, budget
            )
            run.analyses = dict(zip(run.files, results, strict=True))
        return run

    def budget(self) -> Budget:
        """Per-file time and memory limits: the options, else the working directory's
        configuration (a run-wide setting, like `respect-gitignore`), else the defaults."""
        settings = self.settings_for(self.resolver.cwd)
        limits: list[float | None] = []
        for given, key, default in (
            (self.options.per_file_timeout, "per-file-timeout", DEFAULT_TIMEOUT),
            (self.options.per_file_memory, "per-file-memory", DEFAULT_MEMORY),
        ):
            value, origin = (given, None) if given is not None else settings.lookup(key)
            chosen = value if given is not None or origin is not None else default
            assert chosen is None or isinstance(chosen, (int, float))  # validated with the configuration
            limits.append(chosen or None)  # 0: no limit
        seconds, memory = limits
        return Budget(seconds, int(memory) if memory is not None else None)

    def result_cache(self) -> ResultCache | None:
        """The content cache this workspace's options ask for (None with caching off)."""
        if not self.options.cache:
            return None
        from tilecheck.app.cache import ResultCache, default_cache_dir

        with self._lock:
            if self._cache is None:
                self._cache = ResultCache(default_cache_dir(self.project_root(), self.options.cache_dir))
            return self._cache

    def project_root(self) -> str:
        """The directory of the configuration that applies to the working directory, else it."""
        config = self.settings_for(self.resolver.cwd).config
        return config.directory if config is not None else self.resolver.cwd

    # -- rewriting ---------------------------------------------------------------------------
    def fix_text(
        self, text: str, path: str, *, unsafe: bool = False, first: FileAnalysis | None = None
    ) -> FixOutcome:
        """Apply the fixes of `text`'s diagnostics until none applies (as `--fix` does)."""
        from tilecheck.lint.fixes import fix_text

        settings = self.file_settings(path)
        return fix_text(text, lambda again: lint_source(again, path, settings), unsafe=unsafe, first=first)

    def add_ignores(
        self, text: str, path: str, reason: str = "", *, first: FileAnalysis | None = None
    ) -> tuple[str, int]:
        """`text` with a suppression comment for each of its current findings, and how many."""
        from tilecheck.lint.baseline import add_ignores

        analysis = first if first is not None else self.check_text(text, path)
        targets = [d for d in analysis.diagnostics if d.grade is not Grade.META]
        return add_ignores(text, targets, reason)

    # -- PyPTO -------------------------------------------------------------------------------
    def lower_files(self, paths: Sequence[str]) -> list[FileAnalysis]:
        """Lower each file in a crash-isolated worker (`app.lowering.lower_files`)."""
        from tilecheck.app.lowering import lower_files

        return lower_files(self, paths)

    def lower_text(self, text: str | bytes, path: str) -> LowerResult:
        """What PyPTO's LowerPipelineLoops pass makes of `text` (bytes are decoded as Python
        decodes a file), under `path`'s configuration: backend, rule selection, severities,
        and the text's suppression comments."""
        from tilecheck.app.lowering import lower_configured
        from tilecheck.pypto.api import LowerResult

        settings = self.file_settings(path)
        if isinstance(text, bytes):
            from tilecheck.lint.prefilter import cannot_have_findings

            plain = cannot_have_findings(text, settings)
            if plain is not None:  # no PyPTO, nothing a rule reports on: no CST to build
                return LowerResult(plain, [], False, plain)
        return lower_configured(text, path, settings)


def lint_source(data: bytes | str, path: str, settings: FileSettings) -> FileAnalysis:
    """The engine's `lint_source`, imported when a file is checked (the rule loop is no part
    of a run the cache answers); the one place the workspace and its workers check a text."""
    from tilecheck.lint import engine

    return engine.lint_source(data, path, settings)


def check_tasks(
    tasks: Sequence[Task], jobs: int | None, progress: Progress | None = None, budget: Budget | None = None
) -> list[FileAnalysis]:
    """Check `(path, settings, bytes or None)` tasks in crash-isolated workers (`tilecheck.app.supervisor`),
    one file at a time, largest first (`tilecheck.app.scheduling`); results in task order."""
    if not tasks:
        return []  # every result came from the cache
    from tilecheck.app.supervisor import run_isolated  # multiprocessing: only when a file is checked

    sizes = [file_size(path, data) for path, _, data in tasks]
    order = largest_first(sizes)
    done = run_isolated(
        [tasks[index] for index in order],
        check_task,
        _task_path,
        jobs=max(worker_count(jobs, sizes), 1),
        budget=budget or Budget(DEFAULT_TIMEOUT, DEFAULT_MEMORY),
        progress=progress,
    )
    results = dict(zip(order, done, strict=True))
    return [results[index] for index in range(len(tasks))]


def _task_path(task: Task) -> str:
    return task[0]


def check_task(task: Task) -> FileAnalysis:
    """Check one file in a worker; the result leaves the CST behind (it is costly to pickle)."""
    path, settings, data = task
    if data is None:
        data, failure = read_source(path)
        if failure is not None or data is None:
            return FileAnalysis(path, [failure] if failure else [])
    if is_notebook(path):  # its JSON is not the text to prefilter
        from tilecheck.app.notebooks import check_notebook

        return check_notebook(data, path, settings).detached()
    from tilecheck.lint.prefilter import cannot_have_findings

    clean_text = cannot_have_findings(data, settings)
    if clean_text is not None:  # no kernel, no suppression: no CST needed (tilecheck.lint.prefilter)
        return FileAnalysis(path, [], False, clean_text)
    return lint_source(data, path, settings).detached()
