"""Programmatic entry points: `lower_source` and `check_source`."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import libcst as cst

from tilecheck.pypto import backends, codes
from tilecheck.pypto.checks import check_functions
from tilecheck.pypto.codegen import Codegen
from tilecheck.pypto.consts import ModuleConstants
from tilecheck.pypto.dataflow import Dataflow
from tilecheck.pypto.dsl import Aliases, FunctionSite, dsl_functions, find_aliases, replace_functions
from tilecheck.pypto.lower import TOO_DEEP, FunctionLowering, ModuleContext
from tilecheck.pypto.names import Tokens, printed_names
from tilecheck.pypto.report import Finding, to_diagnostics
from tilecheck.pypto.splice import splice
from tilecheck.pypto.template import materialize
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
    module: cst.Module, path: str | None = None, *, backend: object | None = None
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
    or profile from `tilecheck.backends`; KeyError for an unknown name).
    """
    with _collector_paused():
        try:
            return _lower_source(source, path, backend)
        except RecursionError:
            # Every step guards its own recursion; this keeps a traceback out of the CLI regardless.
            reason = "the file is nested too deeply to lower (Python's recursion limit)"
            note = codes.NOT_LOWERED.diagnostic(path or _DEFAULT_PATH, Span.point(1, 0), reason=reason)
            return LowerResult(source, [note], False)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for one lowering.

    A parsed module is some 10^5 objects, and each automatic collection while they are alive
    walks them (about a tenth of the run on a 1,000-line file). Neither libcst trees nor the
    lowering's structures hold reference cycles (`ModuleConstants.close` breaks the one its
    file cache makes; `test_splice` pins this), so reference counting frees everything at the
    end as before, and the collector runs again afterwards. Left alone when the caller has
    paused it already.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _lower_source(source: str, path: str | None, backend: str | None) -> LowerResult:
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
    try:
        return _lower_module(source, module, shown, aliases, sites, constants, capabilities)
    finally:
        constants.close()


def _lower_module(
    source: str,
    module: cst.Module,
    shown: str,
    aliases: Aliases,
    sites: list[FunctionSite],
    constants: ModuleConstants,
    capabilities: backends.Capabilities,
) -> LowerResult:
    flows: dict[int, tuple[Dataflow, set[str]]] = {}
    findings = check_functions(module, aliases, constants, sites, capabilities, flows)
    diagnostics = to_diagnostics(module, shown, findings, source)
    if any(codes.blocks_lowering(diagnostic) for diagnostic in diagnostics):
        return LowerResult(source, diagnostics, False)
    context = ModuleContext(aliases, constants, Tokens(source), flows=flows)
    replacements: dict[tuple[int, ...], cst.FunctionDef] = {}
    regions: list[tuple[cst.For, list[cst.BaseStatement]]] = []
    tops: list[cst.CSTNode] = []
    for site in sites:
        top = module.body[site.path[0]]
        lowering = FunctionLowering(context, site.node, top)
        lowered = lowering.run()
        if lowered is not None:
            replacements[site.path] = lowered
            regions.extend(lowering.regions)
            tops.extend(top for _ in lowering.regions)
    text = source
    if replacements:
        try:
            text = _lowered_text(source, module, replacements, regions, context.tokens)
        except RecursionError:
            text = source
            for top, (loop, _) in zip(tops, regions, strict=True):
                values = {"reason": TOO_DEEP}
                context.notes.append(Finding(codes.NOT_LOWERED, loop.iter, top, values, loop=loop))
    diagnostics = sorted(
        set(diagnostics) | set(to_diagnostics(module, shown, context.notes, source)), key=Diagnostic.sort_key
    )
    return LowerResult(text, diagnostics, text != source)


def _lowered_text(
    source: str,
    module: cst.Module,
    replacements: dict[tuple[int, ...], cst.FunctionDef],
    regions: list[tuple[cst.For, list[cst.BaseStatement]]],
    tokens: Tokens,
) -> str:
    names: dict[str, str] = {}
    for function in replacements.values():
        names.update(printed_names(function, tokens))
    text = _spliced(source, module, regions, tokens, names)
    if text is None:
        # libcst generates valid syntax from valid nodes; `tilecheck lower --write` compiles before writing.
        rebuilt = {path: materialize(function) for path, function in replacements.items()}
        text = tokens.replace_all(replace_functions(module, rebuilt).code, names)  # type: ignore[arg-type]
    return text


def _spliced(
    source: str,
    module: cst.Module,
    regions: list[tuple[cst.For, list[cst.BaseStatement]]],
    tokens: Tokens,
    names: dict[str, str],
) -> str | None:
    """The source with each lowered loop's text replaced; None when the loops cannot be placed."""
    if not regions:
        return None
    spans = splice(source, module, regions, Codegen(module))
    if spans is None:
        return None
    pieces: list[str] = []
    last = 0
    for start, end, text in spans:
        pieces.append(source[last:start])
        pieces.append(tokens.replace_all(text, names))
        last = end
    pieces.append(source[last:])
    return "".join(pieces)
