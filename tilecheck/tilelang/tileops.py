"""Which TileLang calls lower to a `tl.tileop.*` operator (TileLang's `is_tile_op`).

The set is exactly the 25 `tl.tileop.*` ops of TileLang 0.1.15, reached through the Python
APIs below. Some APIs choose their op from their arguments (reference §3.2): `T.copy` of two
single elements without annotations is a plain store, and atomics on two scalars are
element intrinsics; on a region or a whole buffer both are tile ops.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

# Python API name -> the tl.tileop.* op it always produces.
ALWAYS_TILE_OP: dict[str, str] = {
    "fill": "fill",
    "clear": "fill",
    "reduce": "reduce",
    "reduce_sum": "reduce",
    "reduce_max": "reduce",
    "reduce_min": "reduce",
    "reduce_abssum": "reduce",
    "reduce_absmax": "reduce",
    "reduce_bitand": "reduce",
    "reduce_bitor": "reduce",
    "reduce_bitxor": "reduce",
    "cumsum": "cumsum",
    "cummax": "cummax",
    "gemm": "gemm",
    "gemm_v1": "gemm",
    "gemm_v2": "gemm",
    "gemm_sp": "gemm_sp",
    "gemm_blockscaled": "gemm_blockscaled",
    "wgmma_gemm": "wgmma_gemm",
    "wgmma_gemm_sp": "wgmma_gemm_sp",
    "tcgen05_gemm": "tcgen05_gemm",
    "tcgen05_gemm_sp": "tcgen05_gemm_sp",
    "tcgen05_gemm_blockscaled": "tcgen05_gemm_blockscaled",
    "async_copy": "async_copy",
    "tma_copy": "tma_copy",
    "tma_gather4": "copy",
    "tma_scatter4": "copy",
    "transpose": "transpose",
    "im2col": "im2col",
    "c2d_im2col": "c2d_im2col",
    "reducer_init": "reducer_init",
    "finalize_reducer": "finalize_reducer_v2",
    "ascend_copy": "ascend_copy",
}

# APIs whose op depends on whether an operand is a region (tile op) or a single element.
ARGUMENT_DEPENDENT: dict[str, str] = {
    "copy": "copy",
    "atomic_add": "atomicadd",
    "atomic_max": "atomicmax",
    "atomic_min": "atomicmin",
}


class Operand(Enum):
    ELEMENT = "element"  # a scalar BufferLoad or a plain scalar value
    REGION = "region"  # a slice or a whole buffer
    UNKNOWN = "unknown"


def classify(api: str, operands: list[Operand], has_kwargs: bool) -> str | Literal[False] | None:
    """The tile op `api` lowers to; None for an element operation; False when undecidable.

    `operands` are the classified first two positional operands; `has_kwargs` says whether
    any keyword argument (annotation, layout, memory order, ...) is given.
    """
    if api in ALWAYS_TILE_OP:
        return ALWAYS_TILE_OP[api]
    op = ARGUMENT_DEPENDENT.get(api)
    if op is None:
        return None
    if Operand.REGION in operands:
        return op
    if Operand.UNKNOWN in operands or len(operands) < 2:
        return False
    if api == "copy":
        # The scalar fast path is taken only without annotations (reference §3.2).
        return op if has_kwargs else None
    # Atomics on two scalars are element intrinsics whatever their keywords.
    return None
