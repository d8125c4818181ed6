"""Rule selection: codes (`TL101`), prefixes (`TL1`) and kebab-case names (`nested-parallel`)."""

from __future__ import annotations

from collections.abc import Iterable

from tilecheck.rule import Rule


class SelectionError(ValueError):
    pass


def matches(selector: str, rule: type[Rule]) -> bool:
    if selector == "ALL":
        return True
    if selector == rule.NAME:
        return True
    upper = selector.upper()
    return rule.CODE.startswith(upper) and upper[:2] == "TL"


def validate(selectors: Iterable[str], rules: Iterable[type[Rule]]) -> None:
    rules = list(rules)
    for selector in selectors:
        if not any(matches(selector, rule) for rule in rules):
            raise SelectionError(f"Unknown rule selector: `{selector}`")


def split(values: Iterable[str] | None) -> list[str]:
    """`--select TL101,TL102 --select TL2` -> ["TL101", "TL102", "TL2"]."""
    result: list[str] = []
    for value in values or ():
        result.extend(part.strip() for part in value.split(",") if part.strip())
    return result


def select(
    rules: Iterable[type[Rule]], select: list[str] | None, ignore: list[str] | None
) -> list[type[Rule]]:
    """Rules chosen by `select` (all when None) minus `ignore`; the most specific selector wins."""
    chosen = []
    for rule in rules:
        wanted = _specificity(select, rule) if select is not None else 0
        unwanted = _specificity(ignore or [], rule)
        if wanted is not None and (unwanted is None or wanted > unwanted):
            chosen.append(rule)
    return chosen


def _specificity(selectors: list[str], rule: type[Rule]) -> int | None:
    best = None
    for selector in selectors:
        if matches(selector, rule):
            score = 100 if selector == rule.NAME else (0 if selector == "ALL" else len(selector))
            best = score if best is None else max(best, score)
    return best
