"""Code actions: each diagnostic's fix (unsafe ones labelled and never preferred), a suppression
comment written where `--add-ignore` writes it, the rule's documentation, and
`source.fixAll.tilecheck` (every safe fix, as `--fix` applies them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from tilecheck.server.positions import minimal_edit, overlaps
from tilecheck.server.session import Checked, Session
from tilecheck.types import Diagnostic, Grade

if TYPE_CHECKING:
    from tilecheck.engine import FileAnalysis

FIX_ALL = "source.fixAll.tilecheck"
SHOW_DOCUMENTATION = "tilecheck.showRuleDocumentation"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL]


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=False),
    )
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        checked = await session.checked(params.text_document.uri)
        if checked is None or checked.analysis is None:
            return None
        only = params.context.only
        actions: list[types.CodeAction] = []
        if _wanted(types.CodeActionKind.QuickFix, only):
            for diagnostic, lsp in _in_range(checked, params.range):
                actions += quick_fixes(checked, diagnostic, lsp)
        if session.settings.fix_all and _wanted(FIX_ALL, only):
            actions.append(fix_all(checked))
        return actions


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    """LSP kinds are hierarchical: asking for `source` includes `source.fixAll.tilecheck`."""
    return only is None or any(kind == want or kind.startswith(f"{want}.") for want in only)


def _in_range(checked: Checked, rng: types.Range) -> list[tuple[Diagnostic, types.Diagnostic]]:
    assert checked.analysis is not None
    if len(checked.lsp) != len(checked.analysis.diagnostics):
        return []  # the conversion failed (and was logged)
    span = checked.positions.span(rng)
    pairs = zip(checked.analysis.diagnostics, checked.lsp, strict=True)
    return [(diagnostic, lsp) for diagnostic, lsp in pairs if overlaps(diagnostic.span, span)]


def quick_fixes(checked: Checked, diagnostic: Diagnostic, lsp: types.Diagnostic) -> list[types.CodeAction]:
    actions = []
    fix = diagnostic.fix
    if fix is not None:
        edits = [
            types.TextEdit(range=checked.positions.range(edit.span), new_text=edit.replacement)
            for edit in fix.edits
        ]
        actions.append(
            types.CodeAction(
                title=f"{fix.title} ({diagnostic.code})" + ("" if fix.safe else " [unsafe fix]"),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp],
                is_preferred=fix.safe,
                edit=_edit(checked, edits),
            )
        )
    if diagnostic.grade is not Grade.META and checked.workspace is not None:
        suppressed, _ = checked.workspace.add_ignores(
            checked.text, checked.path, first=_only(checked, diagnostic)
        )
        change = minimal_edit(checked.text, suppressed, checked.positions)
        if change is not None:
            actions.append(
                types.CodeAction(
                    title=f"Suppress {diagnostic.code} on this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp],
                    edit=_edit(checked, [change]),
                )
            )
    actions.append(
        types.CodeAction(
            title=f"Show documentation for {diagnostic.code} ({diagnostic.rule})",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[lsp],
            command=types.Command(
                title=f"Show documentation for {diagnostic.code}",
                command=SHOW_DOCUMENTATION,
                arguments=[diagnostic.code],
            ),
        )
    )
    return actions


def _only(checked: Checked, diagnostic: Diagnostic) -> FileAnalysis:
    """The analysis reduced to one diagnostic: what `add_ignores` suppresses."""
    from tilecheck.engine import FileAnalysis

    assert checked.analysis is not None
    return FileAnalysis(checked.path, [diagnostic], text=checked.text)


def fix_all(checked: Checked) -> types.CodeAction:
    """Every safe fix, re-checking between rounds as `--fix` does; no edit when nothing applies."""
    edits: list[types.TextEdit] = []
    if checked.workspace is not None and checked.analysis is not None:
        outcome = checked.workspace.fix_text(checked.text, checked.path, first=checked.analysis)
        change = minimal_edit(checked.text, outcome.text, checked.positions)
        edits = [change] if change is not None else []
    return types.CodeAction(title="tilecheck: fix all safe fixes", kind=FIX_ALL, edit=_edit(checked, edits))


def _edit(checked: Checked, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    return types.WorkspaceEdit(changes={checked.uri: edits})
