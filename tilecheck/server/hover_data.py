"""What hovers show, computed in the analysis worker with the check (where the CST, the kernel
model and the configured rules, local plugins included, live): the server answers a hover from
it on the event loop, without parsing, modelling or importing anything itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilecheck.core.types import Span

if TYPE_CHECKING:  # the worker imports them at its first check; the server never needs to
    from tilecheck.config.resolver import FileSettings
    from tilecheck.core.rule import Rule
    from tilecheck.explain.tree import Builder
    from tilecheck.lint.analysis import FileAnalysis
    from tilecheck.lint.context import Context
    from tilecheck.tilelang.model import Item, Kernel, Loop


@dataclass(frozen=True)
class RuleBrief:
    """What a diagnostic's hover says of its rule (plugin rules too: made where they are loaded)."""

    code: str
    name: str
    grade: str
    what: str  # the first paragraph of `What it does`
    help: str  # the rule's HELP, for a diagnostic that has no help of its own


@dataclass(frozen=True)
class HoverData:
    """The hover texts of one checked text, each with the span it covers."""

    suppressions: tuple[tuple[Span, str], ...] = ()  # a rule code in a suppression comment
    documentation: tuple[RuleBrief, ...] = ()  # each diagnostic's rule
    loop_headers: tuple[Span, ...] = ()  # where a hover asks the worker to describe a loop
    kernel_launches: tuple[Span, ...] = ()  # where a hover asks the worker for a kernel's shared memory


def hover_data(analysis: FileAnalysis, settings: FileSettings) -> HoverData:
    """The hovers of a checked text (in the worker, while its context is at hand)."""
    from tilecheck.core.docs import what_it_does

    text = analysis.text or ""
    known = settings.known_classes()
    rules = {rule.CODE: rule for rule in known}
    codes = dict.fromkeys(d.code for d in analysis.diagnostics)
    documentation = tuple(
        RuleBrief(
            code, rules[code].NAME, rules[code].GRADE.value, what_it_does(rules[code]), rules[code].HELP
        )
        for code in codes
        if code in rules
    )
    headers, launches = _heads(analysis.context) if analysis.context is not None else ((), ())
    return HoverData(_suppressions(text, known), documentation, headers, launches)


def launches_at(ctx: Context, line: int, column: int) -> list[tuple[Span, str]]:
    """Each `T.Kernel(...)` call holding the position, with the kernel's shared memory per block
    (as `explain` prints it, with the configured backend's limit); computed when asked."""
    from tilecheck.backends import profile_of
    from tilecheck.explain.shared_memory import table
    from tilecheck.server.positions import contains
    from tilecheck.tilelang.shared_memory import unfollowed_calls

    found: dict[Span, list[str]] = {}
    for span, kernel in _launches(ctx):
        if not contains(span, line, column):
            continue
        rows = table(kernel, profile_of(ctx.backend), unfollowed_calls(kernel, ctx.model))
        text = f"**`T.Kernel` of `{kernel.name}`**\n\n" + "\n".join(
            f"  - {row.strip()}" if row.startswith("  ") else f"- {row}" for row in rows
        )
        texts = found.setdefault(span, [])
        if text not in texts:
            texts.append(text)
    return [(span, "\n\n---\n\n".join(texts) + "\n") for span, texts in found.items()]


def _launches(ctx: Context) -> list[tuple[Span, Kernel]]:
    """Each kernel that allocates shared memory and launches one `T.Kernel`, with the call's span."""
    import libcst as cst  # the worker's: the server never imports libcst

    from tilecheck.tilelang.shared_memory import kernel_launch

    found = []
    for kernel in _kernels(ctx):
        if not any(buffer.scope.startswith("shared") for buffer in kernel.buffers):
            continue
        launch = kernel_launch(kernel)
        if launch is not None and ctx.module_of(launch.top) is None:
            assert isinstance(launch.node, cst.BaseExpression)
            found.append((ctx.with_item(launch.node, launch.top), kernel))
    return found


def _heads(ctx: Context) -> tuple[tuple[Span, ...], tuple[Span, ...]]:
    """Where a hover may show a loop's description (every `for` header) or a kernel's shared
    memory (every `with ....Kernel(...)` item), read from CPython's tree: a superset, cheap on
    every edit; the worker decides what is there when a hover asks (`loops_at`, `launches_at`)."""
    import ast

    from tilecheck.source.positions import block_heads

    tree = ctx.python_tree if "tilelang" in ctx.source else None
    if tree is None:
        return (), ()
    headers, items = block_heads(tree, ctx.source)
    launches = tuple(
        span
        for expression, span in items
        if isinstance(expression, ast.Call)
        and isinstance(expression.func, ast.Attribute)
        and expression.func.attr == "Kernel"
    )
    return tuple(headers), launches


def _loops(ctx: Context) -> list[tuple[Loop, tuple[Item, ...]]]:
    """Each loop statement the model built (a multi-dimensional one once), with the items it is
    nested in."""
    from tilecheck.tilelang.model import Loop, walk

    return [
        (item, ancestors)
        for kernel in _kernels(ctx)
        for item, ancestors in walk(kernel.body)
        if isinstance(item, Loop) and item.dim == 0 and item.statement is not None
    ]


def _kernels(ctx: Context) -> list[Kernel]:
    if "tilelang" not in ctx.source:
        return []
    try:
        return ctx.model.kernels
    except Exception:  # a model crash is already a TL005 diagnostic
        return []


def _suppressions(text: str, rules: tuple[type[Rule], ...]) -> tuple[tuple[Span, str], ...]:
    from tilecheck.lint.directives import may_have_suppressions, parse_directives, scan_comments
    from tilecheck.server.positions import split_lines

    if not may_have_suppressions(text):
        return ()
    lines = split_lines(text)
    found = []
    for directive in parse_directives(scan_comments(text), rules):
        if directive.codes_span is None:
            continue
        start, end = directive.codes_span
        line = directive.comment.line
        content = lines[line - 1] if line <= len(lines) else ""
        at = start
        for entry in directive.entries:
            at = content.find(entry.text, at, end)
            if at < 0:
                break
            if entry.rule is not None:
                rule = entry.rule
                summary = f"**{rule.CODE}** `{rule.NAME}` ({rule.GRADE.value}): {rule.summary()}"
                found.append((Span(line, at, line, at + len(entry.text)), summary))
            at += len(entry.text)
    return tuple(found)


def loops_at(ctx: Context, line: int, column: int) -> list[tuple[Span, str]]:
    """The description of each loop whose header (`for ... in T.Parallel(...)`) holds the
    position, as `explain` draws it; computed when asked (describing a loop needs positions,
    which cost a code generation of its module-level statement)."""
    from tilecheck.explain.tree import Builder
    from tilecheck.server.positions import contains

    builder = Builder(ctx)
    found: list[tuple[Span, str]] = []
    for item, ancestors in _loops(ctx):
        assert item.statement is not None
        if ctx.module_of(item.site.top) is not None:
            continue  # inlined from a project module: its header is in that file
        header = ctx.for_header(item.statement, item.site.top)
        if contains(header, line, column):
            text = describe_loop(builder, item, ancestors)
            if all(text != seen for _, seen in found):
                found.append((header, text))
    return found


def describe_loop(builder: Builder, loop: Loop, ancestors: tuple[Item, ...]) -> str:
    node = builder.loop(loop)
    lines = [f"**{node.title}**", ""] + [f"- {detail}" for detail in node.details]
    lines.append(f"- {backend_verdict(builder.ctx, loop, ancestors)}")
    return "\n".join(lines) + "\n"


def backend_verdict(ctx: Context, loop: Loop, ancestors: tuple[Item, ...]) -> str:
    """The selected backend's verdict on the loop: what TL201 and `explain` decide
    (`tilecheck.backends.verdict`, one place for all three)."""
    from tilecheck.backends import profile_of
    from tilecheck.backends.verdict import pipeline_verdict

    profile = profile_of(ctx.backend)
    if profile is None:
        return "backend: none selected (target-agnostic checks only)"
    return f"backend `{profile.name}`: {pipeline_verdict(ctx, profile, loop, ancestors)}"
