"""Hover: a rule code inside a suppression comment shows the rule's summary; a diagnostic's
range shows its message, what the rule finds (one paragraph), the fix and where the full page is
(its URL, or `tilecheck rule CODE`), never the whole page; a `T.Kernel` call shows the kernel's
shared memory per block and the configured backend's limit; a loop header
shows the loop's classification from the kernel model (described as `tilecheck explain` does).
The texts come with the check from the worker (`hover_data`): a hover costs no parsing or
modelling in the server, and is answered at once, whatever the worker is doing."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from tilecheck.core.docs import brief_of
from tilecheck.core.types import Span
from tilecheck.server.convert import documentation_url, repository_url
from tilecheck.server.positions import contains
from tilecheck.server.session import Checked, Session


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> types.Hover | None:
        checked = await session.checked(params.text_document.uri)
        if checked is None or checked.analysis is None:
            return None
        line, column = checked.positions.point(params.position)
        found = hover_at(checked, line, column)
        if found is not None and found[0] == "suppression":
            return found[1]
        loops: tuple[tuple[Span, str], ...] = ()
        if any(contains(header, line, column) for header in checked.hovers.loop_headers):
            loops = await session.off_loop(session.loop_hovers, checked, line, column)  # in the worker
        if not loops:
            return found[1] if found is not None else None
        text = "\n---\n\n".join(described for _, described in loops)
        if found is None:
            return _hover(text, checked, loops[0][0])
        hover = found[1]
        assert isinstance(hover.contents, types.MarkupContent)
        hover.contents.value += "\n---\n\n" + text
        return hover


def hover_at(checked: Checked, line: int, column: int) -> tuple[str, types.Hover] | None:
    """The hover of a suppression code ("suppression") or of the diagnostics under the
    position ("diagnostics"), from what the worker computed with the check: no work here."""
    hovers = checked.hovers
    for span, text in hovers.suppressions:
        if contains(span, line, column):
            return "suppression", _hover(text, checked, span)
    parts: list[str] = []
    spans: list[Span] = []
    assert checked.analysis is not None
    documentation = {rule.code: rule for rule in hovers.documentation}
    repository = repository_url()
    for diagnostic in checked.analysis.diagnostics:
        rule = documentation.get(diagnostic.code)
        if contains(diagnostic.span, line, column) and rule is not None:
            href = documentation_url(rule.code, repository)
            parts.append(
                f"**{rule.code}** `{rule.name}` ({rule.grade}): {diagnostic.message}\n\n"
                + brief_of(rule.code, rule.what, diagnostic.help or rule.help, href)
            )
            spans.append(diagnostic.span)
    for span, text in hovers.kernel_launches:  # the kernel's shared memory per block
        if contains(span, line, column):
            parts.append(text)
            spans.append(span)
    if not parts:
        return None
    return "diagnostics", _hover("\n---\n\n".join(parts), checked, spans[0])


def _hover(text: str, checked: Checked, span: Span) -> types.Hover:
    content = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    return types.Hover(contents=content, range=checked.positions.range(span))
