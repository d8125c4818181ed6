"""The client's settings (section `tilecheck`), from initializationOptions or
`workspace/didChangeConfiguration`: they override configuration files as the CLI's flags do.

```json
{"tilecheck": {"backend": "cuda-sm90", "tilelangVersion": ">=0.1.9,<0.2",
               "select": ["TL1"], "ignore": ["TL105"],
               "configuration": "tools/tilecheck.toml", "fixAll": true,
               "showOptimization": true, "loweringPreview": true,
               "perFileTimeout": 60, "perFileMemory": 2048}}
```

A value of the wrong type is reported and left at its default; the others still apply.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from tilecheck.app.supervisor import DEFAULT_MEMORY, DEFAULT_TIMEOUT
from tilecheck.app.workspace import Options
from tilecheck.config import budgets
from tilecheck.config.resolver import OptionNames

SECTION = "tilecheck"
CHECKED_GRADES = frozenset({"semantic", "contract"})


@dataclass(frozen=True)
class ClientSettings:
    backend: str | None = None
    tilelang_version: str | None = None  # a version or range (`--tilelang-version`)
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    configuration: str | None = None  # one configuration file (`--config`), relative to the folder
    fix_all: bool = True
    show_optimization: bool = True
    lowering_preview: bool = True
    per_file_timeout: float | None = DEFAULT_TIMEOUT  # seconds a check may take (None: unlimited)
    per_file_memory: int | None = DEFAULT_MEMORY  # MiB the worker may use (None: unlimited)
    problems: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def from_client(cls, raw: object) -> ClientSettings:
        """Settings from `{"tilecheck": {...}}` or the section itself; None gives the defaults."""
        if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
            raw = raw[SECTION]
        if raw is None:
            return cls()
        if not isinstance(raw, dict):
            return cls(problems=(f"settings must be an object, got {type(raw).__name__}",))
        problems: list[str] = []

        def read(key: str, kind: str, default: Any) -> Any:
            value = raw.get(key, default)
            if value is None or value is default:
                return default
            if kind == "bool" and isinstance(value, bool):
                return value
            if kind in ("budget", "memory") and _budget_problem(value, kind) is None:
                return value or None  # 0: unlimited, as on the command line
            if kind == "str" and isinstance(value, str) and value.strip():
                return value.strip()
            if kind == "list" and isinstance(value, str):
                value = value.split(",")
            if kind == "list" and isinstance(value, list) and all(isinstance(item, str) for item in value):
                return tuple(item.strip() for item in value if item.strip())
            problems.append(f"`{SECTION}.{key}` must be {_KINDS[kind]}, got {value!r}; using the default")
            return default

        known = {
            "backend",
            "tilelangVersion",
            "select",
            "ignore",
            "configuration",
            "fixAll",
            "showOptimization",
            "loweringPreview",
            "perFileTimeout",
            "perFileMemory",
        }
        problems += [f"unknown setting `{SECTION}.{key}` (ignored)" for key in sorted(set(raw) - known)]
        return cls(
            backend=read("backend", "str", None),
            tilelang_version=read("tilelangVersion", "str", None),
            select=read("select", "list", None),
            ignore=read("ignore", "list", ()),
            configuration=read("configuration", "str", None),
            fix_all=read("fixAll", "bool", True),
            show_optimization=read("showOptimization", "bool", True),
            lowering_preview=read("loweringPreview", "bool", True),
            per_file_timeout=read("perFileTimeout", "budget", DEFAULT_TIMEOUT),
            per_file_memory=_mib(read("perFileMemory", "memory", DEFAULT_MEMORY)),
            problems=tuple(problems),
        )

    def options(self, folder: str | None) -> Options:
        """The Workspace options for files in workspace folder `folder`."""
        config = self.configuration
        if config is not None:
            config = os.path.expanduser(config)
            if not os.path.isabs(config) and folder is not None:
                config = os.path.join(folder, config)
        return Options(
            select=self.select,
            ignore=self.ignore,
            backend=self.backend,
            tilelang_version=self.tilelang_version,
            grades=None if self.show_optimization else CHECKED_GRADES,
            config_path=config,
            names=CLIENT_NAMES,
        )


# Messages name the editor's settings, not the CLI's flags.
CLIENT_NAMES = OptionNames(
    backend="setting `tilecheck.backend`",
    tilelang_version="setting `tilecheck.tilelangVersion`",
    config="setting `tilecheck.configuration`",
    layer="client settings",
)

_KINDS = {
    "bool": "true or false",
    "str": "a non-empty string",
    "list": "a list of strings",
    "budget": f"a number of seconds from 0 to {budgets.MAX_SECONDS} (0: unlimited)",
    "memory": f"a number of MiB from 0 to {budgets.MAX_MIB} (0: unlimited)",
}


def _budget_problem(value: object, kind: str) -> str | None:
    """As the command line's flags are checked (`config.budgets`); MiB may be fractional here."""
    if kind == "memory" and isinstance(value, float) and 0 <= value <= budgets.MAX_MIB:  # not NaN
        value = int(value)
    return budgets.problem(value, whole=kind == "memory")


def _mib(value: float | None) -> int | None:
    return None if value is None else max(1, int(value))
