"""`sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF consumers.

One run; the driver lists the enabled rules (grade as a tag, documentation as help);
results have 1-based regions in code points, URIs relative to `%SRCROOT%` (the working
directory), partial fingerprints that survive line shifts, and fixes where a rule has one.
Empty lists are `[]`, never null. `run.properties.coverage` says how many kernels and loops the
model saw, in total and per file with kernel code (`tilecheck.lint.coverage`). In a notebook a
region's lines are counted in its cell, which the region's `properties.cell` gives; its results
carry no `fixes` (their edits are in the cells' text, not in the notebook's JSON the artifact is).
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
from typing import TextIO
from urllib.parse import quote

from tilecheck import __version__
from tilecheck.core.registry import by_code
from tilecheck.core.rule import Rule
from tilecheck.core.types import Diagnostic, NotebookCell, Span
from tilecheck.report import Run, level

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
ROOT = "%SRCROOT%"


def repository_url() -> str | None:
    """The `Repository` (or `Source`) URL of `[project.urls]` in tilecheck's package metadata.

    None when the project configures none: SARIF `helpUri`s are then left out, never invented.
    """
    from importlib import metadata

    try:
        entries = metadata.metadata("tilecheck").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    urls = {}
    for entry in entries:
        label, _, url = entry.partition(",")
        urls[label.strip().lower()] = url.strip()
    url = urls.get("repository") or urls.get("source")
    return url.rstrip("/") if url and url.startswith("https://") else None


def help_uri(rule: type[Rule], repository: str | None) -> str | None:
    """The rule's section of docs/rules.md in the repository (built-in rules only)."""
    from tilecheck.core.docs import _anchor
    from tilecheck.core.registry import builtin_rules

    if repository is None or rule not in builtin_rules():
        return None
    return f"{repository}/blob/HEAD/docs/rules.md#{_anchor(rule)}"  # HEAD: the default branch


def rule_descriptor(rule: type[Rule], repository: str | None = None) -> dict[str, object]:
    from tilecheck.core.docs import markdown

    sections = rule.sections()
    summary = rule.summary() or rule.NAME
    severity = rule.severity().value
    uri = help_uri(rule, repository)
    return {
        **({"helpUri": uri} if uri else {}),
        "id": rule.CODE,
        "name": rule.NAME,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": sections.get("What it does", summary)},
        "help": {"text": rule.HELP or summary, "markdown": markdown(rule)},
        "defaultConfiguration": {"level": {"error": "error", "warning": "warning", "info": "note"}[severity]},
        "properties": {"tags": [rule.GRADE.value], "grade": rule.GRADE.value},
    }


def _artifact(path: str, root: str) -> dict[str, object]:
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, root)
    if relative.startswith(".."):
        return {"uri": pathlib.Path(absolute).as_uri()}
    return {"uri": quote(os.fsencode(relative.replace(os.sep, "/"))), "uriBaseId": ROOT}  # bytes: any name


def _region(span: Span, cell: NotebookCell | None = None) -> dict[str, object]:
    region: dict[str, object] = {
        "startLine": span.line if cell is None else cell.line(span.line),
        "startColumn": span.column + 1,
        "endLine": max(span.end_line, span.line)
        if cell is None
        else cell.line(max(span.end_line, span.line)),
        "endColumn": span.end_column + 1,
    }
    if cell is not None:
        region["properties"] = {"cell": cell.number}
    return region


def line_fingerprint(diagnostic: Diagnostic, source: str | None, seen: dict[tuple[str, str], int]) -> str:
    """The rule and the normalised text of the diagnostic's line, numbered among equal ones of
    its file: stable when lines above it move (SARIF's `primaryLocationLineHash`, GitLab's fingerprint)."""
    lines = source.splitlines() if source is not None else []
    text = lines[diagnostic.span.line - 1] if 0 < diagnostic.span.line <= len(lines) else ""
    digest = hashlib.sha256(f"{diagnostic.code}\0{' '.join(text.split())}".encode()).hexdigest()[:16]
    key = (diagnostic.path, digest)
    seen[key] = seen.get(key, 0) + 1
    return f"{digest}:{seen[key]}"


def document(run: Run, root: str | None = None) -> dict[str, object]:
    root = os.path.abspath(root or os.getcwd())
    repository = repository_url()
    enabled = tuple(rule.load() for rule in run.rules)
    rules: dict[str, type[Rule]] = {rule.CODE: rule for rule in enabled}
    for diagnostic in run.diagnostics:
        if diagnostic.code not in rules:
            rule = by_code(diagnostic.code, enabled or None) or by_code(diagnostic.code)
            if rule is not None:
                rules[rule.CODE] = rule
    ordered = sorted(rules.values(), key=lambda r: r.CODE)
    index = {rule.CODE: i for i, rule in enumerate(ordered)}
    seen: dict[tuple[str, str], int] = {}
    results = []
    for diagnostic in run.diagnostics:
        result: dict[str, object] = {
            "ruleId": diagnostic.code,
            "level": level(diagnostic),  # error | warning | note, as SARIF names them
            "message": {"text": diagnostic.message},
            "locations": [],
            "properties": {"grade": diagnostic.grade.value, "rule": diagnostic.rule},
        }
        if diagnostic.data:
            properties = result["properties"]
            assert isinstance(properties, dict)
            properties["data"] = dict(diagnostic.data)
        if diagnostic.code in index:
            result["ruleIndex"] = index[diagnostic.code]
        if not diagnostic.path.startswith("<"):
            artifact = _artifact(diagnostic.path, root)
            result["locations"] = [
                {
                    "physicalLocation": {
                        "artifactLocation": artifact,
                        "region": _region(diagnostic.span, diagnostic.cell),
                    }
                }
            ]
            source = run.sources.get(diagnostic.path)
            if diagnostic.related:
                result["relatedLocations"] = [
                    {
                        "id": number,
                        "message": {"text": item.message},
                        "physicalLocation": {
                            "artifactLocation": _artifact(item.path or diagnostic.path, root),
                            "region": _region(item.span, item.cell),
                        },
                    }
                    for number, item in enumerate(diagnostic.related, 1)
                ]
            result["partialFingerprints"] = {
                "primaryLocationLineHash": line_fingerprint(diagnostic, source, seen)
            }
            if diagnostic.fix is not None and diagnostic.cell is None:
                result["fixes"] = [
                    {
                        "description": {
                            "text": diagnostic.fix.title + ("" if diagnostic.fix.safe else " (unsafe)")
                        },
                        "artifactChanges": [
                            {
                                "artifactLocation": artifact,
                                "replacements": [
                                    {
                                        "deletedRegion": _region(edit.span),
                                        "insertedContent": {"text": edit.replacement},
                                    }
                                    for edit in diagnostic.fix.edits
                                ],
                            }
                        ],
                    }
                ]
        results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tilecheck",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [rule_descriptor(rule, repository) for rule in ordered],
                    }
                },
                "originalUriBaseIds": {ROOT: {"uri": pathlib.Path(root).as_uri().rstrip("/") + "/"}},
                "columnKind": "unicodeCodePoints",
                "invocations": [{"executionSuccessful": run.successful}],
                "results": results,
                "properties": {"coverage": coverage(run, root)},
            }
        ],
    }


def coverage(run: Run, root: str) -> dict[str, object]:
    """What the kernel model saw (`tilecheck.lint.coverage`): totals over every file checked, and a
    record per file with kernel code (a kernel or loop modeled, or a TL006 note)."""
    files = run.covered()
    return {
        "filesChecked": run.files_checked,
        "kernels": sum(counts.kernels for _, counts, _ in files),
        "loops": sum(counts.loops for _, counts, _ in files),
        "files": [
            {
                "artifactLocation": _artifact(path, root) if not path.startswith("<") else {"uri": path},
                "kernels": counts.kernels,
                "loops": counts.loops,
                "unmodeledCode": unmodeled,
            }
            for path, counts, unmodeled in files
        ],
    }


def render(run: Run, out: TextIO) -> None:
    json.dump(document(run), out, indent=2, ensure_ascii=False)
    out.write("\n")
