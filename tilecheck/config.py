"""Configuration: `[tool.tilecheck]` in `pyproject.toml`, or `tilecheck.toml` / `.tilecheck.toml`.

Resolution is ruff's: for each file the nearest configuration file, walking up from the
file's directory, wins; `extend = "../pyproject.toml"` inherits another file (whose values
the nearer file overrides; `extend-select`, `extend-exclude` and rule selection stack).
A `pyproject.toml` without a `[tool.tilecheck]` table is skipped. `--config PATH` uses one
file for everything and `--isolated` none. Paths in a file (exclude patterns, per-file
ignores, local plugins) are relative to the directory of the file that defines them.

Every problem (unreadable file, bad TOML, unknown key, bad value, unknown rule or backend,
broken plugin) is a `ConfigError` naming the file and the key; the CLI exits with code 2.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

from tilecheck.rule import Rule
from tilecheck.selection import Layer, Selection, SelectionError, matches, validate
from tilecheck.types import Grade, Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_FILES = (".tilecheck.toml", "tilecheck.toml", "pyproject.toml")
OUTPUT_FORMATS = ("full", "concise", "json", "json-lines", "sarif", "github")
GRADES = tuple(grade.value for grade in Grade if grade is not Grade.META)
ALWAYS_ON = frozenset(
    {"TL001", "TL002", "TL003", "TL004", "TL005", "TL007"}
)  # the engine reports them regardless

# Ruff's default exclusions, plus what tilecheck always skipped.
DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
    ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv",
    ".vscode", "__pypackages__", "__pycache__", "_build", "buck-out", "build", "dist", "node_modules",
    "site-packages", "venv", "*.egg-info",
)  # fmt: skip


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _describe(value: object) -> str:
    return {str: "a string", bool: "a boolean", int: "an integer", float: "a number", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)  # fmt: skip


# key -> (check, what it must be)
_SCHEMA: dict[str, tuple[Callable[[object], bool], str]] = {
    "extend": (lambda v: isinstance(v, str), "a path (string)"),
    "select": (_strings, "an array of rule codes, prefixes or names"),
    "extend-select": (_strings, "an array of rule codes, prefixes or names"),
    "ignore": (_strings, "an array of rule codes, prefixes or names"),
    "per-file-ignores": (
        lambda v: isinstance(v, dict) and all(_strings(item) for item in v.values()),
        "a table of glob pattern = array of rule codes",
    ),
    "exclude": (_strings, "an array of glob patterns"),
    "extend-exclude": (_strings, "an array of glob patterns"),
    "backend": (lambda v: isinstance(v, str), "a backend profile name (string)"),
    "plugins": (_strings, "an array of module names"),
    "output-format": (lambda v: v in OUTPUT_FORMATS, "one of " + ", ".join(OUTPUT_FORMATS)),
    "severity": (
        lambda v: isinstance(v, dict) and all(s in ("error", "warning", "info") for s in v.values()),
        'a table of grade or rule = "error" | "warning" | "info"',
    ),
    "backends": (
        lambda v: isinstance(v, dict) and all(isinstance(item, dict) for item in v.values()),
        "a table of backend profile tables",
    ),
}
KEYS = tuple(_SCHEMA)


@dataclass
class ConfigFile:
    """One configuration file's validated table."""

    path: str  # absolute
    values: dict[str, object]
    extends: ConfigFile | None = None

    @property
    def directory(self) -> str:
        return os.path.dirname(self.path)

    @property
    def label(self) -> str:
        table = " [tool.tilecheck]" if os.path.basename(self.path) == "pyproject.toml" else ""
        return _display(self.path) + table

    def chain(self) -> list[ConfigFile]:
        """This file and the ones it extends, farthest first."""
        files: list[ConfigFile] = []
        current: ConfigFile | None = self
        while current is not None:
            files.append(current)
            current = current.extends
        return files[::-1]


def _display(path: str) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


# -- reading -------------------------------------------------------------------------------


def read_table(path: str) -> dict[str, object] | None:
    """The tilecheck table of `path`; None for a pyproject.toml without one."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise ConfigError(
            f"Cannot read configuration file {_display(path)}: {error.strerror or error}"
        ) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"Invalid TOML in {_display(path)}: {error}") from None
    if os.path.basename(path) == "pyproject.toml":
        tool = data.get("tool")
        table = tool.get("tilecheck") if isinstance(tool, dict) else None
        if table is None:
            return None
        if not isinstance(table, dict):
            raise ConfigError(f"{_display(path)}: `tool.tilecheck` must be a table")
        return table
    return data


def check_values(path: str, table: dict[str, object]) -> dict[str, object]:
    """Validate the keys and value types of one table (rule names are checked later)."""
    label = _display(path)
    for key, value in table.items():
        if key not in _SCHEMA:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            raise ConfigError(f"{label}: unknown key `{key}`{hint}; known keys: {', '.join(KEYS)}")
        check, expected = _SCHEMA[key]
        if not check(value):
            shown = f"`{value}`" if isinstance(value, str) else _describe(value)
            raise ConfigError(f"{label}: `{key}` must be {expected}, got {shown}")
    return table


def load(path: str, seen: tuple[str, ...] = ()) -> ConfigFile | None:
    """Read one file and what it extends; None for a pyproject.toml without the table."""
    path = os.path.abspath(path)
    if path in seen:
        cycle = " -> ".join(_display(p) for p in (*seen, path))
        raise ConfigError(f"Circular `extend` in configuration: {cycle}")
    table = read_table(path)
    if table is None:
        if seen:
            raise ConfigError(
                f"{_display(seen[-1])}: `extend`: {_display(path)} has no [tool.tilecheck] table"
            )
        return None
    values = check_values(path, table)
    config = ConfigFile(path, values)
    extend = values.get("extend")
    if isinstance(extend, str):
        target = os.path.join(os.path.dirname(path), os.path.expanduser(extend))
        if not os.path.isfile(target):
            raise ConfigError(f"{_display(path)}: `extend`: no such file {_display(os.path.abspath(target))}")
        config.extends = load(target, (*seen, path))
    return config


# -- patterns ------------------------------------------------------------------------------


def _glob_regex(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


@dataclass
class PathPatterns:
    """Glob patterns relative to `root`. A pattern without `/` matches any path component
    (`build`, `*_gen.py`); one with `/` matches the path relative to `root` (`kernels/old/*.py`).
    A path matches when it, or a directory containing it, matches."""

    patterns: tuple[str, ...]
    root: str

    @cached_property
    def _name(self) -> re.Pattern[str] | None:
        names = [fnmatch.translate(p.rstrip("/")) for p in self.patterns if "/" not in p.rstrip("/")]
        return re.compile("|".join(names)) if names else None

    @cached_property
    def _relative(self) -> re.Pattern[str] | None:
        paths = [_glob_regex(p.strip("/").removeprefix("./")) for p in self.patterns if "/" in p.rstrip("/")]
        return re.compile("(?:" + "|".join(paths) + r")\Z") if paths else None

    def match(self, path: str, *, whole: bool = True) -> bool:
        """Does `path` (absolute) match? `whole=False` tests only the last component."""
        relative = os.path.relpath(path, self.root).replace(os.sep, "/")
        inside = not relative.startswith("../") and relative != ".."
        parts = relative.split("/") if inside else [os.path.basename(path)]
        if self._name is not None:
            tested = parts if whole else parts[-1:]
            if any(self._name.match(part) for part in tested):
                return True
        if self._relative is not None and inside:
            candidates = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)] if whole else [relative]
            return any(self._relative.match(candidate) for candidate in candidates)
        return False


# -- resolved settings -----------------------------------------------------------------------


@dataclass
class Overrides:
    """Settings from the command line; they win over every file."""

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    backend: str | None = None
    grades: frozenset[str] | None = None  # --grade
    output_format: str | None = None

    def layer(self) -> Layer | None:
        if self.select is None and not self.extend_select and not self.ignore:
            return None
        select = tuple(self.select) if self.select is not None else None
        return Layer(select, tuple(self.extend_select), tuple(self.ignore), "command line")


@dataclass
class FileSettings:
    """Everything the engine needs for one file."""

    rules: tuple[type[Rule], ...]  # enabled, in code order
    known: tuple[type[Rule], ...]  # every rule a suppression may name
    backend: object | None
    severities: dict[str, Severity]  # code -> overridden severity

    def severity(self, code: str, default: Severity) -> Severity:
        return self.severities.get(code, default)


class Settings:
    """The resolved configuration of one directory: its configuration file (or none)."""

    def __init__(self, config: ConfigFile | None, resolver: Resolver) -> None:
        self.config = config
        self.resolver = resolver
        self.chain = config.chain() if config is not None else []
        self._per_file: dict[tuple[int, ...], FileSettings] = {}

    # value lookups with their origin -------------------------------------------------
    def lookup(self, key: str) -> tuple[object, ConfigFile | None]:
        for config in reversed(self.chain):
            if key in config.values:
                return config.values[key], config
        return None, None

    @cached_property
    def rules(self) -> tuple[type[Rule], ...]:
        """Built-in, entry-point and this configuration's local plugin rules."""
        from tilecheck import plugins

        found = list(plugins.available_rules())
        value, origin = self.lookup("plugins")
        if origin is not None:
            for name in value:  # type: ignore[attr-defined]
                found += plugins.load_local(name, origin.directory, origin.label)
        return plugins.check_unique(found)

    @cached_property
    def exclude(self) -> list[PathPatterns]:
        value, origin = self.lookup("exclude")
        patterns = (
            [PathPatterns(tuple(value), origin.directory)] if origin else [PathPatterns(DEFAULT_EXCLUDE, "/")]
        )  # type: ignore[arg-type]
        for config in self.chain:
            extra = config.values.get("extend-exclude")
            if extra:
                patterns.append(PathPatterns(tuple(extra), config.directory))  # type: ignore[arg-type]
        return patterns

    @cached_property
    def per_file_ignores(self) -> list[tuple[PathPatterns, tuple[str, ...]]]:
        value, origin = self.lookup("per-file-ignores")
        if origin is None:
            return []
        return [
            (PathPatterns((pattern,), origin.directory), tuple(codes)) for pattern, codes in value.items()
        ]  # type: ignore[attr-defined]

    @cached_property
    def selection(self) -> Selection:
        layers = []
        for config in self.chain:
            values = config.values
            if any(key in values for key in ("select", "extend-select", "ignore")):
                select = values.get("select")
                layers.append(
                    Layer(
                        tuple(select) if select is not None else None,  # type: ignore[arg-type]
                        tuple(values.get("extend-select", ())),  # type: ignore[arg-type]
                        tuple(values.get("ignore", ())),  # type: ignore[arg-type]
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
            merged.update(config.values.get("severity", {}))  # type: ignore[arg-type]
        return merged

    @cached_property
    def backends_table(self) -> dict[str, dict[str, object]]:
        merged: dict[str, dict[str, object]] = {}
        for config in self.chain:
            for name, profile in config.values.get("backends", {}).items():  # type: ignore[attr-defined]
                merged[name] = {**merged.get(name, {}), **profile}
        return merged

    @cached_property
    def backend(self) -> object | None:
        name = self.resolver.overrides.backend
        where = "--backend"
        if name is None:
            value, origin = self.lookup("backend")
            if origin is None:
                return None
            name, where = str(value), f"{origin.label}: `backend`"
        return resolve_backend(name, self.backends_table, where)

    def validate(self) -> None:
        """Check rule names, severities and the backend; raises ConfigError."""
        rules = self.rules
        for config in self.chain:
            for key in ("select", "extend-select", "ignore"):
                _validate_selectors(config.values.get(key, ()), rules, f"{config.label}: `{key}`")  # type: ignore[arg-type]
            for pattern, codes in dict(config.values.get("per-file-ignores", {})).items():  # type: ignore[call-overload]
                _validate_selectors(codes, rules, f'{config.label}: `per-file-ignores` "{pattern}"')
            for key, level in config.values.get("severity", {}).items():  # type: ignore[attr-defined]
                if key == "optimization" and level != "info":
                    raise ConfigError(
                        f'{config.label}: `severity`: optimization findings are never errors or warnings (got "{level}")'
                    )
                if key not in GRADES and key != "meta":
                    _validate_selectors([key], rules, f"{config.label}: `severity`")
        _ = self.backend, self.exclude  # resolve (and so validate) them now

    # per path -----------------------------------------------------------------------------
    def is_excluded(self, path: str, *, whole: bool = True) -> bool:
        absolute = os.path.abspath(path)
        return any(patterns.match(absolute, whole=whole) for patterns in self.exclude)

    def for_file(self, path: str) -> FileSettings:
        absolute = os.path.abspath(path)
        hits = tuple(i for i, (patterns, _) in enumerate(self.per_file_ignores) if patterns.match(absolute))
        cached = self._per_file.get(hits)
        if cached is None:
            cached = self._per_file[hits] = self._file_settings(hits)
        return cached

    def _file_settings(self, hits: tuple[int, ...]) -> FileSettings:
        rules = self.selection.enabled(self.rules)
        ignored = [code for i in hits for code in self.per_file_ignores[i][1]]
        grades = self.resolver.overrides.grades
        rules = [
            rule
            for rule in self.rules
            if rule.CODE in ALWAYS_ON
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
        return FileSettings(tuple(rules), self.rules, self.backend, severities)

    def _severity_of(self, rule: type[Rule]) -> Severity | None:
        if rule.GRADE is Grade.OPTIMIZATION:
            return None  # optimization findings are always notes
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


def _validate_selectors(selectors: Iterable[str], rules: Iterable[type[Rule]], where: str) -> None:
    try:
        validate(selectors, rules)
    except SelectionError as error:
        raise ConfigError(f"{where}: {str(error)[0].lower()}{str(error)[1:]}") from None


def resolve_backend(name: str, user_profiles: dict[str, dict[str, object]], where: str) -> object:
    from tilecheck.backends import ProfileError, get_profile

    try:
        return get_profile(name, user_profiles)  # shipped, overridden or user-defined
    except ProfileError as error:
        raise ConfigError(f"`backends`: {error}") from None
    except KeyError:
        try:
            from tilecheck.backends import names

            known = ", ".join(names(user_profiles))
        except ImportError:  # pragma: no cover - depends on the backends module
            known = ""
        message = f"{where}: unknown backend `{name}`"
        raise ConfigError(message + (f" (known: {known})" if known else "")) from None


class Resolver:
    """Finds and caches the settings of every directory."""

    def __init__(
        self,
        overrides: Overrides | None = None,
        config_path: str | None = None,
        isolated: bool = False,
        cwd: str | None = None,
    ) -> None:
        self.overrides = overrides or Overrides()
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self.isolated = isolated
        self._nearest: dict[str, str | None] = {}  # directory -> config file path
        self._settings: dict[str | None, Settings] = {}
        self._fixed: Settings | None = None
        if config_path is not None:
            if not os.path.isfile(config_path):
                raise ConfigError(f"--config: no such file {config_path}")
            config = load(config_path)
            if config is None:
                raise ConfigError(f"--config: {config_path} has no [tool.tilecheck] table")
            self._fixed = self._make(config)
        elif isolated:
            self._fixed = self._make(None)

    def _make(self, config: ConfigFile | None) -> Settings:
        settings = Settings(config, self)
        settings.validate()
        return settings

    def all_settings(self) -> list[Settings]:
        return [self._fixed] if self._fixed is not None else list(self._settings.values())

    def for_directory(self, directory: str) -> Settings:
        if self._fixed is not None:
            return self._fixed
        path = self._nearest_config(os.path.abspath(directory))
        settings = self._settings.get(path)
        if settings is None:
            config = load(path) if path is not None else None
            settings = self._settings[path] = self._make(config)
        return settings

    def for_path(self, path: str) -> Settings:
        absolute = os.path.abspath(path)
        directory = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        return self.for_directory(directory)

    def _nearest_config(self, directory: str) -> str | None:
        visited = []
        current = directory
        found: str | None = None
        while True:
            if current in self._nearest:
                found = self._nearest[current]
                break
            visited.append(current)
            found = self._config_in(current)
            if found is not None:
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        for seen in visited:
            self._nearest[seen] = found
        return found

    def _config_in(self, directory: str) -> str | None:
        for name in CONFIG_FILES:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                if name == "pyproject.toml" and read_table(candidate) is None:
                    continue
                return candidate
        return None


# -- debug-config --------------------------------------------------------------------------


def describe(settings: Settings, path: str) -> list[tuple[str, object, str]]:
    """(key, value, origin) for every setting that applies to `path`."""
    overrides = settings.resolver.overrides
    rows: list[tuple[str, object, str]] = []
    cli_values = {
        "select": overrides.select,
        "extend-select": overrides.extend_select or None,
        "ignore": overrides.ignore or None,
        "backend": overrides.backend,
        "output-format": overrides.output_format,
    }
    for key in KEYS:
        if key == "extend":
            continue
        if key in ("extend-select", "extend-exclude"):
            collected = [(c.values[key], c.label) for c in settings.chain if key in c.values]
            value: object = [item for values, _ in collected for item in values]  # type: ignore[attr-defined]
            origin = ", ".join(label for _, label in collected) or "default"
        else:
            value, config = settings.lookup(key)
            origin = config.label if config is not None else "default"
        if cli_values.get(key) is not None:
            value, origin = cli_values[key], "command line"
        if value is None:
            value = _default(key)
        rows.append((key, value, origin))
    if overrides.grades is not None:
        rows.append(("grade", sorted(overrides.grades), "command line"))
    return rows


def _default(key: str) -> object:
    return {
        "select": ["ALL"],
        "exclude": list(DEFAULT_EXCLUDE),
        "output-format": "full",
        "backend": None,
        "per-file-ignores": {},
        "severity": {},
        "backends": {},
    }.get(key, [])
