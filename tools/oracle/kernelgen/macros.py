"""The macro family: `@T.macro` helpers (and plain helpers) called inside `T.Parallel`."""

from __future__ import annotations

from .context import Ctx

# =========================================================================== macro family

MACRO_VARIANTS = [
    "par-body:var-arg",
    "par-body:expr-arg",
    "par-body:const-arg",
    "par-body:outside",
    "par-body:buffer-only",
    "local-put:var-arg",
    "local-put:expr-arg",
    "local-put:const-arg",
    "frag-put:var-arg-symbolic",
    "frag-put:expr-arg-symbolic",
    "frag-put:var-arg-const",
    "tileop-body:in-P",
    "tileop-body:outside",
    "pipe-body:in-P",
    "pipe-body:outside",
    "store-body:var-arg",
    "helper-expr:expr-arg",
    "helper-expr:var-arg",
]


def fam_macro(ctx: Ctx, variant: str | None) -> list[str]:
    variant = variant or ctx.rng.choice(MACRO_VARIANTS)
    ctx.tag(f"macro:{variant}")
    A, B = ctx.A, ctx.B
    i = ctx.var()
    kind, mode = variant.split(":")
    if kind == "par-body":
        mac = ctx.macro(
            "par-body",
            ["fill_row", "zero_row", "row_op", "clear_tile"],
            lambda nm: [
                "@T.macro",
                f"def {nm}(buf, base):",
                "    for jj_ in T.Parallel(8):",
                "        buf[base, jj_] = 0.0",
            ],
        )
        if mode == "var-arg":
            return [f"for {i} in T.Parallel(8):", f"    {mac}({B}, {i})"]
        if mode == "expr-arg":
            return [f"for {i} in T.Parallel(8):", f"    {mac}({B}, {i} + 8)"]
        if mode == "const-arg":
            return [f"for {i} in T.Parallel(8):", f"    {mac}({B}, 3)"]
        return [f"{mac}({B}, bx)"]  # outside
    if kind == "local-put":
        mac = ctx.macro(
            "local-put",
            ["put", "store_l", "setv"],
            lambda nm: ["@T.macro", f"def {nm}(L, x, val):", "    L[x] = val"],
        )
        loc = ctx.local()
        arg = {"var-arg": i, "expr-arg": f"{i} * 2", "const-arg": "3"}[mode]
        return [
            f"for {i} in T.Parallel(4):",
            f"    {mac}({loc}, {arg}, {A}[{i}, 0])",
            f"    {B}[{i}, 0] = {loc}[0]",
        ]
    if kind == "frag-put":
        mac = ctx.macro(
            "frag-put",
            ["fput", "frag_store", "put_f"],
            lambda nm: ["@T.macro", f"def {nm}(F, idx):", "    F[idx] = 1.0"],
        )
        fr = ctx.frag()
        if mode == "var-arg-const":
            return [f"for {i} in T.Parallel(16):", f"    {mac}({fr}, {i})"]
        arg = i if mode == "var-arg-symbolic" else f"{i} + 0 * bx + 1"
        return [f"for {i} in T.Parallel(bx):", f"    {mac}({fr}, {arg})"]
    if kind == "tileop-body":
        sh = ctx.shared()
        mac = ctx.macro(
            "tileop-body",
            ["load_tile", "stage_in", "cp_tile"],
            lambda nm: ["@T.macro", f"def {nm}(src, dst, r):", "    T.copy(src[r, 0:8], dst[r, 0:8])"],
        )
        if mode == "in-P":
            return [f"for {i} in T.Parallel(4):", f"    {mac}({A}, {sh}, {i})"]
        return [f"{mac}({A}, {sh}, bx)"]
    if kind == "pipe-body":
        mac = ctx.macro(
            "pipe-body",
            ["staged", "pipe_row", "k_loop"],
            lambda nm: [
                "@T.macro",
                f"def {nm}(dst, r):",
                "    for ko_ in T.Pipelined(4, num_stages=2):",
                "        dst[r, ko_] = 0.0",
            ],
        )
        if mode == "in-P":
            return [f"for {i} in T.Parallel(4):", f"    {mac}({B}, {i})"]
        return [f"{mac}({B}, bx)"]
    if kind == "store-body":
        mac = ctx.macro(
            "store-body",
            ["copy_elem", "mv", "elem"],
            lambda nm: ["@T.macro", f"def {nm}(dst, src, r, cc):", "    dst[r, cc] = src[r, cc]"],
        )
        j = ctx.var()
        return [f"for {i}, {j} in T.Parallel(8, 8):", f"    {mac}({B}, {A}, {i}, {j})"]
    if kind == "helper-expr":
        # plain (non-macro) Python helper: only expression helpers build (a plain helper containing
        # `for ... in T.Parallel` or a buffer store fails in the frontend, see ANSWERS.md d)
        helper = ctx.macro(
            "helper-expr",
            ["helper", "py_helper", "scaled"],
            lambda nm: [f"def {nm}(buf, idx):", "    return buf[0, idx] * 2.0"],
        )
        j = ctx.var()
        arg = f"{i} * 8 + {j}" if mode == "expr-arg" else j
        return [
            f"for {i} in T.Parallel(4):",
            f"    for {j} in T.Parallel(8):",
            f"        {B}[{i}, {j}] = {helper}({A}, {arg})",
        ]
    raise KeyError(variant)


# make "par-body:buffer-only" meaningful: a macro taking only buffers whose body is a single P
def fam_macro_buffer_only(ctx: Ctx) -> list[str]:
    A, B = ctx.A, ctx.B
    mac = ctx.macro(
        "par-body-buf",
        ["copy_rows", "mirror", "rows_cp"],
        lambda nm: [
            "@T.macro",
            f"def {nm}(dst, src):",
            "    for jb in T.Parallel(8):",
            "        dst[0, jb] = src[0, jb]",
        ],
    )
    i = ctx.var()
    return [f"for {i} in T.Parallel(1):", f"    {mac}({B}, {A})"]
