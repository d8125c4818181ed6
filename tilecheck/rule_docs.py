"""Rule documentation generated from the rule classes: Markdown, JSON, and docs/rules.md."""

from __future__ import annotations

from tilecheck.registry import builtin_rules
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
    """docs/rules.md: an index table, then every rule's documentation (`python -m tilecheck.rule_docs`)."""
    lines = [
        "# tilecheck rules",
        "",
        "<!-- Generated from the rule classes by `python -m tilecheck.rule_docs docs/rules.md`; do not edit. -->",
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


def main(argv: list[str] | None = None) -> int:
    """`python -m tilecheck.rule_docs [PATH]`: write (or print) docs/rules.md for the built-in rules."""
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
