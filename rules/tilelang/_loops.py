"""Helpers shared by the pipeline, backend and loop-shape rules (TL2xx, TL3xx); not a rule module."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from tilecheck.backends import Profile, profile_of
from tilecheck.backends.verdict import certain_request
from tilecheck.core.types import Span
from tilecheck.tilelang.model import Item, Loop, Request, Stmt, StmtKind
from tilecheck.tilelang.queries import kernel_items

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


def backend(ctx: Context) -> Profile | None:
    """The selected backend's profile, or None when no backend is selected."""
    return profile_of(ctx.backend)


def line(ctx: Context, item: Item) -> int:
    return ctx.line_of(item.site.report_node, item.site.report_top)


def header(ctx: Context, loop: Loop) -> str:
    """The loop constructor as written, e.g. `T.Pipelined(K, num_stages=3)`."""
    return ctx.text(loop.call if loop.call is not None else loop.site.node, 50)


def requested_loops(ctx: Context) -> Iterator[tuple[Loop, tuple[Item, ...]]]:
    """Certain pipeline-requested loops outside any `T.Parallel` loop (inside one, TL102 applies)."""
    for item, ancestors in kernel_items(ctx.model.kernels):
        if isinstance(item, Loop) and certain_request(item, ancestors):
            yield item, ancestors


def scope_named(loop: Loop, api: str) -> bool | None:
    """Whether the loop body directly holds a `with T.<api>(...)` scope; None when unsure."""
    unsure = False
    for item in loop.body:
        if isinstance(item, Stmt) and item.kind is StmtKind.BLOCK and item.api == api:
            return True
        if not item.certain or (isinstance(item, Stmt) and item.kind is StmtKind.UNKNOWN):
            unsure = True
    return None if unsure else False


def pipeline_in_parallel_root(ctx: Context, ancestors: tuple[Item, ...]) -> tuple[str, Span] | None:
    """The TL102 finding (code, span) whose rewrite removes a finding under `ancestors`: the
    outermost pipeline-requested loop nested in a `T.Parallel` loop. Hoisting that pipeline out
    of the parallel region (TL102's legal rewrite) takes everything inside it out too, so a
    nested parallel loop or a tile operator there is a consequence, not a second mistake."""
    in_parallel = False
    for item in ancestors:
        if not isinstance(item, Loop):
            continue
        if item.is_parallel:
            in_parallel = True
        elif in_parallel and item.pipeline is not None and item.pipeline.state is Request.REQUESTED:
            return "TL102", ctx.span(item.site.report_node, item.site.report_top)
    return None
