"""The call signatures of TileLang 0.1.15's loop constructors and tile operators.

Read from the installed `tilelang==0.1.15` with `inspect.signature` (regenerate with
`tools/oracle/signatures.py`) and kept here as data: tilecheck never imports TileLang. A
call these signatures do not accept raises `TypeError` when the kernel is built.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Signature:
    positional: tuple[str, ...]  # positional-or-keyword parameters, in order
    keyword_only: tuple[str, ...] = ()
    variadic: bool = False  # *extents

    def accepts(self, keyword: str) -> bool:
        return keyword in self.positional or keyword in self.keyword_only

    @property
    def max_positional(self) -> int | None:
        return None if self.variadic else len(self.positional)


VERSION = "0.1.15"

# `import tilelang.language as T` re-exports the CUDA dialect in 0.1.15; these are its
# signatures. Other dialects (`tilelang.rocm.language`, `tilelang.ascend.language`) differ.
DEFAULT_DIALECTS = ("tilelang.language.", "tilelang.cuda.language.")

# API name (as `T.<name>`) -> its signature.
SIGNATURES: dict[str, Signature] = {
    "Parallel": Signature(
        (), keyword_only=("coalesced_width", "loop_layout", "prefer_async", "annotations"), variadic=True
    ),
    "parallel": Signature(("start", "stop"), keyword_only=("annotations",)),
    "Pipelined": Signature(("start", "stop", "num_stages", "order", "stage", "annotations")),
    "Persistent": Signature(
        ("domain", "wave_size", "index", "group_size", "num_stages"), keyword_only=("annotations",)
    ),
    "serial": Signature(("start", "stop", "step"), keyword_only=("annotations",)),
    "Serial": Signature(("start", "stop", "step"), keyword_only=("annotations",)),
    "unroll": Signature(("start", "stop", "step"), keyword_only=("explicit", "unroll_factor", "annotations")),
    "Unroll": Signature(("start", "stop", "step"), keyword_only=("explicit", "unroll_factor", "annotations")),
    "vectorized": Signature(("start", "stop"), keyword_only=("annotations",)),
    "Vectorized": Signature(("start", "stop"), keyword_only=("annotations",)),
    "grid": Signature((), variadic=True),
    "thread_binding": Signature(("start", "stop", "thread"), keyword_only=("annotations",)),
    "fill": Signature(("buffer", "value", "annotations")),
    "clear": Signature(("buffer", "annotations")),
    "reduce": Signature(("buffer", "out", "reduce_type", "dim", "clear", "batch", "annotations")),
    "reduce_sum": Signature(("buffer", "out", "dim", "clear", "batch", "annotations")),
    "reduce_max": Signature(("buffer", "out", "dim", "clear", "batch", "nan_propagate", "annotations")),
    "reduce_min": Signature(("buffer", "out", "dim", "clear", "batch", "nan_propagate", "annotations")),
    "reduce_abssum": Signature(("buffer", "out", "dim", "batch", "annotations")),
    "reduce_absmax": Signature(("buffer", "out", "dim", "clear", "batch", "nan_propagate", "annotations")),
    "reduce_bitand": Signature(("buffer", "out", "dim", "clear", "batch", "annotations")),
    "reduce_bitor": Signature(("buffer", "out", "dim", "clear", "batch", "annotations")),
    "reduce_bitxor": Signature(("buffer", "out", "dim", "clear", "batch", "annotations")),
    "cumsum": Signature(("src", "dst", "dim", "reverse", "annotations")),
    "cummax": Signature(("src", "dst", "dim", "reverse", "annotations")),
    "gemm": Signature(
        ("A", "B", "C", "transpose_A", "transpose_B", "policy", "clear_accum", "mbar", "annotations")
    ),
    "gemm_sp": Signature(
        (
            "A_sparse",
            "E",
            "B",
            "C",
            "transpose_A",
            "transpose_E",
            "transpose_B",
            "policy",
            "clear_accum",
            "wg_wait",
            "annotations",
        )
    ),
    "gemm_blockscaled": Signature(
        ("A", "B", "C", "SFA", "SFB", "transpose_A", "transpose_B", "policy", "clear_accum"),
        keyword_only=(
            "k_start",
            "sf_a_granularity_k",
            "sf_b_granularity_k",
            "mbar",
            "use_2cta",
            "sf_layout",
            "annotations",
        ),
    ),
    "wgmma_gemm": Signature(
        ("A", "B", "C", "transpose_A", "transpose_B", "policy", "clear_accum", "annotations")
    ),
    "wgmma_gemm_sp": Signature(
        (
            "A_sparse",
            "E",
            "B",
            "C",
            "transpose_A",
            "transpose_E",
            "transpose_B",
            "policy",
            "clear_accum",
            "annotations",
        )
    ),
    "tcgen05_gemm": Signature(
        ("A", "B", "C", "transpose_A", "transpose_B", "policy", "clear_accum"),
        keyword_only=("mbar", "use_2cta", "annotations"),
    ),
    "tcgen05_gemm_sp": Signature(
        (
            "A_sparse",
            "E",
            "B",
            "C",
            "transpose_A",
            "transpose_E",
            "transpose_B",
            "policy",
            "clear_accum",
            "annotations",
        )
    ),
    "tcgen05_gemm_blockscaled": Signature(
        (
            "A",
            "B",
            "C",
            "SFA_tmem",
            "SFB_tmem",
            "transpose_A",
            "transpose_B",
            "clear_accum",
            "wg_wait",
            "mbar",
        ),
        keyword_only=("k_start", "sf_a_granularity_k", "sf_b_granularity_k", "use_2cta"),
    ),
    "async_copy": Signature(("src", "dst"), keyword_only=("coalesced_width", "annotations", "loop_layout")),
    "tma_copy": Signature(
        ("src", "dst"),
        keyword_only=("barrier", "cluster_mask", "leader_scope_threads", "eviction_policy", "annotations"),
    ),
    "tma_gather4": Signature(
        ("src", "dst", "col", "rows"), keyword_only=("barrier", "swizzle", "eviction_policy", "annotations")
    ),
    "tma_scatter4": Signature(
        ("src", "dst", "col", "rows"), keyword_only=("swizzle", "eviction_policy", "annotations")
    ),
    "transpose": Signature(("src", "dst", "annotations")),
    "im2col": Signature(
        (
            "img",
            "col",
            "nhw_step",
            "c_step",
            "kernel",
            "stride",
            "dilation",
            "pad",
            "eviction_policy",
            "annotations",
        )
    ),
    "c2d_im2col": Signature(
        (
            "img",
            "col",
            "nhw_step",
            "c_step",
            "kernel",
            "stride",
            "dilation",
            "pad",
            "eviction_policy",
            "annotations",
        )
    ),
    "reducer_init": Signature(("reducer", "init")),
    "finalize_reducer": Signature(("reducer", "dst", "batch", "annotations")),
    "copy": Signature(
        ("src", "dst"),
        keyword_only=(
            "coalesced_width",
            "disable_tma",
            "eviction_policy",
            "prefer_instruction",
            "annotations",
            "loop_layout",
        ),
    ),
    "atomic_add": Signature(("dst", "value", "memory_order", "return_prev", "use_tma", "annotations")),
    "atomic_max": Signature(("dst", "value", "memory_order", "return_prev", "annotations")),
    "atomic_min": Signature(("dst", "value", "memory_order", "return_prev", "annotations")),
}
