"""Glue between the rule API (`tilecheck.rule.Rule`) and the PyPTO checks.

The checks run once per parsed module; each `rules/pypto_*.py` rule reports the findings of its
own code. The backend profile names of `tilecheck check` are not PyPTO profiles yet, so an
unknown backend uses the default PyPTO profile (which accepts nested pipelines).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.backends import profile_of
from tilecheck.pypto.api import check_module
from tilecheck.types import Diagnostic

if TYPE_CHECKING:
    from tilecheck.context import Context

_last: tuple[cst.Module, str, str | None, list[Diagnostic]] | None = None


def findings(ctx: Context) -> list[Diagnostic]:
    """The PyPTO checks of this file, computed once for all the PyPTO rules."""
    global _last
    profile = profile_of(ctx.backend)
    name = profile.name if profile is not None else None
    if _last is None or _last[0] is not ctx.module or _last[1] != ctx.path or _last[2] != name:
        _last = (ctx.module, ctx.path, name, check_module(ctx.module, ctx.path, backend=profile))
    return _last[3]


def report(ctx: Context, code: str) -> None:
    for diagnostic in findings(ctx):
        if diagnostic.code == code:
            ctx.report_at(diagnostic.span, diagnostic.message, notes=diagnostic.notes)
