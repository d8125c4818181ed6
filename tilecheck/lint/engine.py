"""Checking one file: read, parse once, build the kernel model once, run every rule.

Nothing here raises for bad input: unreadable files, undecodable bytes, syntax errors,
pathological nesting and crashing rules all become diagnostics of their own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilecheck.core import meta
from tilecheck.core.meta import SUPPRESSION_PROBLEMS, Problem
from tilecheck.core.registry import builtin_rules, is_builtin
from tilecheck.core.rule import Rule
from tilecheck.core.types import Diagnostic
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.lint.conditions import base_message
from tilecheck.source.reading import read_source

if TYPE_CHECKING:  # libcst, the model and the rules are imported when a file is parsed, not before:
    # importing the engine (the runner, the workspace, `rules`, `backends`) stays cheap.

    from tilecheck.backends.profile import Profile
    from tilecheck.config.resolver import FileSettings
    from tilecheck.lint.context import Context
    from tilecheck.source.chunks import ChunkCache
    from tilecheck.tilelang.reuse import KernelMemo
    from tilecheck.tilelang.versions import VersionRange


@dataclass
class Timings:
    """Seconds spent in each phase of `check_source`, summed over the files a caller checks with
    the same object (`make bench`'s breakdown of a cold run). The model is built before the
    rules run (as the first rule would build it), so its time is its own."""

    parse: float = 0.0
    model: float = 0.0
    rules: float = 0.0
    suppressions: float = 0.0
    files: int = 0


def check_source(
    data: bytes | str,
    path: str = "<string>",
    rules: Iterable[type[Rule]] | None = None,
    backend: Profile | str | None = None,
    *,
    known: Iterable[type[Rule]] | None = None,
    chunks: ChunkCache | None = None,
    kernels: KernelMemo | None = None,
    timings: Timings | None = None,
    tilelang: VersionRange | None = None,
) -> FileAnalysis:
    """Check one file's contents with `rules` (all built-in rules by default).

    Suppression comments are honoured; the suppression rules among `rules` (TL901-TL904)
    report unused, unknown, unmatched and malformed ones. `known` are the rules a
    suppression may name (the built-in ones and `rules` by default). `chunks` (a
    `tilecheck.source.chunks.ChunkCache` the caller keeps, e.g. per editor buffer) re-parses only
    the top-level statements that changed since the texts it has seen, and `kernels` (a
    `tilecheck.tilelang.reuse.KernelMemo`, likewise) re-models only the kernels they touched. `timings` adds the
    time of each phase to the caller's totals. `tilelang` are the TileLang releases the
    verdicts that depend on the release hold for (default: the supported releases).
    """
    clock = time.perf_counter
    started = clock()
    result = FileAnalysis(path)
    from tilecheck.source.parsing import parse_with_tree  # ast and the guards: only to check a file

    module, text, failure, tree = parse_with_tree(path, data, chunks)
    if timings is not None:
        timings.files += 1
        timings.parse += clock() - started
    result.text = text
    if failure is not None:
        result.diagnostics.append(failure)
        return result
    assert module is not None and text is not None
    from tilecheck.backends.profile import profile_of
    from tilecheck.lint.context import Context
    from tilecheck.lint.folding import fold
    from tilecheck.lint.suppressions import may_have_suppressions

    chosen = list(rules) if rules is not None else list(builtin_rules())
    ctx = Context(
        path, text, module, profile_of(backend), python_tree=tree, kernels=kernels, tilelang=tilelang
    )  # a profile's name works too
    result.module, result.context = module, ctx
    if timings is not None:
        started = clock()
        with contextlib.suppress(Exception):  # the rules report it (the model keeps its error)
            ctx.model  # noqa: B018 - built now only to be timed on its own
        timings.model += clock() - started
    started = clock()
    ran: set[str] = set()
    for rule in chosen:
        if rule.check is Rule.check:
            continue  # reported by the engine itself (unreadable files, suppressions, ...)
        if _run_rule(rule, ctx, result):
            ran.add(rule.CODE)
        if result.incomplete:
            ran.clear()
            break
    result.diagnostics.extend(_unique(ctx.diagnostics))
    if timings is not None:
        timings.rules += clock() - started
        started = clock()
    if may_have_suppressions(text):
        _suppress(result, text, chosen, ran, known)
    result.diagnostics = fold(result.diagnostics)  # after suppressions: they name the raw findings
    result.diagnostics.sort(key=Diagnostic.sort_key)
    if timings is not None:
        timings.suppressions += clock() - started
    return result


def _suppress(
    result: FileAnalysis,
    text: str,
    rules: list[type[Rule]],
    ran: set[str],
    known: Iterable[type[Rule]] | None,
) -> None:
    from tilecheck.lint.suppressions import Suppressions

    universe = list(known) if known is not None else [*builtin_rules(), *rules]
    suppressions = Suppressions.from_source(text, universe)
    if not suppressions.directives:
        return
    kept = suppressions.filter(result.diagnostics)
    enabled = {
        rule.REPORTS
        for rule in rules
        if isinstance(rule.REPORTS, Problem) and rule.REPORTS in SUPPRESSION_PROBLEMS
    }
    result.diagnostics = kept + suppressions.report(result.path, ran, enabled)


def _run_rule(rule: type[Rule], ctx: Context, result: FileAnalysis) -> bool:
    """Run one rule; False when it could not complete."""
    from tilecheck.lint.context import ModelError, ModelTooDeep
    from tilecheck.tilelang.scope import ModelTooLarge

    ctx.rule = rule
    try:
        rule().check(ctx)
        return True
    except ModelTooLarge as error:
        ctx.diagnostics.clear()
        message = f"Kernel expansion is too large to analyze ({error}); no rule was run on it"
        result.diagnostics.append(meta.at_start(Problem.TOO_COMPLEX, ctx.path, message))
    except ModelError as error:
        if not result.internal_error:  # report the model's crash once, not once per rule
            result.internal_error = True
            message = f"Building the kernel model crashed: {error}"
            result.diagnostics.append(meta.at_start(Problem.INTERNAL_ERROR, ctx.path, message))
    except (MemoryError, RecursionError) as error:
        if not isinstance(error, ModelTooDeep) and not is_builtin(rule):
            _rule_crashed(rule, ctx, result, error)  # a plugin's own bug, not the file's size
            return False
        ctx.diagnostics.clear()
        if isinstance(error, MemoryError):
            message = "File is too complex to analyze within the available memory; no rule was run on it"
        else:
            message = "File is too deeply nested to analyze; no rule was run on it"
        result.diagnostics.append(meta.at_start(Problem.TOO_COMPLEX, ctx.path, message))
    except Exception as error:  # a crashing rule must not stop the others
        _rule_crashed(rule, ctx, result, error)
    finally:
        ctx.rule = None
    return False


def _rule_crashed(rule: type[Rule], ctx: Context, result: FileAnalysis, error: BaseException) -> None:
    result.internal_error = True
    message = f"Rule {rule.CODE} ({rule.NAME}) crashed: {type(error).__name__}: {error}"
    result.diagnostics.append(meta.at_start(Problem.INTERNAL_ERROR, ctx.path, message))


def _unique(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Python-level unrolling copies a body, and a factory may be built with a condition decided
    and undecided: the same finding at the same place counts once, without a branch condition
    when one copy holds unconditionally."""
    chosen: dict[tuple[object, ...], Diagnostic] = {}
    for diagnostic in diagnostics:
        message, conditional = base_message(diagnostic.message)
        key = (diagnostic.code, diagnostic.span, message)
        known = chosen.get(key)
        if known is None or (base_message(known.message)[1] and not conditional):
            chosen[key] = diagnostic
    return list(chosen.values())


def check_file(
    path: str, rules: Iterable[type[Rule]] | None = None, backend: Profile | str | None = None
) -> FileAnalysis:
    data, failure = read_source(path)
    if failure is not None:
        return FileAnalysis(path, [failure])
    assert data is not None
    return check_source(data, path, rules, backend)


def lint_source(
    data: bytes | str,
    path: str,
    settings: FileSettings,
    *,
    chunks: ChunkCache | None = None,
    kernels: KernelMemo | None = None,
    timings: Timings | None = None,
) -> FileAnalysis:
    """check_source under a file's resolved configuration (rules, backend, severities)."""
    result = check_source(
        data,
        path,
        settings.rule_classes(),
        settings.backend,
        known=settings.known_classes(),
        chunks=chunks,
        kernels=kernels,
        timings=timings,
        tilelang=settings.tilelang,
    )
    if settings.severities:
        result.diagnostics = [
            dataclasses.replace(d, severity=settings.severities[d.code])
            if d.code in settings.severities
            else d
            for d in result.diagnostics
        ]
    if settings.fix_policy:
        result.diagnostics = [_with_fix_policy(d, settings.fix_policy) for d in result.diagnostics]
    return result


def _with_fix_policy(diagnostic: Diagnostic, policy: dict[str, bool | None]) -> Diagnostic:
    """`unfixable` drops a rule's fix; `extend-safe-fixes` / `extend-unsafe-fixes` set its safety."""
    if diagnostic.fix is None or diagnostic.code not in policy:
        return diagnostic
    safe = policy[diagnostic.code]
    if safe is None:
        return dataclasses.replace(diagnostic, fix=None)
    return dataclasses.replace(diagnostic, fix=dataclasses.replace(diagnostic.fix, safe=safe))


def lint_file(path: str, settings: FileSettings) -> FileAnalysis:
    data, failure = read_source(path)
    if failure is not None:
        return FileAnalysis(path, [failure])
    assert data is not None
    return lint_source(data, path, settings)
