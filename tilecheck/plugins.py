"""Third-party rules: installed packages (entry-point group `tilecheck.rules`) and local modules.

An entry point names a module (`rules = "tilecheck_extra.rules"`), a rule class
(`"tilecheck_extra.rules:MyRule"`) or a list of rule classes. Installed plugins are loaded
on every run, like flake8's; local modules are imported only when a configuration lists
them (`plugins = ["kernels.lint_rules"]`, resolved from the configuration file's directory).
A module contributes the rules in its `__all__`, or else the `Rule` subclasses it defines.

Anything wrong with a plugin (import error, exception at import, no rules, a malformed or
duplicate rule) is a `PluginError` naming the plugin: the CLI prints it and exits with 2.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import re
import sys
from functools import cache
from types import ModuleType

from tilecheck.config import ConfigError
from tilecheck.registry import builtin_rules, rules_in_module
from tilecheck.rule import Rule
from tilecheck.types import Grade

ENTRY_POINT_GROUP = "tilecheck.rules"
_CODE = re.compile(r"[A-Z]{1,5}[0-9]{1,4}")
_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


class PluginError(ConfigError):
    """A plugin could not be loaded or defines a malformed rule."""


def available_rules() -> tuple[type[Rule], ...]:
    """Built-in rules plus the rules of installed plugins."""
    return check_unique([*builtin_rules(), *entry_point_rules()])


@cache
def entry_point_rules() -> tuple[type[Rule], ...]:
    from importlib.metadata import entry_points

    found: list[type[Rule]] = []
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: (p.name, p.value)):
        dist = getattr(point, "dist", None)
        where = f"plugin `{point.name}` (entry point `{point.value}`"
        where += f" of {dist.name} {dist.version})" if dist is not None else ")"
        try:
            loaded = point.load()
        except (Exception, SystemExit) as error:
            raise PluginError(f"{where} failed to load: {_error(error)}") from None
        found += rules_from(loaded, where)
    return tuple(found)


@cache
def load_local(name: str, directory: str, configured_in: str) -> tuple[type[Rule], ...]:
    """The rules of local module `name` ("pkg.mod" or "pkg.mod:Class"), importable from `directory`."""
    where = f"plugin `{name}` (configured in {configured_in})"
    module_name, _, attribute = name.partition(":")
    if not all(part.isidentifier() for part in module_name.split(".")):
        raise PluginError(f"{where}: not a module name")
    sys.path.insert(0, directory)
    try:
        module = importlib.import_module(module_name)
        loaded = getattr(module, attribute) if attribute else module
    except (Exception, SystemExit) as error:
        raise PluginError(f"{where} failed to load: {_error(error)}") from None
    finally:
        with contextlib.suppress(ValueError):  # the plugin may have removed it itself
            sys.path.remove(directory)
    return tuple(rules_from(loaded, where))


def rules_from(value: object, where: str) -> list[type[Rule]]:
    """The rules a plugin provides, each checked for a well-formed identity."""
    if isinstance(value, ModuleType):
        exported = getattr(value, "__all__", None)
        if exported is not None:
            candidates = [getattr(value, name, None) for name in exported]
            rules = [c for c in candidates if inspect.isclass(c) and issubclass(c, Rule)]
        else:
            rules = rules_in_module(value)
    elif inspect.isclass(value):
        rules = [value]
    elif isinstance(value, (list, tuple)):
        rules = list(value)
    else:
        raise PluginError(f"{where}: expected a module, a Rule subclass or a list of them, got {value!r}")
    if not rules:
        raise PluginError(f"{where} defines no rules")
    for rule in rules:
        check_rule(rule, where)
    return rules


def check_rule(rule: object, where: str) -> None:
    if not (inspect.isclass(rule) and issubclass(rule, Rule) and rule is not Rule):
        raise PluginError(f"{where}: {rule!r} is not a subclass of tilecheck.rule.Rule")
    label = f"{where}: rule {rule.__name__}"
    code = getattr(rule, "CODE", None)
    if not isinstance(code, str) or not _CODE.fullmatch(code):
        raise PluginError(f"{label}: CODE must be letters then digits, like `KX101` (got {code!r})")
    if code.startswith("TL"):
        raise PluginError(f"{label}: the code prefix `TL` is reserved for built-in rules (got `{code}`)")
    name = getattr(rule, "NAME", None)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise PluginError(f"{label}: NAME must be kebab-case, like `my-rule` (got {name!r})")
    if not isinstance(getattr(rule, "GRADE", None), Grade) or rule.GRADE is Grade.META:
        raise PluginError(f"{label}: GRADE must be Grade.SEMANTIC, Grade.CONTRACT or Grade.OPTIMIZATION")
    if rule.check is Rule.check:
        raise PluginError(f"{label}: it does not define check(self, ctx)")


def check_unique(rules: list[type[Rule]]) -> tuple[type[Rule], ...]:
    by_code: dict[str, type[Rule]] = {}
    by_name: dict[str, type[Rule]] = {}
    unique: list[type[Rule]] = []
    for rule in rules:
        for table, key in ((by_code, rule.CODE), (by_name, rule.NAME)):
            other = table.get(key)
            if other is not None and other is not rule:
                raise PluginError(
                    f"two rules use `{key}`: {other.__module__}.{other.__name__} and "
                    f"{rule.__module__}.{rule.__name__}"
                )
        if rule.CODE not in by_code:
            unique.append(rule)
        by_code[rule.CODE] = by_name[rule.NAME] = rule
    return tuple(sorted(unique, key=lambda r: r.CODE))


def _error(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
