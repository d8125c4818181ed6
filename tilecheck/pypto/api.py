"""Programmatic entry points: `lower_source` and `check_source`."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from tilecheck.pypto import backends, codes
from tilecheck.pypto.checks import check_functions
from tilecheck.pypto.consts import ModuleConstants
from tilecheck.pypto.dsl import dsl_functions, find_aliases, replace_functions
from tilecheck.pypto.lower import FunctionLowering, ModuleContext
from tilecheck.pypto.names import Tokens, printed_names
from tilecheck.pypto.report import to_diagnostics
from tilecheck.types import Diagnostic, Span

_DEFAULT_PATH = "<string>"


@dataclass
class LowerResult:
    source: str  # the lowered text (the input unchanged when nothing was lowered)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    changed: bool = False


def _parse(source: str, path: str) -> cst.Module | Diagnostic:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        span = Span.point(error.raw_line, error.raw_column)
        return codes.PARSE_ERROR.diagnostic(path, span, detail=error.message)
    except (RecursionError, ValueError, MemoryError) as error:
        return codes.PARSE_ERROR.diagnostic(path, Span.point(1, 0), detail=str(error) or type(error).__name__)


def check_module(
    module: cst.Module, path: str | None = None, *, backend: str | None = None
) -> list[Diagnostic]:
    """The TL4xx diagnostics of a parsed module (used by `tilecheck check` through the rules)."""
    aliases = find_aliases(module)
    if not aliases.prefixes and not aliases.members:
        return []
    sites = dsl_functions(module, aliases)
    if not sites:
        return []
    constants = ModuleConstants(module, path)
    findings = check_functions(module, aliases, constants, sites, backends.capabilities(backend))
    return to_diagnostics(module, path or _DEFAULT_PATH, findings)


def check_source(source: str, path: str | None = None, *, backend: str | None = None) -> list[Diagnostic]:
    parsed = _parse(source, path or _DEFAULT_PATH)
    if isinstance(parsed, Diagnostic):
        return [parsed]
    return check_module(parsed, path, backend=backend)


def lower_source(source: str, path: str | None = None, *, backend: str | None = None) -> LowerResult:
    """Lower every `pl.pipeline(..., stage=F)` loop of the DSL functions in `source`.

    Nothing is lowered while a semantic or contract error stands for `backend` (a backend name
    from `tilecheck.pypto.backends`; KeyError for an unknown one).
    """
    capabilities = backends.capabilities(backend)
    shown = path or _DEFAULT_PATH
    parsed = _parse(source, shown)
    if isinstance(parsed, Diagnostic):
        return LowerResult(source, [parsed], False)
    module = parsed
    aliases = find_aliases(module)
    if not aliases.prefixes and not aliases.members:
        return LowerResult(source, [], False)
    sites = dsl_functions(module, aliases)
    if not sites:
        return LowerResult(source, [], False)
    constants = ModuleConstants(module, path)
    findings = check_functions(module, aliases, constants, sites, capabilities)
    diagnostics = to_diagnostics(module, shown, findings)
    if any(codes.blocks_lowering(diagnostic) for diagnostic in diagnostics):
        return LowerResult(source, diagnostics, False)
    context = ModuleContext(aliases, constants, Tokens(source))
    replacements: dict[tuple[int, ...], cst.FunctionDef] = {}
    for site in sites:
        lowered = FunctionLowering(context, site.node, module.body[site.path[0]]).run()
        if lowered is not None:
            replacements[site.path] = lowered
    diagnostics = sorted(
        set(diagnostics) | set(to_diagnostics(module, shown, context.notes)), key=Diagnostic.sort_key
    )
    if not replacements:
        return LowerResult(source, diagnostics, False)
    names: dict[str, str] = {}
    for function in replacements.values():
        names.update(printed_names(function, context.tokens))
    # libcst generates valid syntax from valid nodes; `tilecheck lower --write` re-parses before writing.
    text = context.tokens.replace_all(replace_functions(module, replacements).code, names)
    return LowerResult(text, diagnostics, text != source)
