"""Secondary locations and cause-specific help for the loop rules (TL1xx, TL2xx); not a rule module."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.types import Related
from tilecheck.tilelang.model import Loop, Site
from tilecheck.tilelang.values import Buffer

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


def related(ctx: Context, site: Site, message: str) -> Related:
    """`site` where it is written (inside its macro for inlined code), labelled `message`."""
    return ctx.related(site.node, site.top, site.path, message)


def enclosing_parallel(ctx: Context, loop: Loop) -> Related:
    return related(ctx, loop.site, "the enclosing `T.Parallel` loop")


def allocation(ctx: Context, buffer: Buffer) -> tuple[Related, ...]:
    """Where `buffer` is allocated, when it is an allocation in this file."""
    if buffer.node is None or buffer.top is None:
        return ()
    if buffer.api == "param":
        label = f"`{buffer.name}` is a kernel parameter"
    elif buffer.api:
        label = f"`{buffer.name}` is allocated with `T.{buffer.api}`"
    else:
        label = f"`{buffer.name}` is allocated here"
    return (ctx.related(buffer.node, buffer.top, buffer.path, label),)


def tile_op_rewrite(api: str, line: int) -> str:
    """The rewrite for a tile operator in a parallel loop (TL103, TL209), named after what it does."""
    outside = f"outside the `T.Parallel` loop at line {line}"
    if api in ("copy", "tma_gather4", "tma_scatter4", "async_copy", "tma_copy"):
        return (
            f"Call `T.{api}` once, {outside}, on the whole region (`T.copy(A[r:r + M, :], S)`), or copy "
            "element by element in the loop: `S[i, j] = A[r + i, j]`."
        )
    if api in ("fill", "clear"):
        return f"Assign element by element in the loop (`S[i, j] = 0`), or call `T.{api}` once, {outside}."
    if "gemm" in api:
        return (
            f"Call `T.{api}` once, {outside}: it already spreads the whole tile product over the block's "
            "threads (inside a `T.Pipelined` loop over K when it accumulates)."
        )
    if api.startswith("reduce") or api in ("cumsum", "cummax", "finalize_reducer", "reducer_init"):
        return f"Call `T.{api}` once on the whole fragment, {outside}: it reduces across threads itself."
    if api.startswith("atomic"):
        return (
            f"Use the element form `T.{api}(B[i, j], value)` in the loop, or one `T.{api}` over the "
            f"region, {outside}."
        )
    return f"Call `T.{api}` once, {outside}: tile operators distribute their own work over the threads."
