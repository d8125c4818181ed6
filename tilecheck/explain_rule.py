"""`tilecheck rule CODE` and `tilecheck rules`: documentation generated from the rule classes."""

from __future__ import annotations

import argparse

from tilecheck.registry import builtin_rules, by_code
from tilecheck.rule import Rule


def markdown(rule: type[Rule]) -> str:
    lines = [f"# {rule.NAME} ({rule.CODE})", "", rule.summary(), ""]
    lines.append(f"Grade: **{rule.GRADE.value}**. Default severity: {rule.severity().value}.")
    if rule.fixable():
        lines.append("Fix is sometimes available.")
    lines.append("")
    for heading, body in rule.sections().items():
        lines += [f"## {heading}", body, ""]
    if rule.CHECKLIST is not None:
        lines += ["## Rule-design checklist", ""]
        for number, (_, question, answer) in enumerate(rule.CHECKLIST.answers(), 1):
            lines.append(f"{number}. **{question}** {answer}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def as_json(rule: type[Rule]) -> dict[str, object]:
    return {
        "code": rule.CODE,
        "name": rule.NAME,
        "grade": rule.GRADE.value,
        "severity": rule.severity().value,
        "summary": rule.summary(),
        "fixable": rule.fixable(),
        "help": rule.HELP,
        "sections": rule.sections(),
        "checklist": {key: answer for key, _, answer in rule.CHECKLIST.answers()} if rule.CHECKLIST else None,
    }


def run_rule(args: argparse.Namespace) -> int:
    from tilecheck.cli import UsageError, dump_json

    rule = by_code(args.code)
    if rule is None:
        raise UsageError(f"unknown rule `{args.code}`")
    if args.output_format == "json":
        dump_json(as_json(rule))
    else:
        print(markdown(rule), end="")
    return 0


def run_rules(args: argparse.Namespace) -> int:
    from tilecheck.cli import dump_json

    rules = builtin_rules()
    if args.output_format == "json":
        dump_json(
            [
                {k: v for k, v in as_json(r).items() if k in ("code", "name", "grade", "summary")}
                for r in rules
            ]
        )
        return 0
    width = max(len(r.NAME) for r in rules)
    for rule in rules:
        print(f"{rule.CODE}  {rule.NAME:<{width}}  {rule.GRADE.value:<12}  {rule.summary()}")
    return 0
