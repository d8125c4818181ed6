"""Rule selection: codes (`TL101`), prefixes (`TL1`) and kebab-case names (`nested-parallel`).

Selections come in layers (each configuration file of an `extend` chain, then the command
line), applied in order as ruff does: a layer with `select` starts over, `extend-select`
adds, `ignore` removes; within a layer the most specific selector wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from tilecheck.core.catalogue import RuleEntry
    from tilecheck.core.rule import Rule

# A rule class or its identity (`core.catalogue.RuleEntry`): selection reads only CODE and NAME.
Selectable = TypeVar("Selectable", bound="RuleEntry | type[Rule]")

_PREFIX = re.compile(r"[A-Za-z]+[0-9]*")


class SelectionError(ValueError):
    pass


def matches(selector: str, rule: RuleEntry | type[Rule]) -> bool:
    if selector == "ALL" or selector == rule.NAME:
        return True
    return _PREFIX.fullmatch(selector) is not None and rule.CODE.startswith(selector.upper())


def validate(selectors: Iterable[str], rules: Iterable[RuleEntry | type[Rule]]) -> None:
    rules = list(rules)
    for selector in selectors:
        if not any(matches(selector, rule) for rule in rules):
            close = suggest(selector, rules)
            hint = f" (did you mean `{close}`?)" if close else ""
            raise SelectionError(f"Unknown rule selector: `{selector}`{hint}")


# Letters mistyped for the digits they look like, in a code's number (`TL1O1` for `TL101`).
_LOOK_ALIKE_DIGITS = str.maketrans("OoDQIilL|SsZzB", "00001111155228")


def suggest(word: str, rules: Iterable[RuleEntry | type[Rule]]) -> str | None:
    """The code or rule name a mistyped `word` was meant to be: a code or code prefix with
    look-alike letters in its number (`TL1O1` -> `TL101`), else the closest rule name. Codes are
    not matched by similarity: `TL777` is not a typo of `TL417`."""
    rules = list(rules)
    codes = {rule.CODE for rule in rules}
    for letters in sorted({code.rstrip("0123456789") for code in codes}, key=len, reverse=True):
        if word.upper().startswith(letters) and len(word) > len(letters):
            number = word[len(letters) :].translate(_LOOK_ALIKE_DIGITS)
            candidate = letters + number
            if number.isdigit() and candidate != word and any(code.startswith(candidate) for code in codes):
                return candidate
    import difflib  # only for an unknown selector

    close = difflib.get_close_matches(word, [rule.NAME for rule in rules], n=1, cutoff=0.8)
    return close[0] if close else None


def split(values: Iterable[str] | None) -> list[str]:
    """`--select TL101,TL102 --select TL2` -> ["TL101", "TL102", "TL2"]."""
    result: list[str] = []
    for value in values or ():
        result.extend(part.strip() for part in value.split(",") if part.strip())
    return result


@dataclass(frozen=True)
class Layer:
    select: tuple[str, ...] | None = None  # None: keep what earlier layers chose
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    origin: str = ""

    def selectors(self) -> list[str]:
        return [*(self.select or ()), *self.extend_select, *self.ignore]


@dataclass
class Selection:
    layers: list[Layer] = field(default_factory=list)

    def enabled(self, rules: Iterable[Selectable]) -> list[Selectable]:
        chosen = []
        for rule in rules:
            on = True
            for layer in self.layers:
                wanted = specificity([*(layer.select or ()), *layer.extend_select], rule)
                unwanted = specificity(list(layer.ignore), rule)
                if wanted is not None and (unwanted is None or wanted > unwanted):
                    on = True
                elif unwanted is not None or layer.select is not None:
                    on = False
            if on:
                chosen.append(rule)
        return chosen


def select(
    rules: Iterable[Selectable], select: list[str] | None, ignore: list[str] | None
) -> list[Selectable]:
    """Rules chosen by `select` (all when None) minus `ignore`; the most specific selector wins."""
    layer = Layer(tuple(select) if select is not None else None, (), tuple(ignore or ()))
    return Selection([layer]).enabled(rules)


def specificity(selectors: list[str], rule: RuleEntry | type[Rule]) -> int | None:
    best = None
    for selector in selectors:
        if matches(selector, rule):
            score = 100 if selector == rule.NAME else (0 if selector == "ALL" else len(selector))
            best = score if best is None else max(best, score)
    return best
