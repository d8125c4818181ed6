"""Checks the resolved configuration runs on its values: rule selectors against the known
rules, and backend names against the shipped and configured profiles.

Apart from `settings` so that it reads as what is configured, not how a value is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from tilecheck.config.selection import SelectionError, matches, validate
from tilecheck.core.catalogue import RuleEntry, key_name
from tilecheck.core.errors import ConfigError, ProfileError
from tilecheck.core.meta import ALWAYS_REPORTED

if TYPE_CHECKING:
    from tilecheck.backends.profile import Profile


def always_reported(rule: RuleEntry) -> bool:
    """A file that could not be read, parsed or analyzed: reported whatever the selection."""
    return rule.REPORTS is not None and rule.REPORTS in ALWAYS_REPORTED_KEYS


ALWAYS_REPORTED_KEYS = frozenset(key_name(key) for key in ALWAYS_REPORTED)


def only_always_on(selector: str, rules: Iterable[RuleEntry]) -> bool:
    """Does `selector` name only the findings that say a file could not be analyzed?"""
    chosen = [rule for rule in rules if matches(selector, rule)]
    return bool(chosen) and all(always_reported(rule) for rule in chosen)


class SelectorCheck:
    """Validates selectors against the known rules, each distinct selector once (a table of
    100,000 per-file ignores names the same few codes again and again).

    `lenient`: local plugins were configured but not trusted, so a selector that names no
    known rule may name one of theirs; it is accepted."""

    def __init__(self, rules: Iterable[RuleEntry], *, lenient: bool = False) -> None:
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


def resolve_backend(
    name: str, user_profiles: dict[str, dict[str, object]], where: str, defined_in: str = ""
) -> Profile:
    """The profile `name`; `defined_in` names the files whose `[backends]` tables were merged."""
    from tilecheck.backends.aliases import unknown_backend
    from tilecheck.backends.profile import get_profile, names

    try:
        return get_profile(name, user_profiles)  # shipped, overridden or user-defined
    except ProfileError as error:
        prefix = f"{defined_in}: " if defined_in else ""
        raise ConfigError(f"{prefix}`backends`: {error}") from None
    except KeyError:
        raise ConfigError(f"{where}: {unknown_backend(name, names(user_profiles))}") from None
