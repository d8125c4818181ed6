"""Finding rules: the built-in ones are the modules of `tilecheck.rules` (the repository's `rules/`,
grouped by `RULE_GROUPS`); a key a rule `REPORTS` leads to it."""

from __future__ import annotations

import enum
import importlib
import pkgutil
from functools import cache

from tilecheck.core.rule import Rule


def rules_in_module(module: object) -> list[type[Rule]]:
    """The Rule subclasses a module defines (not those it imports)."""
    name = getattr(module, "__name__", "")
    found = []
    for value in vars(module).values():
        is_rule = isinstance(value, type) and issubclass(value, Rule) and value is not Rule
        if is_rule and value.__module__ == name and getattr(value, "CODE", None):
            found.append(value)
    return found


RULE_GROUPS = ("tilelang", "pypto", "meta")


@cache
def builtin_rules() -> tuple[type[Rule], ...]:
    found: list[type[Rule]] = []
    for group in RULE_GROUPS:
        package = importlib.import_module(f"tilecheck.rules.{group}")
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                module = importlib.import_module(f"tilecheck.rules.{group}.{info.name}")
                found.extend(rules_in_module(module))
    return tuple(sorted(found, key=lambda rule: rule.CODE))


@cache
def _reporters() -> dict[enum.Enum, type[Rule]]:
    return {rule.REPORTS: rule for rule in builtin_rules() if rule.REPORTS is not None}


def rule_reporting(key: enum.Enum) -> type[Rule]:
    """The built-in rule that declares it reports `key` (a KeyError for a key without one: a bug)."""
    return _reporters()[key]


def is_builtin(rule: type[Rule]) -> bool:
    return rule in builtin_rules()


def by_code(code: str, rules: tuple[type[Rule], ...] | None = None) -> type[Rule] | None:
    """A rule by its code or kebab-case name."""
    for rule in rules or builtin_rules():
        if code.upper() == rule.CODE or code == rule.NAME:
            return rule
    return None
