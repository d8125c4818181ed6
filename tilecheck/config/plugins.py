"""Third-party rules: installed packages (entry-point group `tilecheck.rules`) and local modules.

Installed plugins are the user's own environment and always load. Local modules run code
from the checked tree, so they load only when the user trusts it (`trusted`): with
`--allow-plugins`, `TILECHECK_ALLOW_PLUGINS=1`, or a root listed in the user's trust file;
otherwise the configuration gets a warning and the built-in rules run. Each configuration
directory's modules live in a package of their own, so two trees' `lintrules` never mix.

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
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import re
import sys
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING

from tilecheck.core.catalogue import RuleEntry, builtin_entries
from tilecheck.core.errors import Abandoned, PluginError
from tilecheck.core.types import Grade

if TYPE_CHECKING:
    from tilecheck.core.rule import Rule

ENTRY_POINT_GROUP = "tilecheck.rules"
_CODE = re.compile(r"[A-Z]{1,5}[0-9]{1,4}")
_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def available_rules() -> tuple[RuleEntry, ...]:
    """Built-in rules plus the rules of installed plugins (the built-in ones are not imported:
    `core.catalogue`: with no plugin installed, no rule module is)."""
    plugged = [RuleEntry.of(rule) for rule in entry_point_rules()]
    return check_unique([*builtin_entries(), *plugged])


def has_installed_plugins() -> bool:
    """Whether an installed package declares rules (without importing any of them; not cached,
    as `entry_point_rules` is, so it sees what is installed now)."""
    if not may_declare_entry_points():
        return False
    from importlib.metadata import entry_points

    return bool(entry_points(group=ENTRY_POINT_GROUP))


def may_declare_entry_points() -> bool:
    """False only when no installed distribution can declare a `tilecheck.rules` entry point:
    no `entry_points.txt` on `sys.path` names the group. Read directly, as importlib.metadata
    finds them, because importing importlib.metadata costs a cached run more than the rest of
    its start-up; anything this cannot see into (a zip, an egg, another distribution finder)
    answers True."""
    from importlib.machinery import PathFinder

    if any(hasattr(f, "find_distributions") and f is not PathFinder for f in sys.meta_path):
        return True
    needle = f"[{ENTRY_POINT_GROUP}]"
    for entry in sys.path:
        directory = entry or os.curdir
        if not os.path.isdir(directory):
            if os.path.exists(directory):
                return True  # a zip or an egg
            continue
        try:
            names = os.listdir(directory)
        except OSError:
            return True
        for name in names:
            if name.endswith((".egg", ".egg-link")) or (
                name.endswith(".egg-info") and not os.path.isdir(os.path.join(directory, name))
            ):
                return True
            if name.endswith((".dist-info", ".egg-info")):
                declared = os.path.join(directory, name, "entry_points.txt")
                try:
                    with open(declared, encoding="utf-8", errors="replace") as handle:
                        if needle in handle.read():
                            return True
                except FileNotFoundError:
                    continue
                except OSError:
                    return True
    return False


@cache
def entry_point_rules() -> tuple[type[Rule], ...]:
    if not may_declare_entry_points():
        return ()
    from importlib.metadata import entry_points

    found: list[type[Rule]] = []
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: (p.name, p.value)):
        dist = getattr(point, "dist", None)
        where = f"plugin `{point.name}` (entry point `{point.value}`"
        where += f" of {dist.name} {dist.version})" if dist is not None else ")"
        try:
            loaded = point.load()
        except Abandoned:
            raise
        except BaseException as error:  # KeyboardInterrupt and SystemExit at import are the plugin's too
            raise PluginError(f"{where} failed to load: {_error(error)}") from None
        found += rules_from(loaded, where)
    return tuple(found)


TRUST_ENV = "TILECHECK_ALLOW_PLUGINS"
_TRUE = ("1", "true", "yes", "on")


def trust_file() -> str:
    """The user's list of trusted project roots (outside any checked tree)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "tilecheck", "trusted.toml")


def trusted(directory: str, allow: bool | None = None) -> bool:
    """May the local plugins configured in `directory` run? `allow` is the command line's
    `--allow-plugins` (None: not given); then TILECHECK_ALLOW_PLUGINS; then the trust file's
    `roots`, each trusting itself and every directory below it."""
    if allow is not None:
        return allow
    value = os.environ.get(TRUST_ENV)
    if value is not None:
        return value.strip().lower() in _TRUE
    directory = os.path.realpath(directory)
    return any(directory == root or directory.startswith(root.rstrip(os.sep) + os.sep) for root in _roots())


def _roots() -> list[str]:
    path = trust_file()
    if not os.path.isfile(path):
        return []
    from tilecheck.config.file import read_bytes
    from tilecheck.config.toml import tomllib

    try:
        roots = tomllib.loads(read_bytes(path).decode("utf-8")).get("roots", [])
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise PluginError(f"Invalid TOML in {path}: {error}") from None
    if not isinstance(roots, list) or not all(isinstance(root, str) for root in roots):
        raise PluginError(f'{path}: `roots` must be an array of directories (roots = ["~/src/kernels"])')
    return [os.path.realpath(os.path.expanduser(root)) for root in roots]


def untrusted_warning(names: list[str], configured_in: str) -> str:
    listed = ", ".join(f"`{name}`" for name in names)
    return (
        f"{configured_in}: local plugin{'s' if len(names) > 1 else ''} {listed} not loaded: plugins run code "
        f"from the checked tree. If you trust it, pass --allow-plugins, set {TRUST_ENV}=1, or add its "
        f"directory to `roots` in {trust_file()}"
    )


def _package_for(directory: str) -> str:
    """A package whose path is `directory`, so that two directories' `lintrules` stay two modules."""
    digest = hashlib.sha1(os.path.abspath(directory).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = f"tilecheck_local_plugins_{digest}"
    if name not in sys.modules:
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [directory]
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package
    return name


@cache
def load_local(name: str, directory: str, configured_in: str) -> tuple[type[Rule], ...]:
    """The rules of local module `name` ("pkg.mod" or "pkg.mod:Class"), importable from `directory`."""
    where = f"plugin `{name}` (configured in {configured_in})"
    module_name, _, attribute = name.partition(":")
    if not all(part.isidentifier() for part in module_name.split(".")):
        raise PluginError(f"{where}: not a module name")
    package = _package_for(directory)
    sys.path.insert(0, directory)  # for the plugin's own absolute imports of its helpers
    try:
        module = importlib.import_module(f"{package}.{module_name}")
        loaded = getattr(module, attribute) if attribute else module
    except ModuleNotFoundError as error:
        missing = (error.name or "").removeprefix(package + ".")
        raise PluginError(
            f"{where} failed to load: ModuleNotFoundError: No module named {missing!r}"
        ) from None
    except Abandoned:
        raise
    except BaseException as error:  # KeyboardInterrupt and SystemExit at import are the plugin's too
        raise PluginError(f"{where} failed to load: {_error(error)}") from None
    finally:
        with contextlib.suppress(ValueError):  # the plugin may have removed it itself
            sys.path.remove(directory)
    return tuple(rules_from(loaded, where))


def rules_from(value: object, where: str) -> list[type[Rule]]:
    """The rules a plugin provides, each checked for a well-formed identity."""
    import inspect

    from tilecheck.core.registry import rules_in_module
    from tilecheck.core.rule import Rule

    candidates: list[object]
    if isinstance(value, ModuleType):
        exported = getattr(value, "__all__", None)
        if exported is not None:
            found = [getattr(value, name, None) for name in exported]
            candidates = [c for c in found if inspect.isclass(c) and issubclass(c, Rule)]
        else:
            candidates = list(rules_in_module(value))
    elif inspect.isclass(value):
        candidates = [value]
    elif isinstance(value, (list, tuple)):
        candidates = list(value)
    else:
        raise PluginError(f"{where}: expected a module, a Rule subclass or a list of them, got {value!r}")
    if not candidates:
        raise PluginError(f"{where} defines no rules")
    rules: list[type[Rule]] = []
    for candidate in candidates:
        check_rule(candidate, where)  # raises unless a well-formed Rule subclass
        assert isinstance(candidate, type) and issubclass(candidate, Rule)
        rules.append(candidate)
    return rules


def check_rule(rule: object, where: str) -> None:
    import inspect

    from tilecheck.core.rule import Rule

    if not (inspect.isclass(rule) and issubclass(rule, Rule) and rule is not Rule):
        raise PluginError(f"{where}: {rule!r} is not a subclass of tilecheck.core.rule.Rule")
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


def check_unique(rules: list[RuleEntry]) -> tuple[RuleEntry, ...]:
    by_code: dict[str, RuleEntry] = {}
    by_name: dict[str, RuleEntry] = {}
    unique: list[RuleEntry] = []
    for rule in rules:
        for table, key in ((by_code, rule.CODE), (by_name, rule.NAME)):
            other = table.get(key)
            if other is not None and other != rule:
                raise PluginError(
                    f"two rules use `{key}`: {other.module}.{other.qualname} and "
                    f"{rule.module}.{rule.qualname}"
                )
        if rule.CODE not in by_code:
            unique.append(rule)
        by_code[rule.CODE] = by_name[rule.NAME] = rule
    return tuple(sorted(unique, key=lambda r: r.CODE))


def _error(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
