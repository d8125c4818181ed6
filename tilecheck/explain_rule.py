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
    if rule.CHECKLIST is not None:  # how the rule was designed: last, after what a kernel author needs
        lines += ["## Design notes", ""]
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


def document(rules: tuple[type[Rule], ...]) -> str:
    """docs/rules.md: an index table, then every rule's documentation (`python -m tilecheck.explain_rule`)."""
    lines = [
        "# tilecheck rules",
        "",
        "<!-- Generated from the rule classes by `python -m tilecheck.explain_rule docs/rules.md`; do not edit. -->",
        "",
        "| code | name | grade | fix | summary |",
        "|---|---|---|---|---|",
    ]
    for rule in rules:
        fix = _fix_kind(rule)
        lines.append(
            f"| [{rule.CODE}](#{_anchor(rule)}) | {rule.NAME} | {rule.GRADE.value} | {fix} | {rule.summary()} |"
        )
    lines.append("")
    for rule in rules:
        lines += ["", markdown(rule).replace("\n## ", "\n### ").replace("# ", "## ", 1).rstrip()]
    return "\n".join(lines).rstrip() + "\n"


def _fix_kind(rule: type[Rule]) -> str:
    return "yes" if rule.fixable() else ""


def _anchor(rule: type[Rule]) -> str:
    """GitHub's heading anchor of `## name (CODE)`."""
    return f"{rule.NAME}-{rule.CODE.lower()}"


def _rules(args: argparse.Namespace) -> tuple[type[Rule], ...]:
    """Built-in rules, installed plugins, and the local plugins of the working directory's configuration."""
    import os

    from tilecheck.config import Resolver

    return Resolver(cwd=os.getcwd()).for_directory(os.getcwd()).rules


def run_rule(args: argparse.Namespace) -> int:
    from tilecheck.cli import UsageError, dump_json

    rules = _rules(args)
    if args.all:
        if args.code:
            raise UsageError("give a rule code or --all, not both")
        if args.output_format == "json":
            dump_json([as_json(rule) for rule in rules])
        else:
            print("\n".join(markdown(rule) for rule in rules), end="")
        return 0
    if not args.code:
        raise UsageError("which rule? (`tilecheck rule TL101`, or `tilecheck rule --all`)")
    rule = by_code(args.code, rules)
    if rule is None:
        raise UsageError(f"unknown rule `{args.code}` (`tilecheck rules` lists them)")
    if args.output_format == "json":
        dump_json(as_json(rule))
    else:
        print(markdown(rule), end="")
    return 0


def run_rules(args: argparse.Namespace) -> int:
    from tilecheck.cli import dump_json

    rules = _rules(args)
    if args.output_format == "json":
        dump_json(
            [
                {k: v for k, v in as_json(r).items() if k in ("code", "name", "grade", "summary", "fixable")}
                for r in rules
            ]
        )
        return 0
    if args.output_format == "markdown":
        print(document(rules), end="")
        return 0
    width = max(len(r.NAME) for r in rules)
    for rule in rules:
        print(f"{rule.CODE}  {rule.NAME:<{width}}  {rule.GRADE.value:<12}  {rule.summary()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m tilecheck.explain_rule [PATH]`: write (or print) docs/rules.md for the built-in rules."""
    import sys

    argv = sys.argv[1:] if argv is None else argv
    text = document(builtin_rules())
    if not argv:
        sys.stdout.write(text)
        return 0
    with open(argv[0], "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
