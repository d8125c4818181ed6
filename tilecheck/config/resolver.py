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

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecheck.config.declared import Declaration
from tilecheck.config.file import CONFIG_FILES, KEYS, ConfigFile, check_values, config_in, load, read_table
from tilecheck.config.patterns import PathPatterns
from tilecheck.config.selection import Layer
from tilecheck.config.settings import DEFAULT_EXCLUDE, GRADES, FileSettings, Settings
from tilecheck.core.errors import ConfigError

if TYPE_CHECKING:
    pass

__all__ = [
    "CONFIG_FILES",
    "DEFAULT_EXCLUDE",
    "GRADES",
    "KEYS",
    "ConfigError",
    "ConfigFile",
    "FileSettings",
    "Overrides",
    "PathPatterns",
    "Resolver",
    "Settings",
    "load",
    "read_table",
]

# -- resolved settings -----------------------------------------------------------------------


@dataclass(frozen=True)
class OptionNames:
    """How a front end names its overrides in messages (`--backend`, or an editor's setting)."""

    backend: str = "--backend"
    tilelang_version: str = "--tilelang-version"
    config: str = "--config"
    layer: str = "command line"


CLI_NAMES = OptionNames()


@dataclass
class Overrides:
    """Settings from the command line; they win over every file."""

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    backend: str | None = None
    tilelang_version: str | None = None  # --tilelang-version
    grades: frozenset[str] | None = None  # --grade
    output_format: str | None = None
    names: OptionNames = CLI_NAMES
    # Configuration keys set on the command line (`--config KEY=VALUE`, `--exclude`, ...): a last
    # configuration layer over every file's, its patterns relative to the working directory.
    values: dict[str, object] = field(default_factory=dict)

    def layer(self) -> Layer | None:
        if self.select is None and not self.extend_select and not self.ignore:
            return None
        select = tuple(self.select) if self.select is not None else None
        return Layer(select, tuple(self.extend_select), tuple(self.ignore), self.names.layer)


class Resolver:
    """Finds and caches the settings of every directory."""

    def __init__(
        self,
        overrides: Overrides | None = None,
        config_path: str | None = None,
        isolated: bool = False,
        cwd: str | None = None,
        allow_plugins: bool | None = None,
        on_warning: Callable[[str], None] | None = None,
    ) -> None:
        self.overrides = overrides or Overrides()
        self.allow_plugins = allow_plugins  # None: the environment and the user's trust file decide
        self.warnings: list[str] = []
        self._on_warning = on_warning
        self.cwd = os.path.abspath(cwd or os.getcwd())
        self.isolated = isolated
        self._nearest: dict[str, str | None] = {}  # directory -> config file path
        self._settings: dict[str | None, Settings] = {}
        self._fixed: Settings | None = None
        self._tables: dict[str, dict[str, object]] = {}  # pyproject tables read while searching
        self.declarations: dict[str, Declaration | None] = {}  # directory -> its TileLang declaration
        self.root_markers: dict[str, bool] = {}  # directory -> whether it has a project root marker
        # A `--config` file's directory is a project root for the declaration search.
        self.declaration_roots = (os.path.dirname(os.path.abspath(config_path)),) if config_path else ()
        self.command_line = self._command_line()
        if config_path is not None:
            if not os.path.lexists(config_path):
                raise ConfigError(f"{self.overrides.names.config}: no such file {config_path}")
            config = load(config_path)
            if config is None:
                raise ConfigError(
                    f"{self.overrides.names.config}: {config_path} has no [tool.tilecheck] table"
                )
            self._fixed = self._make(config)
        elif isolated:
            self._fixed = self._make(None)

    def _command_line(self) -> list[ConfigFile]:
        values = self.overrides.values
        if not values:
            return []
        label = self.overrides.names.layer
        if "extend" in values:
            raise ConfigError(
                f"{label}: `extend` names a file to inherit; use {self.overrides.names.config} PATH"
            )
        path = os.path.join(self.cwd, "<command line>")
        return [ConfigFile(path, check_values(path, dict(values), label), name=label)]

    def warn(self, message: str) -> None:
        """Record a warning (once) and pass it to the front end's callback."""
        if message in self.warnings:
            return
        self.warnings.append(message)
        if self._on_warning is not None:
            self._on_warning(message)

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
            config = load(path, tables=self._tables) if path is not None else None
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
            found = config_in(current, self._tables)
            if found is not None:
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        for seen in visited:
            self._nearest[seen] = found
        return found
