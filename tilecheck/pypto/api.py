"""Programmatic entry points: `lower_source` (what `tilecheck lower` does to one file) and
`check_pypto_source` / `check_module` (the TL4xx checks the PyPTO rules report).

Which findings a lowering reports, and at what severity, is the caller's `Reporting`: the
application layer's applies a file's configuration and suppression comments
(`app.lowering.ConfiguredReporting`); without one, every finding is reported as its rule says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import libcst as cst

from tilecheck.core.types import Diagnostic, Grade, Severity, Span
from tilecheck.pypto import backends
from tilecheck.pypto.checks import check_functions
from tilecheck.pypto.codegen import Codegen
from tilecheck.pypto.consts import ModuleConstants
from tilecheck.pypto.dsl import FunctionSite, dsl_functions, find_aliases, replace_functions
from tilecheck.pypto.findings import Finding, pypto_rule, to_diagnostics
from tilecheck.pypto.limits import TOO_DEEP
from tilecheck.pypto.lower import FunctionLowering, ModuleContext
from tilecheck.pypto.names import Tokens, printed_names
from tilecheck.pypto.problems import PyptoProblem
from tilecheck.pypto.splice import splice
from tilecheck.pypto.stage import LoweredStatement, materialize
from tilecheck.source.parsing import parse

_DEFAULT_PATH = "<string>"


class Reporting(Protocol):
    """Which findings of one file a lowering reports."""

    def shown(self, diagnostic: Diagnostic) -> Diagnostic | None:
        """The diagnostic as reported (its configured severity), or None when it is hidden."""


class _ReportAll:
    def shown(self, diagnostic: Diagnostic) -> Diagnostic | None:
        return diagnostic


ReportingFor = Callable[[str], Reporting]  # the reporting of a decoded text


@dataclass
class LowerResult:
    source: str  # the lowered text (the input unchanged when nothing was lowered)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    changed: bool = False
    original: str | None = None  # the decoded input (None when it could not be decoded)
    blocked: bool = False  # an error stopped the lowering: nothing was lowered


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
    try:
        findings = check_functions(module, aliases, constants, sites, backends.capabilities(backend))
    finally:
        constants.close()
    return to_diagnostics(module, path or _DEFAULT_PATH, findings)


def check_pypto_source(
    source: str | bytes, path: str | None = None, *, backend: str | None = None
) -> list[Diagnostic]:
    """The TL4xx diagnostics of a source text (or TL001-TL004 when it cannot be read)."""
    module, _, failure = parse(path or _DEFAULT_PATH, source)
    if failure is not None or module is None:
        return [failure] if failure is not None else []
    return check_module(module, path, backend=backend)


def lower_source(
    source: str | bytes,
    path: str | None = None,
    *,
    backend: object | None = None,
    reporting: ReportingFor | None = None,
    clone_templates: bool = True,
) -> LowerResult:
    """Lower every `pl.pipeline(..., stage=F)` loop of the DSL functions in `source`.

    `source` is decoded as Python decodes a file (a BOM or PEP 263 coding cookie, else UTF-8).
    `backend` is a backend name or profile from `tilecheck.backends` (KeyError for an unknown
    name); `reporting(text)` decides which findings are reported and at what severity (all, as
    their rules say, without it). Nothing is lowered while an error stands. A semantic error PyPTO raises for every program stops the lowering even when
    it is hidden; then a TL491 warning at its place says so. Never raises for bad input.
    `clone_templates=False` rewrites every clone in full instead of filling one text template
    per body (slower, the same text: the tests compare the two).
    """
    shown = path or _DEFAULT_PATH
    module, text, failure = parse(shown, source)
    if failure is not None or module is None or text is None:
        kept = text if text is not None else (source if isinstance(source, str) else "")
        return LowerResult(kept, [failure] if failure is not None else [], False, text, blocked=True)
    reported = reporting(text) if reporting is not None else _ReportAll()
    try:
        result = _lower_parsed(text, module, path, backends.capabilities(backend), reported, clone_templates)
    except RecursionError:
        # Every step guards its own recursion; this keeps a traceback out of the CLI regardless.
        reason = "the file is nested too deeply to lower (Python's recursion limit)"
        note = pypto_rule(PyptoProblem.PIPELINE_NOT_LOWERED).diagnostic(
            shown, Span.point(1, 0), {"reason": reason}
        )
        result = LowerResult(text, [note], False)
    result.original = text
    return result


def _lower_parsed(
    text: str,
    module: cst.Module,
    path: str | None,
    capabilities: backends.Capabilities,
    reported: Reporting,
    clone_templates: bool,
) -> LowerResult:
    aliases = find_aliases(module)
    if not aliases.prefixes and not aliases.members:
        return LowerResult(text)
    sites = dsl_functions(module, aliases)
    if not sites:
        return LowerResult(text)
    constants = ModuleConstants(module, path)
    try:
        context = ModuleContext(
            aliases,
            constants,
            Tokens(text),
            clone_templates=clone_templates,
            codegen=Codegen(module),
            lowered_chars=len(text),
        )
        return _lower_module(text, module, path or _DEFAULT_PATH, sites, context, capabilities, reported)
    finally:
        constants.close()


def _hidden_rejection(diagnostic: Diagnostic) -> Diagnostic:
    """TL491 in place of a hidden semantic error: PyPTO rejects the program all the same."""
    reason = (
        f"{diagnostic.code} ({diagnostic.rule}) is ignored or suppressed here, but PyPTO rejects "
        f"the program: {diagnostic.message}"
    )
    return pypto_rule(PyptoProblem.PIPELINE_NOT_LOWERED).diagnostic(
        diagnostic.path, diagnostic.span, {"reason": reason}
    )


def _lower_module(
    source: str,
    module: cst.Module,
    shown: str,
    sites: list[FunctionSite],
    context: ModuleContext,
    capabilities: backends.Capabilities,
    reported: Reporting,
) -> LowerResult:
    findings = check_functions(module, context.aliases, context.constants, sites, capabilities, context.flows)
    diagnostics = []
    blocked = False
    for diagnostic in to_diagnostics(module, shown, findings, source):
        rejected = diagnostic.grade is Grade.SEMANTIC and diagnostic.severity is Severity.ERROR
        shown_as = reported.shown(diagnostic)
        if shown_as is not None:
            diagnostics.append(shown_as)
            blocked = blocked or rejected or shown_as.severity is Severity.ERROR
        elif rejected:
            diagnostics.append(_hidden_rejection(diagnostic))
            blocked = True
    if blocked:
        return LowerResult(source, diagnostics, False, blocked=True)
    replacements: dict[tuple[int, ...], cst.FunctionDef] = {}
    regions: list[tuple[cst.For, list[LoweredStatement]]] = []
    tops: list[cst.CSTNode] = []
    for site in sites:
        top = module.body[site.path[0]]
        lowering = FunctionLowering(context, site.node, top, depth=len(site.path) - 1)
        lowered = lowering.run()
        if lowered is not None:
            replacements[site.path] = lowered
            regions.extend(lowering.regions)
            tops.extend(top for _ in lowering.regions)
    text = source
    if replacements:
        try:
            text = _lowered_text(source, module, replacements, regions, context)
        except RecursionError:
            text = source
            for holder, (loop, _) in zip(tops, regions, strict=True):
                context.notes.append(
                    Finding(
                        PyptoProblem.PIPELINE_NOT_LOWERED, loop.iter, holder, {"reason": TOO_DEEP}, loop=loop
                    )
                )
    notes = [
        note for d in to_diagnostics(module, shown, context.notes, source) if (note := reported.shown(d))
    ]
    diagnostics = sorted(set(diagnostics) | set(notes), key=Diagnostic.sort_key)
    return LowerResult(text, diagnostics, text != source)


def _lowered_text(
    source: str,
    module: cst.Module,
    replacements: dict[tuple[int, ...], cst.FunctionDef],
    regions: list[tuple[cst.For, list[LoweredStatement]]],
    context: ModuleContext,
) -> str:
    tokens = context.tokens
    names: dict[str, str] = {}
    for function in replacements.values():
        names.update(printed_names(function, tokens))
    text = _spliced(source, module, regions, tokens, names, context.codegen or Codegen(module))
    if text is None:
        # libcst generates valid syntax from valid nodes; `tilecheck lower --write` compiles before writing.
        rebuilt = {path: materialize(function) for path, function in replacements.items()}
        text = tokens.replace_all(replace_functions(module, rebuilt).code, names)
    return text


def _spliced(
    source: str,
    module: cst.Module,
    regions: list[tuple[cst.For, list[LoweredStatement]]],
    tokens: Tokens,
    names: dict[str, str],
    codegen: Codegen,
) -> str | None:
    """The source with each lowered loop's text replaced; None when the loops cannot be placed."""
    if not regions:
        return None
    spans = splice(source, module, regions, codegen)
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
