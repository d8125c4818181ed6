"""Buffer families: local buffers indexed by parallel variables, fragments under symbolic extents."""

from __future__ import annotations

from .context import Ctx, indent

# =========================================================================== local family

LOCAL_INDEX = [
    "direct",
    "alias",
    "bind",
    "mul0",
    "mod1",
    "sub-self",
    "add0",
    "floordiv1",
    "zero-mul",
    "mul-K0",
    "mul0-plus-j",
    "serial-var",
    "replicated-read",
    "const-write",
    "value-only",
    "local-var-scope",
    "frag-by-i",
    "shared-by-i",
    "cond",
    "indirect",
    "vectorized",
    "unroll-var",
    "serial-under-P-by-i",
    "2d-j",
    "2d-flat",
    "atomic-on-local",
    "outside-P-serial",
]
LOCAL_VARIANTS = [*LOCAL_INDEX, "direct@read", "direct@under-if", "direct@under-serial", "bind@read"]


def fam_local(ctx: Ctx, variant: str | None) -> list[str]:
    rng = ctx.rng
    variant = variant or rng.choice(LOCAL_VARIANTS + ["direct"] * 2)
    ctx.tag(f"local:{variant}")
    A, B = ctx.A, ctx.B
    idx, _, mode = variant.partition("@")
    mode = mode or rng.choice(["write", "read", "write", "under-if", "under-serial"])
    loc = ctx.local()
    i = ctx.var()

    def access(ix: str) -> list[str]:
        if mode == "read":
            return [f"{B}[{i}, 0] = {loc}[{ix}]"]
        if mode == "under-if":
            return ["if bx == 0:", f"    {loc}[{ix}] = {A}[{i}, 0]"]
        if mode == "under-serial":
            s = ctx.svar()
            return [f"for {s} in T.serial(2):", f"    {loc}[{ix}] = {A}[{i}, {s}]"]
        return [f"{loc}[{ix}] = {A}[{i}, 0]"]

    head = f"for {i} in T.Parallel(8):"
    if idx == "direct":
        body = access(i)
    elif idx == "alias":
        a = ctx.var()
        body = [f"{a} = {i}", *access(a)]
    elif idx == "bind":
        a = ctx.var()
        body = [f"{a} = {i} + 1", *access(f"{a} - 1")]
    elif idx in ("mul0", "mod1", "sub-self", "add0", "floordiv1", "zero-mul"):
        ex = {
            "mul0": f"{i} * 0",
            "mod1": f"{i} % 1",
            "sub-self": f"{i} - {i}",
            "add0": f"{i} + 0",
            "floordiv1": f"{i} // 1",
            "zero-mul": f"0 * {i}",
        }[idx]
        body = access(ex)
    elif idx == "mul-K0":
        kk = (
            ctx.fparam(["K", "STRIDE", "kscale"], "0")
            if ctx.rng.random() < 0.5
            else ctx.fparam(["K", "STRIDE", "kscale"], "1", "0")
        )
        body = access(f"{i} * {kk}")
    elif idx == "mul0-plus-j":
        j = ctx.var()
        head = f"for {i}, {j} in T.Parallel(8, 8):"
        body = [f"{loc}[({i} * 0) + {j}] = {A}[{i}, {j}]"]
    elif idx == "serial-var":
        s = ctx.svar()
        body = [f"for {s} in T.serial(8):", f"    {loc}[{s}] = {A}[{i}, {s}]"]
    elif idx == "replicated-read":
        body = [f"{B}[{i}, 1] = {loc}[0] * {A}[{i}, 1]"]
    elif idx == "const-write":
        body = [f"{loc}[0] = {A}[{i}, 0]"]
    elif idx == "value-only":
        body = [f"{B}[{i}, 2] = {A}[{i}, 2] + 1.0", f"{loc}[1] = {B}[{i}, 2]"]
    elif idx == "local-var-scope":
        lv = ctx.alloc("localvar", ["lv", "scal", "one"], 'T.alloc_local((1,), "float32", scope="local.var")')
        body = [f"{lv} = {A}[{i}, 0]", f"{B}[{i}, 0] = {lv}"]
    elif idx == "frag-by-i":
        body = [f"{ctx.frag()}[{i}] = {A}[{i}, 0]"]
    elif idx == "shared-by-i":
        body = [f"{ctx.shared()}[{i}, 0] = {A}[{i}, 0]"]
    elif idx == "cond":
        body = [f"if {loc}[{i}] > 0.0:", f"    {B}[{i}, 0] = 1.0"]
    elif idx == "indirect":
        ib = ctx.kparam(["I", "perm", "index_t"], 'T.Tensor((64,), "int32")')
        body = [f"{loc}[{ib}[{i}]] = 0.0"]
    elif idx == "vectorized":
        v = ctx.svar()
        head = f"for {i} in T.Parallel(2):"
        body = [f"for {v} in T.vectorized(4):", f"    {loc}[{i} * 4 + {v}] = {A}[{i}, {v}]"]
    elif idx == "unroll-var":
        v = ctx.svar()
        body = [f"for {v} in T.unroll(4):", f"    {loc}[{v}] = {A}[{i}, {v}]"]
    elif idx == "serial-under-P-by-i":
        v = ctx.svar()
        body = [f"for {v} in T.serial(2):", f"    {loc}[{i}] = {A}[{i}, {v}]"]
    elif idx == "2d-j":
        j = ctx.var()
        head = f"for {i}, {j} in T.Parallel(8, 8):"
        body = [f"{loc}[{j}] = {A}[{i}, {j}]"]
    elif idx == "2d-flat":
        j = ctx.var()
        head = f"for {i}, {j} in T.Parallel(2, 4):"
        body = [f"{loc}[{i} * 4 + {j}] = {A}[{i}, {j}]"]
    elif idx == "atomic-on-local":
        body = [f"T.atomic_add({loc}[{i}], 1.0)"]
    elif idx == "outside-P-serial":
        s = ctx.svar()
        return [f"for {s} in T.serial(8):", f"    {loc}[{s}] = {A}[bx, {s}]"]
    else:
        raise KeyError(idx)
    return [head, *indent(body)]


# =========================================================================== fragment family

FRAG_EXTENTS = [
    "literal",
    "factory-int",
    "factory-arith",
    "static-shape",
    "tmin-const",
    "ceildiv-const",
    "int32-plus",
    "dynamic",
    "scalar-param",
    "symbolic-shape",
    "bx",
    "blockM-minus-bx",
    "tmin-symbolic",
    "alloc-var",
    "alloc-var-init",
    "lower-parallel",
    "lower-parallel-const",
]
FRAG_ACCESS = [
    "write",
    "read",
    "under-if",
    "under-serial",
    "alias",
    "bind",
    "unused",
    "folded-alias",
    "nested-const-inner-uses-inner",
    "nested-const-inner-uses-outer",
    "symbolic-serial",
    "indirect",
]
FRAG_VARIANTS = (
    [f"{e}@write" for e in FRAG_EXTENTS]
    + [f"{e}@read" for e in ("literal", "dynamic", "bx")]
    + [f"{a}" for a in FRAG_ACCESS]
)


def _frag_extent(ctx: Ctx, kind: str) -> str:
    A = ctx.A
    if kind == "literal":
        return "64"
    if kind == "factory-int":
        return ctx.fparam(["n", "N_py", "block_N", "width"], "32")
    if kind == "factory-arith":
        nm = ctx.fparam(["n", "N_py", "block_N", "width"], "32")
        return f"{nm} // 2 + 1"
    if kind == "static-shape":
        return f"{A}.shape[1]"
    if kind == "tmin-const":
        return "T.min(64, 32)"
    if kind == "ceildiv-const":
        return "T.ceildiv(128, 2)"
    if kind == "int32-plus":
        return "T.int32(32) + 32"
    if kind == "dynamic":
        s = ctx.fresh(["S", "seq_len", "L_dyn", "dynN"])
        ctx.flines.append(f'{s} = T.dynamic("{s}")')
        return s
    if kind == "scalar-param":
        return ctx.kparam(["N", "n_valid", "length"], "T.int32")
    if kind == "symbolic-shape":
        s = ctx.fresh(["S", "seq_len", "L_dyn", "dynN"])
        ctx.flines.append(f'{s} = T.dynamic("{s}")')
        d = ctx.kparam(["D", "V", "kv"], f'T.Tensor(({s}, 64), "float32")')
        return f"{d}.shape[0]"
    if kind == "bx":
        return "bx"
    if kind == "blockM-minus-bx":
        bm = ctx.fparam(["block_M", "BM", "tile"], "64")
        return f"{bm} - bx"
    if kind == "tmin-symbolic":
        return "T.min(64, 64 - bx * 16)"
    if kind in ("alloc-var", "alloc-var-init"):
        expr = "T.alloc_var(T.int32)" if kind == "alloc-var" else "T.alloc_var(T.int32, init=16)"
        return ctx.alloc(kind, ["cnt", "nvalid", "count"], expr)
    raise KeyError(kind)


def fam_frag(ctx: Ctx, variant: str | None) -> list[str]:
    rng = ctx.rng
    if variant is None:
        if rng.random() < 0.6:
            variant = (
                f"{rng.choice(FRAG_EXTENTS)}@{rng.choice(['write', 'read', 'under-if', 'under-serial'])}"
            )
        else:
            variant = rng.choice(FRAG_ACCESS)
    ctx.tag(f"frag:{variant}")
    A, B = ctx.A, ctx.B
    fr = ctx.frag()
    i = ctx.var()
    if "@" in variant:
        ext_kind, access = variant.split("@")
    else:
        access = variant
        ext_kind = rng.choice(["dynamic", "bx", "scalar-param", "alloc-var", "literal", "factory-int"])
        ctx.tag(f"frag:extent={ext_kind}")
    if ext_kind == "lower-parallel":
        head = f"for {i} in T.parallel(bx, bx + 8):"
    elif ext_kind == "lower-parallel-const":
        head = f"for {i} in T.parallel(0, 8):"
    else:
        head = f"for {i} in T.Parallel({_frag_extent(ctx, ext_kind)}):"
    if access == "write":
        body = [f"{fr}[{i}] = 0.0"]
    elif access == "read":
        body = [f"{B}[0, {i}] = {fr}[{i}]"]
    elif access == "under-if":
        body = [f"if {i} < 4:", f"    {fr}[{i}] = {A}[0, {i}]"]
    elif access == "under-serial":
        s = ctx.svar()
        body = [f"for {s} in T.serial(2):", f"    {fr}[{i}] = {A}[{s}, {i}]"]
    elif access == "alias":
        a = ctx.var()
        body = [f"{a} = {i}", f"{fr}[{a}] = 1.0"]
    elif access == "bind":
        a = ctx.var()
        body = [f"{a} = {i} + bx", f"{fr}[{a} - bx] = 1.0"]
    elif access == "folded-alias":
        a = ctx.var()
        body = [f"{a} = {i} + 0 * bx", f"{fr}[{a}] = 1.0"]
    elif access == "unused":
        body = [f"{fr}[0] = {A}[0, 0]", f"{B}[1, 0] = 0.0"]
    elif access in ("nested-const-inner-uses-inner", "nested-const-inner-uses-outer"):
        j = ctx.var()
        use = j if access.endswith("inner") else i
        body = [f"for {j} in T.Parallel(8):", f"    {fr}[{use}] = 0.0"]
    elif access == "symbolic-serial":
        head = head.replace("T.Parallel(", "T.serial(").replace("T.parallel(", "T.serial(")
        body = [f"{fr}[{i}] = 0.0"]
    elif access == "indirect":
        body = [f'{fr}[T.cast({A}[{i}, 0], "int32")] = 0.0']
    else:
        raise KeyError(access)
    return [head, *indent(body)]
