"""The built-in rules' identities without importing them: a generated table, checked against the
rule files it was made from.

Resolving settings, validating selectors, keying the result cache and printing a cached report
need each rule's code, name, grade and reported key, not its class: importing the ~60 rule
modules (and the model types they read) would cost a fully cached run more than the rest of it.
`rules/_catalogue.py` records those four facts per rule and the SHA-256 of every file under
`rules/`; `builtin_entries()` uses it only when every file still hashes the same and no file
was added or removed, and otherwise imports the rules (correct, only slower). `make docs`
regenerates it (`python -m tilecheck.core.catalogue`); a test fails while it is stale.

A `RuleEntry` stands for one rule: built from the table (the class is imported on `load()`),
or from a class already loaded (a plugin's, or a fallback's).
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import json
import os
import sys
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from tilecheck.core.types import Grade, Severity

if TYPE_CHECKING:
    from tilecheck.core.rule import Rule

CATALOGUE_MODULE = "tilecheck.rules._catalogue"
_CATALOGUE_FILE = "_catalogue.py"


def key_name(key: enum.Enum | None) -> str | None:
    """A reported key as text: `module:Enum.MEMBER`."""
    if key is None:
        return None
    kind = type(key)
    return f"{kind.__module__}:{kind.__qualname__}.{key.name}"


@dataclass(frozen=True)
class RuleEntry:
    """A rule's identity (the attributes settings and reports read, named as the class names them)."""

    CODE: str
    NAME: str
    GRADE: Grade
    REPORTS: str | None  # `key_name` of the rule's REPORTS
    SEVERITY: Severity  # the rule's default severity
    module: str
    qualname: str
    loaded: type[Rule] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, rule: type[Rule]) -> RuleEntry:
        return cls(
            rule.CODE,
            rule.NAME,
            rule.GRADE,
            key_name(rule.REPORTS),
            rule.severity(),
            rule.__module__,
            rule.__qualname__,
            rule,
        )

    def load(self) -> type[Rule]:
        """The rule class (importing its module the first time)."""
        if self.loaded is not None:
            return self.loaded
        value: object = importlib.import_module(self.module)
        for part in self.qualname.split("."):
            value = getattr(value, part)
        from tilecheck.core.rule import Rule

        assert isinstance(value, type) and issubclass(value, Rule), self
        return value


def rules_directory() -> str:
    """The directory of the package `tilecheck.rules`, found without importing it."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    mapped = os.path.join(package, "rules")
    if os.path.isdir(mapped):
        return mapped
    import importlib.util

    spec = importlib.util.find_spec("tilecheck.rules")  # an editable install maps it elsewhere
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    return locations[0] if locations else mapped


def source_digests(directory: str) -> dict[str, str]:
    """The SHA-256 of every Python file under `directory` (the table itself excepted), by
    relative path with `/`."""
    digests: dict[str, str] = {}
    for root, subdirectories, files in os.walk(directory):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith(".py") or (root == directory and name == _CATALOGUE_FILE):
                continue
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
            digests[os.path.relpath(path, directory).replace(os.sep, "/")] = digest
    return digests


def _from_table() -> tuple[RuleEntry, ...] | None:
    """The generated table's entries, or None when it is missing or stale."""
    try:
        table = importlib.import_module(CATALOGUE_MODULE)
        recorded = table.SOURCES
        rows = table.RULES
        if source_digests(rules_directory()) != recorded:
            return None
        return tuple(
            RuleEntry(code, name, Grade(grade), reports, Severity(severity), module, qualname)
            for code, name, grade, reports, severity, module, qualname in rows
        )
    except (ImportError, AttributeError, OSError, ValueError, TypeError):
        return None


@cache
def builtin_entries() -> tuple[RuleEntry, ...]:
    """Every built-in rule, in code order: from the table when it is current, else imported."""
    found = _from_table()
    if found is not None:
        return found
    from tilecheck.core.registry import builtin_rules

    return tuple(RuleEntry.of(rule) for rule in builtin_rules())


def code_reporting(key: enum.Enum) -> str:
    """The code of the built-in rule that reports `key` (a KeyError for a key without one)."""
    return _reporting()[key_name(key)].CODE


def entry_reporting(key: enum.Enum) -> RuleEntry:
    return _reporting()[key_name(key)]


@cache
def _reporting() -> dict[str | None, RuleEntry]:
    return {entry.REPORTS: entry for entry in builtin_entries() if entry.REPORTS is not None}


def render_table() -> str:
    """The text of `rules/_catalogue.py` for the rules as they are now (imports them)."""
    from tilecheck.core.registry import builtin_rules

    lines = [
        '"""Generated by `python -m tilecheck.core.catalogue` (`make docs`): the identities of the',
        'built-in rules and the files they were read from (see tilecheck.core.catalogue). Do not edit."""',
        "",
        "RULES: list[tuple[str, str, str, str | None, str, str, str]] = [",
    ]
    for rule in builtin_rules():
        entry = RuleEntry.of(rule)
        row = (
            entry.CODE,
            entry.NAME,
            entry.GRADE.value,
            entry.REPORTS,
            entry.SEVERITY.value,
            entry.module,
            entry.qualname,
        )
        lines.append(f"    ({', '.join(_literal(value) for value in row)}),")
    lines += ["]", "", "SOURCES: dict[str, str] = {"]
    for path, digest in source_digests(rules_directory()).items():
        lines.append(f"    {_literal(path)}: {_literal(digest)},")
    lines += ["}", ""]
    return "\n".join(lines)


def _literal(value: str | None) -> str:
    return "None" if value is None else json.dumps(value)


def main(argv: list[str]) -> int:
    target = argv[0] if argv else os.path.join(rules_directory(), _CATALOGUE_FILE)
    text = render_table()
    temporary = target + ".tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
