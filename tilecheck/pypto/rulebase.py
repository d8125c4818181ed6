"""Glue between the rule API (`tilecheck.rule.Rule`) and the PyPTO checks.

The checks run once per parsed module; each `rules/pypto_*.py` rule reports the findings of its
own code. The backend profile names of `tilecheck check` are not PyPTO profiles yet, so an
unknown backend uses the default PyPTO profile (which accepts nested pipelines).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.pypto import backends
from tilecheck.pypto.api import check_module
from tilecheck.types import Diagnostic

if TYPE_CHECKING:
    from tilecheck.context import Context

_last: tuple[cst.Module, str, str | None, list[Diagnostic]] | None = None


def _backend_name(backend: object | None) -> str | None:
    name = getattr(backend, "name", backend)
    return name if isinstance(name, str) and name in backends.names() else None


def findings(ctx: Context) -> list[Diagnostic]:
    global _last
    backend = _backend_name(ctx.backend)
    if _last is None or _last[0] is not ctx.module or _last[1] != ctx.path or _last[2] != backend:
        _last = (ctx.module, ctx.path, backend, check_module(ctx.module, ctx.path, backend=backend))
    return _last[3]


def report(ctx: Context, code: str) -> None:
    for diagnostic in findings(ctx):
        if diagnostic.code == code:
            ctx.report_at(diagnostic.span, diagnostic.message, notes=diagnostic.notes)
