"""Hover: a rule code inside a suppression comment shows the rule's summary; a diagnostic's
range shows its message, what the rule finds (one paragraph), the fix and where the full page is
(its URL, or `tilecheck rule CODE`), never the whole page; a `T.Kernel` call shows the kernel's
shared memory per block and the configured backend's limit; a loop header
shows the loop's classification from the kernel model (described as `tilecheck explain` does).
Suppression and diagnostic texts come with the check from the worker (`hover_data`) and are
answered at once, whatever the worker is doing; a kernel's table and a loop's description are
worked out by the worker when asked, from the model it kept (sizing every kernel on every edit
would cost more than the check), so the server never parses or models anything itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from tilecheck.core.docs import brief_of
from tilecheck.core.types import Span
from tilecheck.server.convert import documentation_url, repository_url
from tilecheck.server.notebook_cells import cell_positions
from tilecheck.server.positions import PositionMap, contains
from tilecheck.server.session import Checked, Session


@dataclass(frozen=True)
class View:
    """The document a hover is asked in: a file's, or one cell of a checked notebook (its lines
    start at `shift` + 1 in the joined text, and messages name lines in their cells)."""

    positions: PositionMap
    shift: int = 0
    words: Callable[[str], str] = str


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        notebook = session.server.workspace.get_notebook_document(cell_uri=uri)
        if notebook is not None and notebook.uri in session.documents:  # a cell: its notebook's check
            checked = await session.checked(notebook.uri)
            view = None if checked is None else cell_view(checked, uri)
        else:
            checked = await session.checked(uri)
            view = None if checked is None else View(checked.positions)
        if checked is None or checked.analysis is None or view is None:
            return None
        line, column = view.positions.point(params.position)
        line += view.shift
        found = hover_at(checked, line, column, view)
        if found is not None and found[0] == "suppression":
            return found[1]
        described: tuple[tuple[Span, str], ...] = ()
        hovers = checked.hovers
        if any(contains(span, line, column) for span in hovers.kernel_launches + hovers.loop_headers):
            described = await session.off_loop(session.model_hovers, checked, line, column)  # in the worker
        if not described:
            return found[1] if found is not None else None
        text = "\n---\n\n".join(view.words(markdown) for _, markdown in described)
        if found is None:
            return _hover(text, view, described[0][0])
        hover = found[1]
        assert isinstance(hover.contents, types.MarkupContent)
        hover.contents.value += "\n---\n\n" + text
        return hover


def cell_view(checked: Checked, uri: str) -> View | None:
    """The view of the cell document `uri` of the notebook `checked` (None: not one of its code cells)."""
    if checked.notebook is None:
        return None
    notebook, uris = checked.notebook
    for cell in notebook.cells:
        if uris.get(cell.number) == uri:
            return View(
                cell_positions(cell, checked.positions.encoding), cell.first_line - 1, notebook.in_cells
            )
    return None


def hover_at(
    checked: Checked, line: int, column: int, view: View | None = None
) -> tuple[str, types.Hover] | None:
    """The hover of a suppression code ("suppression") or of the diagnostics under the
    position ("diagnostics"), from what the worker computed with the check: no work here."""
    view = View(checked.positions) if view is None else view
    hovers = checked.hovers
    for span, text in hovers.suppressions:
        if contains(span, line, column):
            return "suppression", _hover(text, view, span)
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
                f"**{rule.code}** `{rule.name}` ({rule.grade}): {view.words(diagnostic.message)}\n\n"
                + brief_of(rule.code, rule.what, view.words(diagnostic.help or rule.help), href)
            )
            spans.append(diagnostic.span)
    if not parts:
        return None
    return "diagnostics", _hover("\n---\n\n".join(parts), view, spans[0])


def _hover(text: str, view: View, span: Span) -> types.Hover:
    content = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
    # a span is of the joined text: counted from the cell's first line (clamped to the cell)
    shown = Span(
        max(1, span.line - view.shift), span.column, max(1, span.end_line - view.shift), span.end_column
    )
    return types.Hover(contents=content, range=view.positions.range(shown))
