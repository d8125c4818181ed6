"""Finding rules: the built-in ones shipped as `tilecheck.rules` (the repository's `rules/`)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from tilecheck.rule import Rule


def rules_in_module(module: object) -> list[type[Rule]]:
    """The Rule subclasses a module defines (not those it imports)."""
    name = getattr(module, "__name__", "")
    found = []
    for value in vars(module).values():
        is_rule = isinstance(value, type) and issubclass(value, Rule) and value is not Rule
        if is_rule and value.__module__ == name and getattr(value, "CODE", None):
            found.append(value)
    return found


@cache
def builtin_rules() -> tuple[type[Rule], ...]:
    package = importlib.import_module("tilecheck.rules")
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        found.extend(rules_in_module(importlib.import_module(f"tilecheck.rules.{info.name}")))
    return tuple(sorted(found, key=lambda rule: rule.CODE))


def by_code(code: str, rules: tuple[type[Rule], ...] | None = None) -> type[Rule] | None:
    """A rule by its code or kebab-case name."""
    for rule in rules or builtin_rules():
        if code.upper() == rule.CODE or code == rule.NAME:
            return rule
    return None
