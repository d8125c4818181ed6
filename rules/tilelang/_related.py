"""Secondary locations for the loop rules (TL1xx, TL2xx); not a rule module."""

from __future__ import annotations

from tilecheck.analysis.model import Loop, Site
from tilecheck.analysis.values import Buffer
from tilecheck.context import Context
from tilecheck.types import Related


def related(ctx: Context, site: Site, message: str) -> Related:
    """`site` where it is written (inside its macro for inlined code), labelled `message`."""
    return Related(ctx.span(site.node, site.top), message)


def enclosing_parallel(ctx: Context, loop: Loop) -> Related:
    return related(ctx, loop.site, "the enclosing `T.Parallel` loop")


def allocation(ctx: Context, buffer: Buffer) -> tuple[Related, ...]:
    """Where `buffer` is allocated, when it is an allocation in this file."""
    if buffer.node is None or buffer.top is None:
        return ()
    api = f"`T.{buffer.api}`" if buffer.api and buffer.api != "param" else "here"
    return (Related(ctx.span(buffer.node, buffer.top), f"`{buffer.name}` is allocated with {api}"),)
