"""The resolved configuration of one directory (`Settings`) and of one file (`FileSettings`).

`Settings` reads its chain of configuration files (`extend`) lazily, each value with the file it
came from; `Resolver` (`config.resolver`) finds which directory's settings apply to a path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from tilecheck.config.declared import find_declaration
from tilecheck.config.file import ConfigFile
from tilecheck.config.patterns import PathPatterns, PatternTable
from tilecheck.config.selection import Layer, Selection, SelectionError, matches, validate
from tilecheck.core import meta
from tilecheck.core.errors import ConfigError, ProfileError
from tilecheck.core.meta import ALWAYS_REPORTED, Problem
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade, Severity
from tilecheck.tilelang.versions import MEASURED, SUPPORTED, SpecifierError, VersionRange

if TYPE_CHECKING:
    from tilecheck.backends.profile import Profile
    from tilecheck.config.resolver import Resolver

GRADES = tuple(grade.value for grade in Grade if grade is not Grade.META)

# Ruff's default exclusions, plus what tilecheck always skipped.
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
    ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv",
    ".vscode", "__pypackages__", "__pycache__", "_build", "buck-out", "build", "dist", "node_modules",
    "site-packages", "venv", "*.egg-info",
)  # fmt: skip


@dataclass
class FileSettings:
    """Everything the engine needs for one file."""

    rules: tuple[type[Rule], ...]  # enabled, in code order
    known: tuple[type[Rule], ...]  # every rule a suppression may name
    backend: Profile | None
    severities: dict[str, Severity]  # code -> overridden severity
    tilelang: VersionRange = field(default_factory=VersionRange.default)  # the releases checked against

    def severity(self, code: str, default: Severity) -> Severity:
        return self.severities.get(code, default)


class Settings:
    """The resolved configuration of one directory: its configuration file (or none)."""

    def __init__(self, config: ConfigFile | None, resolver: Resolver) -> None:
        self.config = config
        self.resolver = resolver
        self.chain = config.chain() if config is not None else []
        self._per_file: dict[tuple[tuple[int, ...], VersionRange], FileSettings] = {}
        self.skipped_plugins = False  # configured local plugins were not trusted, so not loaded

    # value lookups with their origin -------------------------------------------------
    def lookup(self, key: str) -> tuple[object, ConfigFile | None]:
        for config in reversed(self.chain):
            if key in config.values:
                return config.values[key], config
        return None, None

    @cached_property
    def rules(self) -> tuple[type[Rule], ...]:
        """Built-in, entry-point and this configuration's local plugin rules (when trusted)."""
        from tilecheck.config import plugins

        found = list(plugins.available_rules())
        _, origin = self.lookup("plugins")
        names = list(origin.strings("plugins") or ()) if origin is not None else []
        if origin is not None and names:
            if plugins.trusted(origin.directory, self.resolver.allow_plugins):
                for name in names:
                    found += plugins.load_local(name, origin.directory, origin.label)
            else:
                self.skipped_plugins = True
                self.resolver.warn(plugins.untrusted_warning(names, origin.label))
        return plugins.check_unique(found)

    @cached_property
    def exclude(self) -> list[PathPatterns]:
        _, origin = self.lookup("exclude")
        patterns = [
            PathPatterns(origin.strings("exclude") or (), origin.directory)
            if origin
            else PathPatterns(DEFAULT_EXCLUDE, "/")
        ]
        for config in self.chain:
            extra = config.strings("extend-exclude")
            if extra:
                patterns.append(PathPatterns(extra, config.directory))
        return patterns

    @cached_property
    def per_file_ignores(self) -> tuple[PatternTable, list[tuple[str, ...]]] | None:
        """The patterns of the nearest `per-file-ignores` table, and each one's codes."""
        _, origin = self.lookup("per-file-ignores")
        if origin is None:
            return None
        table = origin.table("per-file-ignores")
        return PatternTable(list(table), origin.directory), [tuple(codes) for codes in table.values()]

    @cached_property
    def selection(self) -> Selection:
        layers = []
        for config in self.chain:
            if any(key in config.values for key in ("select", "extend-select", "ignore")):
                layers.append(
                    Layer(
                        config.strings("select"),
                        config.strings("extend-select") or (),
                        config.strings("ignore") or (),
                        config.label,
                    )
                )
        cli = self.resolver.overrides.layer()
        if cli is not None:
            layers.append(cli)
        return Selection(layers)

    @cached_property
    def severity_table(self) -> dict[str, str]:
        merged: dict[str, str] = {}
        for config in self.chain:
            merged.update(config.table("severity"))
        return merged

    @cached_property
    def backends_table(self) -> dict[str, dict[str, object]]:
        merged: dict[str, dict[str, object]] = {}
        for config in self.chain:
            for name, profile in config.table("backends").items():
                merged[name] = {**merged.get(name, {}), **profile}
        return merged

    @cached_property
    def backend(self) -> Profile | None:
        name = self.resolver.overrides.backend
        where = self.resolver.overrides.names.backend
        if name is None:
            value, origin = self.lookup("backend")
            if origin is None:
                return None
            name, where = str(value), f"{origin.label}: `backend`"
        return resolve_backend(name, self.backends_table, where)

    @cached_property
    def configured_tilelang(self) -> VersionRange | None:
        """`--tilelang-version` or the configuration's `tilelang-version` (None: neither)."""
        spec = self.resolver.overrides.tilelang_version
        where = self.resolver.overrides.names.tilelang_version
        if spec is None:
            value, origin = self.lookup("tilelang-version")
            if origin is None:
                return None
            spec, where = str(value), f"{origin.label}: `tilelang-version`"
        try:
            chosen = VersionRange.of(spec, where)
        except SpecifierError as error:
            raise ConfigError(f"{where}: {error}") from None
        if not chosen.versions:
            raise ConfigError(
                f"{where}: `{spec}` matches none of the TileLang releases tilecheck has measured "
                f"({', '.join(MEASURED)})"
            )
        return chosen

    def tilelang_for(self, path: str) -> VersionRange:
        """The TileLang releases `path` is checked against: the setting, else what the project
        declares, else the supported releases."""
        configured = self.configured_tilelang
        if configured is not None:
            return configured
        if self.resolver.isolated:  # no project files are read
            return VersionRange.default()
        directory = os.path.dirname(os.path.abspath(path)) if not os.path.isdir(path) else path
        declaration = find_declaration(directory, self.resolver.declarations)
        if declaration is None:
            return VersionRange.default()
        if not declaration.spec:
            return VersionRange(SUPPORTED, f"{declaration.origin} (no version: the supported releases)")
        try:
            chosen = VersionRange.of(declaration.spec, declaration.origin)
        except SpecifierError as error:
            self.resolver.warn(f"{declaration.origin}: {error}; checking against the supported releases")
            return VersionRange(SUPPORTED, f"{declaration.origin} (unreadable: the supported releases)")
        if not chosen.versions:
            self.resolver.warn(
                f"{declaration.origin}: `tilelang{declaration.spec}` matches none of the TileLang releases "
                f"tilecheck has measured ({', '.join(MEASURED)}); checking against the supported releases"
            )
            return VersionRange(
                SUPPORTED, f"{declaration.origin} (no measured release: the supported releases)"
            )
        return chosen

    def validate(self) -> None:
        """Check rule names, severities and the backend; raises ConfigError."""
        rules = self.rules
        check = _SelectorCheck(rules, lenient=self.skipped_plugins)
        for config in self.chain:
            label = config.label
            for key in ("select", "extend-select", "ignore"):
                check(config.strings(key) or (), f"{label}: `{key}`")
            for pattern, codes in config.table("per-file-ignores").items():
                if not check.known(codes):
                    check(codes, f'{label}: `per-file-ignores` "{pattern}"')
            for key, level in config.table("severity").items():
                where = f"{label}: `severity`"
                if key == "optimization" and level != "info":
                    raise ConfigError(
                        f'{where}: optimization findings are never errors or warnings (got "{level}")'
                    )
                if key == Grade.META.value or (key not in GRADES and _only_always_on(key, rules)):
                    raise ConfigError(
                        f"{where}: `{key}` cannot be configured: a file that cannot be read, parsed or "
                        "analyzed is always an error (suppression findings can be configured by code, "
                        f'e.g. {meta.code_of(Problem.UNUSED_SUPPRESSION)} = "warning")'
                    )
                if key not in GRADES:
                    check([key], where)
        _ = self.backend, self.exclude, self.configured_tilelang  # resolve (and so validate) them now

    # per path -----------------------------------------------------------------------------
    def is_excluded(self, path: str, *, whole: bool = True) -> bool:
        absolute = os.path.abspath(path)
        return any(patterns.match(absolute, whole=whole) for patterns in self.exclude)

    def for_file(self, path: str) -> FileSettings:
        absolute = os.path.abspath(path)
        hits = tuple(self.per_file_ignores[0].hits(absolute)) if self.per_file_ignores else ()
        tilelang = self.tilelang_for(absolute)
        cached = self._per_file.get((hits, tilelang))
        if cached is None:
            cached = self._per_file[hits, tilelang] = self._file_settings(hits, tilelang)
        return cached

    def _file_settings(self, hits: tuple[int, ...], tilelang: VersionRange) -> FileSettings:
        rules = self.selection.enabled(self.rules)
        ignored = (
            [code for i in hits for code in self.per_file_ignores[1][i]] if self.per_file_ignores else []
        )
        grades = self.resolver.overrides.grades
        rules = [
            rule
            for rule in self.rules
            if rule.REPORTS in ALWAYS_REPORTED
            or (
                rule in rules
                and not any(matches(selector, rule) for selector in ignored)
                and (grades is None or rule.GRADE is Grade.META or rule.GRADE.value in grades)
            )
        ]
        severities = {}
        for rule in self.rules:
            override = self._severity_of(rule)
            if override is not None:
                severities[rule.CODE] = override
        return FileSettings(tuple(rules), self.rules, self.backend, severities, tilelang)

    def _severity_of(self, rule: type[Rule]) -> Severity | None:
        if rule.GRADE is Grade.OPTIMIZATION:
            return None  # optimization findings are always notes
        if rule.REPORTS in ALWAYS_REPORTED:
            return None  # a file that could not be analyzed is always an error
        best: tuple[int, str] | None = None
        for key, value in self.severity_table.items():
            if key == rule.GRADE.value:
                score = 0
            elif matches(key, rule):
                score = 1000 if key == rule.NAME else len(key) + 1
            else:
                continue
            if best is None or score > best[0]:
                best = (score, value)
        return Severity(best[1]) if best is not None else None


def _only_always_on(selector: str, rules: Iterable[type[Rule]]) -> bool:
    """Does `selector` name only the findings that say a file could not be analyzed?"""
    chosen = [rule for rule in rules if matches(selector, rule)]
    return bool(chosen) and all(rule.REPORTS in ALWAYS_REPORTED for rule in chosen)


class _SelectorCheck:
    """Validates selectors against the known rules, each distinct selector once (a table of
    100,000 per-file ignores names the same few codes again and again).

    `lenient`: local plugins were configured but not trusted, so a selector that names no
    known rule may name one of theirs; it is accepted."""

    def __init__(self, rules: Iterable[type[Rule]], *, lenient: bool = False) -> None:
        self.rules = tuple(rules)
        self.lenient = lenient
        self.exact = {rule.CODE for rule in self.rules} | {rule.NAME for rule in self.rules}
        self.valid: set[str] = set()

    def known(self, selectors: Iterable[str]) -> bool:
        """All of `selectors` are known to be valid (the fast path for large tables)."""
        return all(selector in self.exact or selector in self.valid for selector in selectors)

    def __call__(self, selectors: Iterable[str], where: str) -> None:
        for selector in selectors:
            if selector in self.exact or selector in self.valid:
                continue
            try:
                validate([selector], self.rules)
            except SelectionError as error:
                if self.lenient:
                    continue
                raise ConfigError(f"{where}: {str(error)[0].lower()}{str(error)[1:]}") from None
            self.valid.add(selector)


def resolve_backend(name: str, user_profiles: dict[str, dict[str, object]], where: str) -> Profile:
    from tilecheck.backends.profile import get_profile, names

    try:
        return get_profile(name, user_profiles)  # shipped, overridden or user-defined
    except ProfileError as error:
        raise ConfigError(f"`backends`: {error}") from None
    except KeyError:
        known = ", ".join(names(user_profiles))
        raise ConfigError(f"{where}: unknown backend `{name}` (known: {known})") from None
