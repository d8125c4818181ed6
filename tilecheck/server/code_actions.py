"""Code actions: each diagnostic's fix (unsafe ones labelled and never preferred), a suppression
comment written where `--add-ignore` writes it, the rule's documentation, and
`source.fixAll.tilecheck` (every safe fix, as `--fix` applies them).

A client that can resolve code actions (`codeActionLiteralSupport` and `resolveSupport` for
`edit`) gets them without edits and asks `codeAction/resolve` for the one the user picks: a
fix-all re-checks the document once per round and a suppression re-reads its comments, work
wasted on every cursor move otherwise. Other clients get the edits at once. A fix or a
suppression is made from the checked text on a thread of its own (never behind another
document's check); fix-all runs in the worker, through the analysis thread.

In a notebook's cell document, each diagnostic's fix is an edit of that cell, sent at once, and
its documentation is offered; suppressions and fix-all, which rewrite the joined text, are not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from tilecheck.core.types import Diagnostic, Grade
from tilecheck.server.notebook_cells import cell_edits, cell_positions, in_cells
from tilecheck.server.positions import minimal_edit, overlaps
from tilecheck.server.session import Checked, Session

if TYPE_CHECKING:
    from tilecheck.lint.analysis import FileAnalysis

FIX_ALL = "source.fixAll.tilecheck"
SHOW_DOCUMENTATION = "tilecheck.showRuleDocumentation"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL]
FIX, SUPPRESS = "fix", "suppress"  # the edit a lazy action stands for (and FIX_ALL)


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=True),
    )
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        notebook = session.server.workspace.get_notebook_document(cell_uri=params.text_document.uri)
        if notebook is not None and notebook.uri in session.documents:  # a cell: its notebook's check
            found = await session.checked(notebook.uri)
            if found is None or found.analysis is None or found.notebook is None:
                return None
            if not _wanted(types.CodeActionKind.QuickFix, params.context.only):
                return []
            return cell_actions(found, params.text_document.uri, params.range)
        checked = await session.checked(params.text_document.uri)
        if checked is None or checked.analysis is None:
            return None
        only = params.context.only
        pending: list[tuple[types.CodeAction, dict[str, Any]]] = []
        actions: list[types.CodeAction] = []
        if _wanted(types.CodeActionKind.QuickFix, only):
            for index, (diagnostic, lsp) in _in_range(checked, params.range):
                for action, edit in quick_fixes(checked, index, diagnostic, lsp):
                    actions.append(action)
                    if edit is not None:
                        pending.append((action, edit))
        safely_fixable = any(d.fix is not None and d.fix.safe for d in checked.analysis.diagnostics)
        if session.settings.fix_all and safely_fixable and _wanted(FIX_ALL, only):
            action = types.CodeAction(title="tilecheck: fix all safe fixes", kind=FIX_ALL)
            actions.append(action)
            pending.append((action, {"action": FIX_ALL}))
        lazy = resolves_edits(session.capabilities)
        for action, edit in pending:
            if lazy:
                action.data = {**edit, "uri": checked.uri, "resultId": checked.result_id}
            else:
                action.edit = await _computed(session, checked, edit, asked=False)
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(action: types.CodeAction) -> types.CodeAction:
        data = action.data
        if not isinstance(data, dict) or not isinstance(data.get("uri"), str):
            return action  # not one of ours to resolve (or already complete)
        checked = await session.checked(data["uri"])
        if checked is None or checked.analysis is None:
            raise JsonRpcInvalidParams(f"{data['uri']} is not an open document that could be checked")
        if data.get("action") != FIX_ALL and data.get("resultId") != checked.result_id:
            raise JsonRpcContentModified("the document changed since this code action was offered")
        action.edit = await _computed(session, checked, data)
        return action


async def _computed(
    session: Session, checked: Checked, edit: dict[str, Any], *, asked: bool = True
) -> types.WorkspaceEdit:
    """A fix or a suppression is an edit of text the server holds: made on a thread of its own
    (not behind another document's check, not on the event loop); fix-all re-checks the text
    between rounds, in the worker, after whatever it is doing."""
    if edit.get("action") == FIX_ALL:
        return await session.off_loop(_workspace_edit, session, checked, edit, asked)
    return await asyncio.to_thread(_workspace_edit, session, checked, edit)


def resolves_edits(capabilities: types.ClientCapabilities) -> bool:
    """Whether the client takes code-action literals and resolves their `edit` later."""
    text_document = capabilities.text_document
    code_action = text_document.code_action if text_document is not None else None
    if code_action is None or code_action.code_action_literal_support is None:
        return False
    resolve = code_action.resolve_support
    return resolve is not None and "edit" in resolve.properties


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    """LSP kinds are hierarchical: asking for `source` includes `source.fixAll.tilecheck`."""
    return only is None or any(kind == want or kind.startswith(f"{want}.") for want in only)


def _in_range(checked: Checked, rng: types.Range) -> list[tuple[int, tuple[Diagnostic, types.Diagnostic]]]:
    assert checked.analysis is not None
    if len(checked.lsp) != len(checked.analysis.diagnostics):
        return []  # the conversion failed (and was logged)
    span = checked.positions.span(rng)
    pairs = enumerate(zip(checked.analysis.diagnostics, checked.lsp, strict=True))
    return [(index, pair) for index, pair in pairs if overlaps(pair[0].span, span)]


def cell_actions(checked: Checked, uri: str, rng: types.Range) -> list[types.CodeAction]:
    """The fixes (as edits of the cell) and documentation of the diagnostics on the cell document
    `uri` of the notebook `checked` whose range meets `rng`."""
    assert checked.notebook is not None
    notebook, uris = checked.notebook
    cells = {cell.number: cell for cell in notebook.cells}
    actions: list[types.CodeAction] = []
    for diagnostic, number, lsp in in_cells(checked, notebook, uris):
        if uris.get(number) != uri or not _meets(lsp.range, rng):
            continue
        fix = diagnostic.fix
        edits = (
            cell_edits(fix, cells[number], cell_positions(cells[number], checked.positions.encoding))
            if fix
            else None
        )
        if fix is not None and edits is not None:
            actions.append(
                types.CodeAction(
                    title=f"{fix.title} ({diagnostic.code})" + ("" if fix.safe else " [unsafe fix]"),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp],
                    is_preferred=fix.safe,
                    edit=types.WorkspaceEdit(changes={uri: edits}),
                )
            )
        actions.append(_documentation(diagnostic, lsp))
    return actions


def _meets(one: types.Range, other: types.Range) -> bool:
    start, end = (one.start.line, one.start.character), (one.end.line, one.end.character)
    return start <= (other.end.line, other.end.character) and (other.start.line, other.start.character) <= end


def _documentation(diagnostic: Diagnostic, lsp: types.Diagnostic) -> types.CodeAction:
    return types.CodeAction(
        title=f"Show documentation for {diagnostic.code} ({diagnostic.rule})",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[lsp],
        command=types.Command(
            title=f"Show documentation for {diagnostic.code}",
            command=SHOW_DOCUMENTATION,
            arguments=[diagnostic.code],
        ),
    )


def quick_fixes(
    checked: Checked, index: int, diagnostic: Diagnostic, lsp: types.Diagnostic
) -> list[tuple[types.CodeAction, dict[str, Any] | None]]:
    """The actions for one diagnostic, each with the description of its edit (None: no edit)."""
    actions: list[tuple[types.CodeAction, dict[str, Any] | None]] = []
    fix = diagnostic.fix
    if fix is not None:
        action = types.CodeAction(
            title=f"{fix.title} ({diagnostic.code})" + ("" if fix.safe else " [unsafe fix]"),
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[lsp],
            is_preferred=fix.safe,
        )
        actions.append((action, {"action": FIX, "diagnostic": index}))
    if diagnostic.grade is not Grade.META and checked.workspace is not None:
        action = types.CodeAction(
            title=f"Suppress {diagnostic.code} on this line",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[lsp],
        )
        actions.append((action, {"action": SUPPRESS, "diagnostic": index}))
    actions.append((_documentation(diagnostic, lsp), None))
    return actions


def _workspace_edit(
    session: Session, checked: Checked, edit: dict[str, Any], asked: bool = True
) -> types.WorkspaceEdit:
    """The edit `edit` describes (`{"action": ..., "diagnostic": index}`), against `checked`'s
    text; `asked`: the user picked it (else it comes with the list, and a failure is only logged)."""
    kind = edit.get("action")
    if kind == FIX_ALL:
        return _edit(checked, fix_all_edits(session, checked, asked))
    diagnostics = checked.analysis.diagnostics if checked.analysis is not None else []
    index = edit.get("diagnostic")
    if not isinstance(index, int) or not 0 <= index < len(diagnostics):
        raise JsonRpcInvalidParams(f"no diagnostic {index!r} in this document")
    diagnostic = diagnostics[index]
    if kind == FIX and diagnostic.fix is not None:
        return _edit(
            checked,
            [
                types.TextEdit(range=checked.positions.range(fix.span), new_text=fix.replacement)
                for fix in diagnostic.fix.edits
            ],
        )
    if kind == SUPPRESS and checked.workspace is not None:
        suppressed, _ = checked.workspace.add_ignores(
            checked.text, checked.path, first=_only(checked, diagnostic)
        )
        change = minimal_edit(checked.text, suppressed, checked.positions)
        return _edit(checked, [change] if change is not None else [])
    raise JsonRpcInvalidParams(f"no {kind!r} edit for diagnostic {index}")


def _only(checked: Checked, diagnostic: Diagnostic) -> FileAnalysis:
    """The analysis reduced to one diagnostic: what `add_ignores` suppresses."""
    from tilecheck.lint.analysis import FileAnalysis

    return FileAnalysis(checked.path, [diagnostic], text=checked.text)


def fix_all_edits(session: Session, checked: Checked, asked: bool = True) -> list[types.TextEdit]:
    """Every safe fix, re-checking between rounds as `--fix` does (in the worker process); no
    edit when nothing applies."""
    if checked.workspace is None or checked.analysis is None:
        return []
    fixed = session.fixed_text(checked, asked)
    change = minimal_edit(checked.text, fixed, checked.positions)
    return [change] if change is not None else []


def _edit(checked: Checked, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(changes={checked.uri: edits})
