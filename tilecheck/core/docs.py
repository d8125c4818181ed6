"""Rule documentation generated from the rule classes: Markdown, JSON, and docs/rules.md."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tilecheck.core.registry import builtin_rules
from tilecheck.core.rule import Rule


def markdown(rule: type[Rule]) -> str:
    return markdown_of(as_json(rule))


def markdown_of(record: Mapping[str, Any]) -> str:
    """A rule's documentation from its `as_json` record (which crosses process boundaries)."""
    lines = [f"# {record['name']} ({record['code']})", "", record["summary"], ""]
    lines.append(f"Grade: **{record['grade']}**. Default severity: {record['severity']}.")
    if record["fixable"]:
        lines.append("Fix is sometimes available.")
    lines.append("")
    for heading, body in record["sections"].items():
        lines += [f"## {heading}", body, ""]
    return "\n".join(lines).rstrip() + "\n"


def what_it_does(rule: type[Rule]) -> str:
    """The first paragraph of the rule's `What it does` (its summary line when there is none)."""
    return rule.sections().get("What it does", "").split("\n\n", 1)[0].strip() or rule.summary()


def brief(rule: type[Rule], href: str | None = None, help: str | None = None) -> str:
    """What an editor shows in place of the whole page (`brief_of` the rule)."""
    return brief_of(rule.CODE, what_it_does(rule), help or rule.HELP, href)


def brief_of(code: str, what: str, fix: str | None, href: str | None) -> str:
    """What the rule finds (one paragraph), the fix, and where the full page is: `href`, else
    the command that prints it."""
    where = f"[Full documentation]({href})" if href else f"Full documentation: `tilecheck rule {code}`"
    return "\n\n".join([what, *([f"**Fix:** {fix}"] if fix else []), where]) + "\n"


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
    }


def document(rules: tuple[type[Rule], ...]) -> str:
    """docs/rules.md: an index table, then every rule's documentation (`python -m tilecheck.core.docs`)."""
    return document_of([as_json(rule) for rule in rules])


def document_of(records: Sequence[Mapping[str, Any]]) -> str:
    """`document` from `as_json` records."""
    lines = [
        "# tilecheck rules",
        "",
        "<!-- Generated from the rule classes by `python -m tilecheck.core.docs docs/rules.md`; do not edit. -->",
        "",
        "| code | name | grade | fix | summary |",
        "|---|---|---|---|---|",
    ]
    for record in records:
        fix = "yes" if record["fixable"] else ""
        anchor = f"{record['name']}-{record['code'].lower()}"
        lines.append(
            f"| [{record['code']}](#{anchor}) | {record['name']} | {record['grade']} | {fix} | {record['summary']} |"
        )
    lines.append("")
    for record in records:
        lines += ["", markdown_of(record).replace("\n## ", "\n### ").replace("# ", "## ", 1).rstrip()]
    return "\n".join(lines).rstrip() + "\n"


def _anchor(rule: type[Rule]) -> str:
    """GitHub's heading anchor of `## name (CODE)`."""
    return f"{rule.NAME}-{rule.CODE.lower()}"


def main(argv: list[str] | None = None) -> int:
    """`python -m tilecheck.core.docs [PATH]`: write (or print) docs/rules.md for the built-in rules."""
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
