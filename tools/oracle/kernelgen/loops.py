"""Loop families: strict `T.Parallel` chains with interposers, and `range` around and inside them."""

from __future__ import annotations

from .context import Ctx, indent

# =========================================================================== chain family

# interposer kinds: (key, kind, breaks)
#   kind "pre": statement before the inner loop, "post": after it, "wrap": wrapper
CHAIN_INTERPOSERS = [
    ("store-before", "pre"),
    ("store-after", "post"),
    ("sibling-inner", "post"),
    ("serial", "wrap"),
    ("grid", "wrap"),
    ("range", "wrap"),
    ("unroll", "wrap"),
    ("vectorized", "wrap"),
    ("while", "wrap"),
    ("while-false", "wrap"),
    ("if-bx", "wrap"),
    ("if-buf", "wrap"),
    ("if-else-bx", "wrap"),
    ("if-true", "wrap"),
    ("if-flag-true", "wrap"),
    ("if-flag-false", "wrap"),
    ("const-assign", "pre"),
    ("const-int32", "pre"),
    ("const-annot", "pre"),
    ("alias", "pre"),
    ("bind-expr", "pre"),
    ("bind-load", "pre"),
    ("bind-float", "pre"),
    ("alloc-local", "pre"),
    ("alloc-frag", "pre"),
    ("alloc-var", "pre"),
    ("alloc-var-init", "pre"),
    ("print", "pre"),
    ("assume", "pre"),
    ("sblock", "wrap"),
    ("pylist2", "wrap"),
    ("pylist1", "wrap"),
    ("pytuple1", "wrap"),
    ("pass", "pre"),
    ("docstring", "pre"),
    ("const-after", "post"),
]


def _interposer(ctx: Ctx, key: str, outer: str, inner: list[str]) -> list[str]:
    """Return the outer loop's body with ``inner`` (the inner loop lines) modified by ``key``."""
    A, B = ctx.A, ctx.B
    if key == "store-before":
        return [f"{B}[{outer}, 0] = 0.0", *inner]
    if key == "store-after":
        return [*inner, f"{B}[{outer}, 63] = {A}[{outer}, 63]"]
    if key == "sibling-inner":
        j = ctx.var()
        return [*inner, f"for {j} in T.Parallel(4):", f"    {B}[{outer}, {j} + 32] = 1.0"]
    if key in ("serial", "range", "unroll", "vectorized"):
        s = ctx.svar()
        head = {
            "serial": "T.serial(2)",
            "range": "range(2)",
            "unroll": "T.unroll(2)",
            "vectorized": "T.vectorized(2)",
        }[key]
        return [f"for {s} in {head}:", *indent(inner)]
    if key == "grid":
        s, s2 = ctx.svar(), ctx.svar()
        return [f"for {s}, {s2} in T.grid(2, 2):", *indent(inner)]
    if key == "while":
        w = ctx.alloc("wvar", ["cnt_w", "wv", "guard"], "T.alloc_var(T.int32)")
        return [f"while {w} < 1:", *indent(inner), f"    {w} = {w} + 1"]
    if key == "while-false":
        # the builder warns "loop body will be skipped" but still emits `while False:` + body
        return ["while False:", f"    {B}[{outer}, 2] = 0.0", *inner]
    if key == "if-bx":
        return ["if bx == 0:", *indent(inner)]
    if key == "if-buf":
        return [f"if {A}[{outer}, 0] > 0.0:", *indent(inner)]
    if key == "if-else-bx":
        return ["if bx < 1:", *indent(inner), "else:", f"    {B}[{outer}, 0] = 2.0"]
    if key == "if-true":
        return ["if True:", *indent(inner)]
    if key in ("if-flag-true", "if-flag-false"):
        val = "True" if key == "if-flag-true" else "False"
        # either the factory default carries the value, or the KERNEL = make_kernel(...) call overrides it
        if ctx.rng.random() < 0.5:
            flag = ctx.fparam(["FLAG", "USE_FAST", "enable", "with_tail", "HAS_BIAS"], val)
        else:
            other = "False" if val == "True" else "True"
            flag = ctx.fparam(["FLAG", "USE_FAST", "enable", "with_tail", "HAS_BIAS"], other, val)
        return [f"if {flag}:", *indent(inner), "else:", f"    {B}[{outer}, 1] = 3.0"]
    if key == "const-assign":
        c = ctx.var()
        return [f"{c} = 3", *inner]
    if key == "const-int32":
        c = ctx.var()
        return [f"{c} = T.int32(3)", *inner]
    if key == "const-annot":
        c = ctx.var()
        return [f"{c}: T.int32 = 3", *inner]
    if key == "alias":
        c = ctx.var()
        return [f"{c} = {outer}", *inner]
    if key == "bind-expr":
        c = ctx.var()
        return [f"{c} = {outer} * 2", *inner]
    if key == "bind-load":
        c = ctx.var()
        return [f"{c} = {A}[{outer}, 0]", *inner]
    if key == "bind-float":
        c = ctx.var()
        return [f"{c} = T.float32(3)", *inner]
    if key == "alloc-local":
        n = ctx.fresh(["tmp", "scratch", "tl_loc"])
        return [f'{n} = T.alloc_local((4,), "float32")', *inner]
    if key == "alloc-frag":
        n = ctx.fresh(["tmpf", "frag_t", "ftmp"])
        return [f'{n} = T.alloc_fragment((4,), "float32")', *inner]
    if key == "alloc-var":
        n = ctx.fresh(["cv", "counter", "nv"])
        return [f"{n} = T.alloc_var(T.int32)", *inner]
    if key == "alloc-var-init":
        n = ctx.fresh(["cvi", "counter_i", "nvi"])
        return [f"{n} = T.alloc_var(T.int32, init=0)", *inner]
    if key == "print":
        return [f"T.print({A}[{outer}, 0])", *inner]
    if key == "assume":
        return ["T.assume(bx < 4)", *inner]
    if key == "sblock":
        return ['with T.sblock("inner_blk"):', *indent(inner)]
    if key in ("pylist2", "pylist1", "pytuple1"):
        c = ctx.svar()
        it = {"pylist2": "[0, 1]", "pylist1": "[0]", "pytuple1": "(0,)"}[key]
        return [f"for {c} in {it}:", *indent(inner)]
    if key == "pass":
        return ["pass", *inner]
    if key == "docstring":
        return ['"""inner tile."""', *inner]
    if key == "const-after":
        c = ctx.var()
        return [*inner, f"{c} = 5"]
    raise KeyError(key)


def fam_chain(ctx: Ctx, variant: str | None) -> list[str]:
    rng = ctx.rng
    A, B = ctx.A, ctx.B
    shapes = ["2d", "triple", "p-p", "pmn-pk", "p-p-p"]
    shape, key = None, None
    if variant:
        if variant.startswith("shape="):
            shape = variant[6:]
        else:
            key = variant
    if shape is None:
        shape = rng.choice(shapes[2:]) if key else rng.choice(shapes)
    if key is None and shape in ("p-p", "pmn-pk", "p-p-p") and rng.random() < 0.6:
        key = rng.choice(CHAIN_INTERPOSERS)[0]
    keys = [key] if key else []
    if keys and rng.random() < 0.35:  # combine with another interposer
        keys.append(rng.choice(CHAIN_INTERPOSERS)[0])
    ctx.tag(f"chain:shape={shape}")
    for k in keys:
        ctx.tag(f"chain:{k}")
    m, n = rng.choice([2, 4, 8]), rng.choice([2, 4, 8])
    ext_m = str(m)
    if rng.random() < 0.3:
        ext_m = ctx.fparam(["M", "block_M", "BM", "tile_m"], str(m))
    if shape == "2d":
        i, j = ctx.var(), ctx.var()
        return [f"for {i}, {j} in T.Parallel({ext_m}, {n}):", f"    {B}[{i}, {j}] = {A}[{i}, {j}] + 1.0"]
    if shape == "triple":
        i, j, k = ctx.var(), ctx.var(), ctx.var()
        return [f"for {i}, {j}, {k} in T.Parallel(4, 4, 4):", f"    {B}[{i}, {j} * 4 + {k}] = {A}[{i}, {k}]"]
    if shape == "p-p":
        i, j = ctx.var(), ctx.var()
        inner = [f"for {j} in T.Parallel({n}):", f"    {B}[{i}, {j}] = {A}[{i}, {j}]"]
        for k in keys:
            inner = _interposer(ctx, k, i, inner)
        return [f"for {i} in T.Parallel({ext_m}):", *indent(inner)]
    if shape == "pmn-pk":
        i, j, k2 = ctx.var(), ctx.var(), ctx.var()
        inner = [f"for {k2} in T.Parallel(4):", f"    {B}[{i}, {j} * 4 + {k2}] = {A}[{i}, {j}]"]
        for k in keys:
            inner = _interposer(ctx, k, i, inner)
        return [f"for {i}, {j} in T.Parallel({ext_m}, 4):", *indent(inner)]
    # p-p-p
    i, j, k3 = ctx.var(), ctx.var(), ctx.var()
    leaf = [f"for {k3} in T.Parallel(4):", f"    {B}[{i}, {j} * 4 + {k3}] = {A}[{j}, {k3}]"]
    level = rng.choice(["outer", "inner"])
    if keys:
        ctx.tag(f"chain:level={level}")
    if level == "inner":
        for k in keys:
            leaf = _interposer(ctx, k, j, leaf)
        mid = [f"for {j} in T.Parallel(4):", *indent(leaf)]
    else:
        mid = [f"for {j} in T.Parallel(4):", *indent(leaf)]
        for k in keys:
            mid = _interposer(ctx, k, i, mid)
    return [f"for {i} in T.Parallel({ext_m}):", *indent(mid)]


CHAIN_VARIANTS = [f"shape={s}" for s in ["2d", "triple", "p-p", "pmn-pk", "p-p-p"]] + [
    k for k, _ in CHAIN_INTERPOSERS
]


# =========================================================================== range family

RANGE_VARIANTS = ["leaf", "stepped-leaf", "bx-bounds", "outside-P", "wrapping-P", "range-in-serial-in-P"]


def fam_range(ctx: Ctx, variant: str | None) -> list[str]:
    variant = variant or ctx.rng.choice(RANGE_VARIANTS)
    ctx.tag(f"range:{variant}")
    A, B = ctx.A, ctx.B
    i, k = ctx.var(), ctx.svar()
    if variant == "leaf":
        return [
            f"for {i} in T.Parallel(8):",
            f"    for {k} in range(4):",
            f"        {B}[{i}, {k}] = {A}[{i}, {k}]",
        ]
    if variant == "stepped-leaf":
        return [
            f"for {i} in T.Parallel(8):",
            f"    for {k} in range(0, 8, 2):",
            f"        {B}[{i}, {k}] = {A}[{i}, {k}]",
        ]
    if variant == "bx-bounds":
        return [f"for {i} in T.Parallel(8):", f"    for {k} in range(bx, 8):", f"        {B}[{i}, {k}] = 0.0"]
    if variant == "outside-P":
        return [f"for {k} in range(4):", f"    {B}[{k}, 0] = {A}[{k}, 1]"]
    if variant == "wrapping-P":
        return [f"for {k} in range(2):", f"    for {i} in T.Parallel(8):", f"        {B}[{i}, {k}] = 0.0"]
    # range-in-serial-in-P
    s = ctx.svar()
    return [
        f"for {i} in T.Parallel(4):",
        f"    for {s} in T.serial(2):",
        f"        for {k} in range(2):",
        f"            {B}[{i}, {s} * 2 + {k}] = 0.0",
    ]
