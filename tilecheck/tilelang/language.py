"""The parts of TileLang's language (`tilelang.language`, 0.1.15) the interpreter knows by name."""

from __future__ import annotations

# The modules whose names a kernel reaches as `T.<name>`: the facade and its dialects.
TILELANG_PACKAGES = ("tilelang.language", "tilelang.cuda.language", "tilelang.ascend.language")

# Scalar dtype constructors: T.int32(3) is an int32 IntImm, which the frontend inlines as a
# Python constant; other dtypes give a PrimExpr constant that an assignment binds.
INT32 = frozenset({"int32"})
DTYPES = frozenset(
    {
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "bfloat16", "bool", "float8_e4m3", "float8_e5m2",
    }
)  # fmt: skip

# Parameter annotations: a scalar annotation is a symbolic variable, a tensor one a buffer.
SCALAR_ANNOTATIONS = frozenset(
    {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float16", "float32", "float64", "bfloat16", "bool"}
)  # fmt: skip
TENSOR_ANNOTATIONS = frozenset({"Tensor", "Buffer", "StridedTensor", "FlattenedTensor"})

# TileLang calls that allocate a buffer, with their default scope.
ALLOCATIONS: dict[str, str] = {
    "alloc_local": "local",
    "alloc_fragment": "local.fragment",
    "alloc_shared": "shared.dyn",
    "alloc_var": "local.var",
    "alloc_reducer": "local.reducer",
    "alloc_global": "global",
    "alloc_barrier": "shared.barrier",
    "alloc_cluster_barrier": "shared.cluster_barrier",
    "alloc_tmem": "shared.tmem",
    "alloc_descriptor": "local.descriptor",
    "alloc_wgmma_desc": "local.descriptor.wgmma",
    "alloc_buffer": "global",
    "allocate": "global",
    "empty": "global",
}

# TileLang calls that return a new buffer over another one's data (no statement; a store into
# the view is a BufferStore).
VIEWS = frozenset({"reshape", "view"})

# TileLang calls that create a symbolic variable.
SYMBOLS = frozenset({"dynamic", "symbolic", "get_thread_binding", "get_block_binding"})

# TileLang calls known to emit no statement where they stand (block attributes, hints).
NO_STATEMENT = frozenset(
    {"annotate_layout", "use_swizzle", "annotate_safe_value", "annotate_l2_hit_ratio",
     "disable_warp_group_reg_alloc", "no_set_max_nreg", "annotate_padding"}
)  # fmt: skip
