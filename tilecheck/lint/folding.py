"""One mistake, one error: findings that another finding's legal rewrite would remove.

A rule marks such a finding with `caused_by` (the root's code and span): a tile operator or a
nested `T.Parallel` inside a `T.Pipelined` loop that is itself nested in a `T.Parallel` loop
disappears with TL102's rewrite (the pipeline becomes the outer loop, the tile operators sit in
its body and `T.Parallel` surrounds only the element-wise statements). When the root is reported too, the
consequence becomes a related note of the root instead of another error; when it is not (the
root's rule is deselected or suppressed), the consequence stays a finding of its own.
"""

from __future__ import annotations

import dataclasses

from tilecheck.core.types import Diagnostic, Related


def fold(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    roots = {(d.code, d.span): d for d in diagnostics if d.caused_by is None}
    notes: dict[tuple[str, object], list[Related]] = {}
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        root = diagnostic.caused_by
        if root is not None and root in roots:
            notes.setdefault(root, []).append(
                Related(
                    diagnostic.span, f"{diagnostic.code} {diagnostic.message} (the rewrite above removes it)"
                )
            )
        else:
            kept.append(diagnostic)
    if not notes:
        return diagnostics
    for related in notes.values():
        related.sort(key=lambda r: (r.span.line, r.span.column))
    return [
        dataclasses.replace(d, related=(*d.related, *notes[(d.code, d.span)]))
        if (d.code, d.span) in notes
        else d
        for d in kept
    ]
