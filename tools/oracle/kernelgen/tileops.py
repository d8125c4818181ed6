"""The tile-op family: tile operations and element operations inside and outside `T.Parallel`."""

from __future__ import annotations

from .context import Ctx, indent

# =========================================================================== tile-op family

TILEOPS = [
    "copy-region",
    "copy-whole",
    "copy-scalar",
    "copy-scalar-cw",
    "copy-row-slice",
    "fill-frag",
    "fill-elem",
    "clear",
    "reduce-sum",
    "reduce-max",
    "gemm",
    "atomic-elem",
    "atomic-elem-ret",
    "atomic-region",
    "atomic-max-elem",
    "atomic-max-region",
    "atomic-whole",
    "cumsum",
    "reducer-update",
    "evaluate-copy",
    "assign-copy",
    "extern-copy",
    "extern-fill",
    "ite-copy",
]
TILEOP_PLACES = ["in-P", "in-P-under-serial", "in-P-under-if", "in-inner-P", "outside", "outside-serial"]
TILEOP_VARIANTS = (
    [f"{op}@in-P" for op in TILEOPS]
    + [f"{op}@outside" for op in TILEOPS if op != "reducer-update"]
    + [f"copy-region@{pl}" for pl in TILEOP_PLACES]
    + [f"fill-frag@{pl}" for pl in TILEOP_PLACES]
)


def _tileop_stmt(ctx: Ctx, op: str, ix: str) -> list[str]:
    A, B = ctx.A, ctx.B
    if op == "copy-region":
        return [f"T.copy({A}[{ix}, 0:8], {ctx.shared()}[{ix}, 0:8])"]
    if op == "copy-whole":
        return [f"T.copy({A}, {ctx.shared()})"]
    if op == "copy-scalar":
        return [f"T.copy({A}[{ix}, 0], {B}[{ix}, 0])"]
    if op == "copy-scalar-cw":
        return [f"T.copy({A}[{ix}, 0], {B}[{ix}, 0], coalesced_width=1)"]
    if op == "copy-row-slice":
        return [f"T.copy({A}[{ix}, :], {ctx.shared()}[{ix}, :])"]
    if op == "fill-frag":
        return [f"T.fill({ctx.frag()}, 0.0)"]
    if op == "fill-elem":
        return [f"T.fill({B}[{ix}, 0], 0.0)"]
    if op == "clear":
        return [f"T.clear({ctx.frag()})"]
    if op in ("reduce-sum", "reduce-max"):
        red = ctx.alloc("red", ["red", "row_max", "rsum"], 'T.alloc_fragment((8,), "float32")')
        fn = "reduce_sum" if op == "reduce-sum" else "reduce_max"
        return [f"T.{fn}({ctx.frag2()}, {red}, dim=1)"]
    if op == "gemm":
        sa = ctx.alloc("ga", ["a_s", "lhs_s"], 'T.alloc_shared((16, 16), "float16")')
        sb = ctx.alloc("gb", ["b_s", "rhs_s"], 'T.alloc_shared((16, 16), "float16")')
        fc = ctx.alloc("gc", ["c_f", "acc_c"], 'T.alloc_fragment((16, 16), "float32")')
        return [f"T.gemm({sa}, {sb}, {fc})"]
    if op == "atomic-elem":
        return [f"T.atomic_add({B}[{ix}, 0], {A}[{ix}, 0])"]
    if op == "atomic-elem-ret":
        return [f"T.atomic_add({B}[{ix}, 0], {A}[{ix}, 0], return_prev=True)"]
    if op == "atomic-region":
        return [f"T.atomic_add({B}[{ix}, 0:1], {A}[{ix}, 0:1])"]
    if op == "atomic-max-elem":
        return [f"T.atomic_max({B}[{ix}, 1], {A}[{ix}, 1])"]
    if op == "atomic-max-region":
        return [f"T.atomic_max({B}[{ix}, 0:2], {A}[{ix}, 0:2])"]
    if op == "atomic-whole":
        return [f"T.atomic_add({B}, {A})"]
    if op == "cumsum":
        return [f"T.cumsum({ctx.frag2()}, dim=1)"]
    if op == "reducer-update":
        acc = ctx.alloc("reducer", ["racc", "red_acc"], 'T.alloc_reducer((8,), "float32", op="sum")')
        return [f"T.reducer_update({acc}[{ix}], {A}[{ix}, 0])"]
    if op == "evaluate-copy":
        return [f"T.evaluate(T.copy({A}[{ix}, 0:8], {ctx.shared()}[{ix}, 0:8]))"]
    if op == "assign-copy":
        h = ctx.var()
        return [f"{h} = T.copy({A}[{ix}, 0:8], {ctx.shared()}[{ix}, 0:8])"]
    if op == "extern-copy":
        return [f'T.call_extern("handle", "wrap_op", T.copy({A}[{ix}, 0:8], {ctx.shared()}[{ix}, 0:8]))']
    if op == "ite-copy":
        sh = ctx.shared()
        return [
            f"T.evaluate(T.if_then_else(bx == 0, T.copy({A}[{ix}, 0:8], {sh}[{ix}, 0:8]), "
            f"T.copy({A}[{ix}, 8:16], {sh}[{ix}, 8:16])))"
        ]
    if op == "extern-fill":
        return [f'T.call_extern("handle", "wrap_op", T.fill({ctx.frag()}, 0.0))']
    raise KeyError(op)


def fam_tileop(ctx: Ctx, variant: str | None) -> list[str]:
    rng = ctx.rng
    if variant is None:
        op = rng.choice(TILEOPS)
        place = rng.choice(TILEOP_PLACES)
        if op == "reducer-update":
            place = rng.choice(["in-P", "in-P-under-serial", "in-P-under-if"])
        variant = f"{op}@{place}"
    ctx.tag(f"tileop:{variant}")
    op, place = variant.split("@")
    i = ctx.var()
    pre, post = [], []
    if op == "reducer-update":
        acc = ctx.alloc("reducer", ["racc", "red_acc"], 'T.alloc_reducer((8,), "float32", op="sum")')
        pre = [f"T.reducer_init({acc})"]
        post = [f"T.finalize_reducer({acc}, {ctx.B}[0, 0:8])"]
    if place == "in-P":
        return [*pre, f"for {i} in T.Parallel(8):", *indent(_tileop_stmt(ctx, op, i)), *post]
    if place == "in-P-under-serial":
        s = ctx.svar()
        return [
            *pre,
            f"for {i} in T.Parallel(8):",
            f"    for {s} in T.serial(2):",
            *indent(_tileop_stmt(ctx, op, i), 2),
            *post,
        ]
    if place == "in-P-under-if":
        return [
            *pre,
            f"for {i} in T.Parallel(8):",
            "    if bx == 0:",
            *indent(_tileop_stmt(ctx, op, i), 2),
            *post,
        ]
    if place == "in-inner-P":
        j = ctx.var()
        return [
            *pre,
            f"for {i} in T.Parallel(4):",
            f"    for {j} in T.Parallel(2):",
            *indent(_tileop_stmt(ctx, op, f"{i} * 2 + {j}"), 2),
            *post,
        ]
    if place == "outside":
        return [*pre, *_tileop_stmt(ctx, op, "bx"), *post]
    # outside-serial
    s = ctx.svar()
    return [*pre, f"for {s} in T.serial(4):", *indent(_tileop_stmt(ctx, op, s)), *post]
