"""Findings (node + code) and their conversion to positioned diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tilecheck.locate import Locator
from tilecheck.pypto.codes import Code
from tilecheck.types import Diagnostic


@dataclass(frozen=True)
class Finding:
    code: Code
    node: cst.CSTNode
    top: cst.CSTNode  # the module-level statement holding `node`
    values: dict[str, object] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def to_diagnostics(module: cst.Module, path: str, findings: list[Finding]) -> list[Diagnostic]:
    if not findings:
        return []
    locator = Locator(module)
    found = [
        finding.code.diagnostic(
            path, locator.span(finding.node, finding.top), finding.notes, **finding.values
        )
        for finding in findings
    ]
    return sorted(set(found), key=Diagnostic.sort_key)
