"""The resolved configuration of one directory (`Settings`) and of one file (`FileSettings`).

`Settings` reads its chain of configuration files (`extend`) lazily, each value with the file it
came from; `Resolver` (`config.resolver`) finds which directory's settings apply to a path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from tilecheck.config.declared import find_declaration
from tilecheck.config.file import ConfigFile
from tilecheck.config.patterns import PathPatterns, PatternTable
from tilecheck.config.selection import Layer, Selection, matches, specificity
from tilecheck.config.validation import SelectorCheck, always_reported, only_always_on, resolve_backend
from tilecheck.core.catalogue import RuleEntry, code_reporting
from tilecheck.core.errors import ConfigError
from tilecheck.core.meta import Problem
from tilecheck.core.types import Grade, Severity
from tilecheck.source.notebook_path import SUFFIX as NOTEBOOK_SUFFIX
from tilecheck.tilelang.versions import (
    MEASURED,
    SUPPORTED,
    Specifier,
    SpecifierError,
    VersionRange,
    names,
    nearest,
)

if TYPE_CHECKING:
    from tilecheck.backends.profile import Profile
    from tilecheck.config.resolver import Resolver
    from tilecheck.core.rule import Rule

SOURCE_SUFFIXES = (".py", ".pyi", NOTEBOOK_SUFFIX)  # what a directory walk checks, before `extend-include`
GRADES = tuple(grade.value for grade in Grade if grade is not Grade.META)

# Ruff's default exclusions, plus what tilecheck always skipped, and its own cache (a warm run
# of the shared corpus met its 1,839 entries beside the 613 files it checks).
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
    ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tilecheck_cache",
    ".tox", ".venv", ".vscode", "__pypackages__", "__pycache__", "_build", "buck-out", "build", "dist",
    "node_modules", "site-packages", "venv", "*.egg-info",
)  # fmt: skip


FIX_SELECTOR_KEYS = ("fixable", "unfixable", "extend-safe-fixes", "extend-unsafe-fixes")


@dataclass
class FileSettings:
    """Everything the engine needs for one file. The rules are their identities
    (`core.catalogue`): resolving and keying settings imports no rule module; the engine
    loads the classes (`rule_classes`)."""

    rules: tuple[RuleEntry, ...]  # enabled, in code order
    known: tuple[RuleEntry, ...]  # every rule a suppression may name
    backend: Profile | None
    severities: dict[str, Severity]  # code -> overridden severity
    # code -> None: its fixes are not offered; True/False: its fixes count as safe/unsafe
    fix_policy: dict[str, bool | None] = field(default_factory=dict)
    tilelang: VersionRange = field(default_factory=VersionRange.default)  # the releases checked against

    def severity(self, code: str, default: Severity) -> Severity:
        return self.severities.get(code, default)

    def rule_classes(self) -> tuple[type[Rule], ...]:
        return tuple(rule.load() for rule in self.rules)

    def known_classes(self) -> tuple[type[Rule], ...]:
        return tuple(rule.load() for rule in self.known)


class Settings:
    """The resolved configuration of one directory: its configuration file (or none)."""

    def __init__(self, config: ConfigFile | None, resolver: Resolver) -> None:
        self.config = config
        self.resolver = resolver
        # The command line's `--config KEY=VALUE` and exclude/per-file-ignores flags come last: they win.
        self.chain = [*(config.chain() if config is not None else []), *resolver.command_line]
        self._per_file: dict[tuple[tuple[tuple[int, int], ...], VersionRange], FileSettings] = {}
        self.skipped_plugins = False  # configured local plugins were not trusted, so not loaded

    # value lookups with their origin -------------------------------------------------
    def lookup(self, key: str) -> tuple[object, ConfigFile | None]:
        for config in reversed(self.chain):
            if key in config.values:
                return config.values[key], config
        return None, None

    @cached_property
    def rules(self) -> tuple[RuleEntry, ...]:
        """Built-in, entry-point and this configuration's local plugin rules (when trusted)."""
        from tilecheck.config import plugins

        found = list(plugins.available_rules())
        _, origin = self.lookup("plugins")
        names = list(origin.strings("plugins") or ()) if origin is not None else []
        if origin is not None and names:
            if plugins.trusted(origin.directory, self.resolver.allow_plugins):
                for name in names:
                    found += map(RuleEntry.of, plugins.load_local(name, origin.directory, origin.label))
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
    def extend_include(self) -> list[PathPatterns]:
        """Files a directory walk checks beyond `*.py`, `*.pyi` and `*.ipynb` (every file of the chain adds)."""
        return [
            PathPatterns(config.strings("extend-include") or (), config.directory)
            for config in self.chain
            if config.strings("extend-include")
        ]

    @cached_property
    def per_file_ignores(self) -> list[tuple[PatternTable, list[tuple[str, ...]]]]:
        """The nearest `per-file-ignores` table and every `extend-per-file-ignores` of the chain:
        each table's patterns (relative to its file's directory) and each pattern's codes."""
        _, origin = self.lookup("per-file-ignores")
        sources = [(origin, "per-file-ignores")] if origin is not None else []
        sources += [
            (config, "extend-per-file-ignores")
            for config in self.chain
            if config.table("extend-per-file-ignores")
        ]
        tables = []
        for config, key in sources:
            table = config.table(key)
            tables.append(
                (PatternTable(list(table), config.directory), [tuple(codes) for codes in table.values()])
            )
        return tables

    @cached_property
    def fixability(self) -> Selection:
        """`fixable` (default: all) and `unfixable`, layered along the chain as `select`/`ignore` are."""
        layers = [Layer(("ALL",))]
        for config in self.chain:
            if "fixable" in config.values or "unfixable" in config.values:
                layers.append(
                    Layer(config.strings("fixable"), (), config.strings("unfixable") or (), config.label)
                )
        return Selection(layers)

    @cached_property
    def fix_policy(self) -> dict[str, bool | None]:
        """Code -> None (its fixes are not offered), True (its unsafe fixes count as safe) or
        False (its safe fixes count as unsafe), for the rules whose fixes the settings change.
        Between `extend-safe-fixes` and `extend-unsafe-fixes` the more specific selector wins,
        and a tie is unsafe."""
        fixable = set(self.fixability.enabled(self.rules))
        safe = [s for config in self.chain for s in config.strings("extend-safe-fixes") or ()]
        unsafe = [s for config in self.chain for s in config.strings("extend-unsafe-fixes") or ()]
        policy: dict[str, bool | None] = {}
        for rule in self.rules:
            if rule not in fixable:
                policy[rule.CODE] = None
                continue
            made_safe, made_unsafe = specificity(safe, rule), specificity(unsafe, rule)
            if made_unsafe is not None and (made_safe is None or made_unsafe >= made_safe):
                policy[rule.CODE] = False
            elif made_safe is not None:
                policy[rule.CODE] = True
        return policy

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
        chosen = self._overridden(
            "backend", self.resolver.overrides.backend, self.resolver.overrides.names.backend
        )
        if chosen is None:
            return None
        name, where = chosen
        defined_in = ", ".join(config.label for config in self.chain if config.table("backends"))
        return resolve_backend(name, self.backends_table, where, defined_in)

    def _overridden(self, key: str, flag_value: str | None, flag_name: str) -> tuple[str, str] | None:
        r"""The command line's value of `key` and its flag, else the configuration's and where it
        was set (`FILE: \`key\``), else None."""
        if flag_value is not None:
            return flag_value, flag_name
        value, origin = self.lookup(key)
        return None if origin is None else (str(value), f"{origin.label}: `{key}`")

    @cached_property
    def configured_tilelang(self) -> VersionRange | None:
        """`--tilelang-version` or the configuration's `tilelang-version` (None: neither)."""
        overrides = self.resolver.overrides
        given = self._overridden(
            "tilelang-version", overrides.tilelang_version, overrides.names.tilelang_version
        )
        if given is None:
            return None
        spec, where = given
        try:
            chosen = VersionRange.of(spec, where)
        except SpecifierError as error:
            raise ConfigError(f"{where}: {error}") from None
        if chosen.versions:
            return chosen
        # A release newer (or older) than the measured ones: pinning it must not break a CI run,
        # so its nearest measured neighbours stand in for it, with a warning.
        stand_in = nearest(Specifier.parse(spec))
        unmeasured = (
            f"{where}: `{spec}` matches none of the TileLang releases tilecheck has measured "
            f"({', '.join(MEASURED)}); checking against "
        )
        if not stand_in:
            self.resolver.warn(unmeasured + f"the supported releases ({names(SUPPORTED)})")
            return VersionRange(SUPPORTED, f"{where} (no measured release: the supported releases)", spec)
        nearest_text = "the nearest measured release" + ("s" if len(stand_in) > 1 else "")
        self.resolver.warn(unmeasured + f"{names(stand_in)}, {nearest_text}")
        return VersionRange(stand_in, f"{where} (not measured: {nearest_text})", spec, stand_in_for=spec)

    def tilelang_for(self, path: str) -> VersionRange:
        """The TileLang releases `path` is checked against: the setting, else what the project
        declares, else the supported releases."""
        configured = self.configured_tilelang
        if configured is not None:
            return configured
        if self.resolver.isolated:  # no project files are read
            return VersionRange.default()
        directory = os.path.dirname(os.path.abspath(path)) if not os.path.isdir(path) else path
        resolver = self.resolver
        declaration = find_declaration(
            directory, resolver.declarations, resolver.declaration_roots, resolver.root_markers
        )
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
            unmeasured = (
                f"{declaration.origin}: `tilelang{declaration.spec}` matches none of the TileLang releases "
                f"tilecheck has measured ({', '.join(MEASURED)}); checking against "
            )
            stand_in = nearest(Specifier.parse(declaration.spec))
            if not stand_in:
                self.resolver.warn(unmeasured + "the supported releases")
                return VersionRange(
                    SUPPORTED, f"{declaration.origin} (no measured release: the supported releases)"
                )
            # as for a configured version: the nearest measured releases stand in for it
            nearest_text = "the nearest measured release" + ("s" if len(stand_in) > 1 else "")
            self.resolver.warn(unmeasured + f"{names(stand_in)}, {nearest_text}")
            return VersionRange(
                stand_in,
                f"{declaration.origin} (not measured: {nearest_text})",
                declaration.spec,
                stand_in_for=declaration.spec,
            )
        return chosen

    def validate(self) -> None:
        """Check rule names, severities and the backend; raises ConfigError."""
        rules = self.rules
        check = SelectorCheck(rules, lenient=self.skipped_plugins)
        for config in self.chain:
            label = config.label
            for key in ("select", "extend-select", "ignore", *FIX_SELECTOR_KEYS):
                check(config.strings(key) or (), f"{label}: `{key}`")
            for table in ("per-file-ignores", "extend-per-file-ignores"):
                for pattern, codes in config.table(table).items():
                    if not check.known(codes):
                        check(codes, f'{label}: `{table}` "{pattern}"')
            for key, level in config.table("severity").items():
                where = f"{label}: `severity`"
                if key == "optimization" and level != "info":
                    raise ConfigError(
                        f'{where}: optimization findings are never errors or warnings (got "{level}")'
                    )
                if key == Grade.META.value or (key not in GRADES and only_always_on(key, rules)):
                    raise ConfigError(
                        f"{where}: `{key}` cannot be configured: a file that cannot be read, parsed or "
                        "analyzed is always an error (suppression findings can be configured by code, "
                        f'e.g. {_unused_suppression_code()} = "warning")'
                    )
                if key not in GRADES:
                    check([key], where)
        _ = self.backend, self.exclude, self.configured_tilelang  # resolve (and so validate) them now

    # per path -----------------------------------------------------------------------------
    def is_included(self, path: str) -> bool:
        """Whether a directory walk checks the file `path`: by its suffix, or `extend-include`."""
        if path.endswith(SOURCE_SUFFIXES):
            return True
        absolute = os.path.abspath(path)
        return any(patterns.match(absolute, whole=False) for patterns in self.extend_include)

    def is_excluded(self, path: str, *, whole: bool = True) -> bool:
        absolute = os.path.abspath(path)
        return any(patterns.match(absolute, whole=whole) for patterns in self.exclude)

    def for_file(self, path: str) -> FileSettings:
        absolute = os.path.abspath(path)
        hits = tuple(
            (t, i) for t, (table, _) in enumerate(self.per_file_ignores) for i in table.hits(absolute)
        )
        tilelang = self.tilelang_for(absolute)
        cached = self._per_file.get((hits, tilelang))
        if cached is None:
            cached = self._per_file[hits, tilelang] = self._file_settings(hits, tilelang)
        return cached

    def _file_settings(self, hits: tuple[tuple[int, int], ...], tilelang: VersionRange) -> FileSettings:
        chosen = set(self.selection.enabled(self.rules))
        ignored = [code for t, i in hits for code in self.per_file_ignores[t][1][i]]
        grades = self.resolver.overrides.grades
        rules = [
            rule
            for rule in self.rules
            if always_reported(rule)
            or (
                rule in chosen
                and not any(matches(selector, rule) for selector in ignored)
                and (grades is None or rule.GRADE is Grade.META or rule.GRADE.value in grades)
            )
        ]
        severities = {}
        for rule in self.rules:
            override = self._severity_of(rule)
            if override is not None:
                severities[rule.CODE] = override
        return FileSettings(tuple(rules), self.rules, self.backend, severities, self.fix_policy, tilelang)

    def _severity_of(self, rule: RuleEntry) -> Severity | None:
        if rule.GRADE is Grade.OPTIMIZATION:
            return None  # optimization findings are always notes
        if always_reported(rule):
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


def _unused_suppression_code() -> str:
    return code_reporting(Problem.UNUSED_SUPPRESSION)
