"""`tilecheck rule CODE` (one rule's documentation) and `tilecheck rules` (the list)."""

from __future__ import annotations

import argparse

from tilecheck.catalogue import RuleInfo, catalogue_of
from tilecheck.cli.options import add_trust_options, dump_json, workspace_from
from tilecheck.config.selection import suggest
from tilecheck.core.docs import document_of, markdown_of
from tilecheck.core.errors import UsageError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rule = subparsers.add_parser("rule", help="explain a rule (Markdown)")
    rule.add_argument("code", metavar="CODE", nargs="?")
    rule.add_argument("--all", action="store_true", help="explain every rule")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")
    add_trust_options(rule)
    rules = subparsers.add_parser("rules", help="list the rules")
    rules.add_argument("--output-format", choices=("text", "json", "markdown"), default="text")
    add_trust_options(rules)


def _rules(args: argparse.Namespace) -> tuple[RuleInfo, ...]:
    """Built-in rules, installed plugins, and the local plugins of the working directory's
    configuration; without plugins, from the catalogue (no rule, no libcst is imported)."""
    workspace = workspace_from(args)
    settings = workspace.settings_for(workspace.resolver.cwd)
    index = settings.rule_index
    if all(isinstance(rule, RuleInfo) for rule in index):
        return tuple(rule for rule in index if isinstance(rule, RuleInfo))
    return catalogue_of(settings.rules)


def _by_code(code: str, rules: tuple[RuleInfo, ...]) -> RuleInfo | None:
    """As `registry.by_code`: a code (any case) or a kebab-case name."""
    return next((rule for rule in rules if code.upper() == rule.CODE or code == rule.NAME), None)


def run(args: argparse.Namespace) -> int:
    return run_rule(args) if args.command == "rule" else run_rules(args)


def run_rule(args: argparse.Namespace) -> int:
    rules = _rules(args)
    if args.all:
        if args.code:
            raise UsageError("give a rule code or --all, not both")
        if args.output_format == "json":
            dump_json([rule.record for rule in rules])
        else:
            print("\n".join(markdown_of(rule.record) for rule in rules), end="")
        return 0
    if not args.code:
        raise UsageError("which rule? (`tilecheck rule TL101`, or `tilecheck rule --all`)")
    rule = _by_code(args.code, rules)
    if rule is None:
        close = suggest(args.code, rules)
        hint = f"did you mean `{close}`? " if close else ""
        raise UsageError(f"unknown rule `{args.code}` ({hint}`tilecheck rules` lists them)")
    if args.output_format == "json":
        dump_json(rule.record)
    else:
        print(markdown_of(rule.record), end="")
    return 0


def run_rules(args: argparse.Namespace) -> int:
    rules = _rules(args)
    if args.output_format == "json":
        keys = ("code", "name", "grade", "summary", "fixable")
        dump_json([{k: v for k, v in r.record.items() if k in keys} for r in rules])
        return 0
    if args.output_format == "markdown":
        print(document_of([rule.record for rule in rules]), end="")
        return 0
    width = max(len(r.NAME) for r in rules)
    for rule in rules:
        print(f"{rule.CODE}  {rule.NAME:<{width}}  {rule.GRADE.value:<12}  {rule.summary()}")
    return 0
