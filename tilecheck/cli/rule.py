"""`tilecheck rule CODE` (one rule's documentation) and `tilecheck rules` (the list)."""

from __future__ import annotations

import argparse

from tilecheck.cli.options import add_trust_options, dump_json, workspace_from
from tilecheck.config.selection import suggest
from tilecheck.core.docs import as_json, document, markdown
from tilecheck.core.errors import UsageError
from tilecheck.core.registry import by_code
from tilecheck.core.rule import Rule


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rule = subparsers.add_parser("rule", help="explain a rule (Markdown)")
    rule.add_argument("code", metavar="CODE", nargs="?")
    rule.add_argument("--all", action="store_true", help="explain every rule")
    rule.add_argument("--output-format", choices=("text", "json"), default="text")
    add_trust_options(rule)
    rules = subparsers.add_parser("rules", help="list the rules")
    rules.add_argument("--output-format", choices=("text", "json", "markdown"), default="text")
    add_trust_options(rules)


def _rules(args: argparse.Namespace) -> tuple[type[Rule], ...]:
    """Built-in rules, installed plugins, and the local plugins of the working directory's
    configuration (importing a rule imports neither libcst nor the kernel model)."""
    workspace = workspace_from(args)
    return tuple(rule.load() for rule in workspace.settings_for(workspace.resolver.cwd).rules)


def run(args: argparse.Namespace) -> int:
    return run_rule(args) if args.command == "rule" else run_rules(args)


def run_rule(args: argparse.Namespace) -> int:
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
        close = suggest(args.code, rules)
        hint = f"did you mean `{close}`? " if close else ""
        raise UsageError(f"unknown rule `{args.code}` ({hint}`tilecheck rules` lists them)")
    if args.output_format == "json":
        dump_json(as_json(rule))
    else:
        print(markdown(rule), end="")
    return 0


def run_rules(args: argparse.Namespace) -> int:
    rules = _rules(args)
    if args.output_format == "json":
        keys = ("code", "name", "grade", "summary", "fixable")
        dump_json([{k: v for k, v in as_json(r).items() if k in keys} for r in rules])
        return 0
    if args.output_format == "markdown":
        print(document(rules), end="")
        return 0
    width = max(len(r.NAME) for r in rules)
    for rule in rules:
        print(f"{rule.CODE}  {rule.NAME:<{width}}  {rule.GRADE.value:<12}  {rule.summary()}")
    return 0
