"""Hover: a rule code inside a suppression comment shows the rule's summary; a diagnostic's
range shows its rule's documentation (the Markdown of `tilecheck rule CODE`); a loop header
shows the loop's classification from the kernel model (described as `tilecheck explain` does)."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from tilecheck.analysis.model import Item, Loop, walk
from tilecheck.context import Context
from tilecheck.explain import Builder
from tilecheck.registry import by_code
from tilecheck.rule import Rule
from tilecheck.rule_docs import markdown
from tilecheck.server.positions import contains
from tilecheck.server.session import Checked, Session
from tilecheck.suppressions import parse_directives, scan_comments
from tilecheck.types import Span


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> types.Hover | None:
        checked = await session.checked(params.text_document.uri)
        if checked is None or checked.analysis is None:
            return None
        line, column = checked.positions.point(params.position)
        return await session.off_loop(hover_at, checked, line, column)  # it may build the model


def hover_at(checked: Checked, line: int, column: int) -> types.Hover | None:
    found = suppression_code(checked, line, column)
    if found is not None:
        span, rule = found
        text = f"**{rule.CODE}** `{rule.NAME}` ({rule.GRADE.value}): {rule.summary()}"
        return _hover(text, checked, span)
    parts: list[str] = []
    spans: list[Span] = []
    assert checked.analysis is not None
    rules = checked.workspace.file_settings(checked.path).known if checked.workspace else ()
    codes = []
    for diagnostic in checked.analysis.diagnostics:
        if contains(diagnostic.span, line, column) and diagnostic.code not in codes:
            codes.append(diagnostic.code)
            spans.append(diagnostic.span)
    for code in codes:
        documented = by_code(code, rules or None)
        if documented is not None:
            parts.append(markdown(documented))
    loops = loop_descriptions(checked, line, column)
    parts += loops[0]
    spans += loops[1]
    if not parts:
        return None
    return _hover("\n---\n\n".join(parts), checked, spans[0])


def _hover(text: str, checked: Checked, span: Span) -> types.Hover:
    content = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    return types.Hover(contents=content, range=checked.positions.range(span))


def suppression_code(checked: Checked, line: int, column: int) -> tuple[Span, type[Rule]] | None:
    """(span, rule) of the rule code under the cursor in a suppression comment."""
    if "tilecheck" not in checked.text and "noqa" not in checked.text.lower():
        return None
    comments = [comment for comment in scan_comments(checked.text) if comment.line == line]
    rules = checked.workspace.file_settings(checked.path).known if checked.workspace else ()
    for directive in parse_directives(comments, rules):
        if directive.codes_span is None:
            continue
        start, end = directive.codes_span
        content = checked.positions.lines[line - 1]
        at = start
        for entry in directive.entries:
            at = content.find(entry.text, at, end)
            if at < 0:
                break
            span = Span(line, at, line, at + len(entry.text))
            if entry.rule is not None and contains(span, line, column):
                return span, entry.rule
            at += len(entry.text)
    return None


def loop_descriptions(checked: Checked, line: int, column: int) -> tuple[list[str], list[Span]]:
    """Markdown for each loop whose header (`for ... in T.Parallel(...)`) holds the position."""
    if checked.analysis is None or "tilelang" not in checked.text:
        return [], []
    ctx = checked.context()
    if ctx is None:
        return [], []
    try:
        kernels = ctx.model.kernels
    except Exception:  # a model crash is already a TL005 diagnostic
        return [], []
    builder = Builder(ctx)
    texts: list[str] = []
    spans: list[Span] = []
    for kernel in kernels:
        for item, ancestors in walk(kernel.body):
            if not isinstance(item, Loop) or item.dim != 0 or item.statement is None:
                continue
            statement = ctx.span(item.statement, item.site.top)
            header_end = ctx.span(item.statement.iter, item.site.top)
            header = Span(statement.line, statement.column, header_end.end_line, header_end.end_column)
            if not contains(header, line, column):
                continue
            text = _describe(builder, item, ancestors)
            if text not in texts:
                texts.append(text)
                spans.append(header)
    return texts, spans


def _describe(builder: Builder, loop: Loop, ancestors: tuple[Item, ...]) -> str:
    node = builder.loop(loop)
    lines = [f"**{node.title}**", ""] + [f"- {detail}" for detail in node.details]
    lines.append(f"- {_verdict(builder.ctx, loop, ancestors)}")
    return "\n".join(lines) + "\n"


def _verdict(ctx: Context, loop: Loop, ancestors: tuple[Item, ...]) -> str:
    from tilecheck.backends import profile_of
    from tilecheck.backends.verdict import pipeline_verdict

    profile = profile_of(ctx.backend)
    if profile is None:
        return "backend: none selected (target-agnostic checks only)"
    return f"backend `{profile.name}`: {pipeline_verdict(ctx, profile, loop, ancestors)}"
