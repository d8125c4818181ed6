"""The conditions family: loop nests under Python-level conditions and next to names that
tilecheck cannot evaluate, which TileLang builds with concrete values.

The values come from `os.environ` and `types.SimpleNamespace` (opaque to a static reader, known
when the module runs): a flag `C` is `os.environ.get(UNSET) is None` (True) or `is not None`
(False), either in the factory or as the call's argument of a factory parameter; `CFG.block`
(16) and `CFG.limit` (32) are integers. Files are `cNNNN.py`, from their own random stream, so
that the other families' kernels stay as they are.
"""

from __future__ import annotations

import random

from .context import Ctx, indent

COND_VARIANTS = [
    "branch-breaker:then",
    "branch-breaker:else",
    "sibling-if",
    "opposite",
    "nest-under-if",
    "macro-if",
    "tileop-branch",
    "unknown-bind",
    "unknown-annotated",
    "unknown-if",
    "unknown-while",
    "unknown-pure",
    "helper-bind",
    "helper-inline",
]

UNSET = "TILECHECK_ORACLE_UNSET"
PREAMBLE = [
    "import os",
    "import types",
    "",
    "CFG = types.SimpleNamespace(block=16, limit=32)",
]


def _flag(ctx: Ctx) -> str:
    """A Python bool tilecheck cannot decide; its value at build time is random."""
    value = ctx.rng.random() < 0.5
    expr = f'os.environ.get("{UNSET}") {"is" if value else "is not"} None'
    ctx.tag(f"cond:value-{str(value).lower()}")
    if ctx.rng.random() < 0.5:
        name = ctx.fparam(["use_tc", "is_causal", "use_g", "fast"], "False", arg=expr)
    else:
        name = ctx.fresh(["flag", "enabled", "has_bias", "wide"])
        ctx.flines.append(f"{name} = {expr}")
    ctx.tag(f"flag:{name}={str(value).lower()}")
    return name


def fam_cond(ctx: Ctx, variant: str | None) -> list[str]:
    variant = variant or ctx.rng.choice(COND_VARIANTS)
    ctx.tag(f"cond:{variant}")
    A, B = ctx.A, ctx.B
    i, j = ctx.var(), ctx.var()
    kind, _, mode = variant.partition(":")
    inner = [f"for {j} in T.Parallel(8):", f"    {B}[{i}, {j}] = {A}[{i}, {j}]"]
    store = f"{B}[{i}, 0] = 0.0"
    if kind == "branch-breaker":
        flag = _flag(ctx)
        broken = [store, *inner]
        then, other = (broken, inner) if mode == "then" else (inner, broken)
        return [
            f"for {i} in T.Parallel(8):",
            f"    if {flag}:",
            *indent(then, 2),
            "    else:",
            *indent(other, 2),
        ]
    if kind == "sibling-if":
        flag = _flag(ctx)
        return [f"for {i} in T.Parallel(8):", f"    if {flag}:", f"        {store}", *indent(inner)]
    if kind == "opposite":
        flag = _flag(ctx)
        return [
            f"for {i} in T.Parallel(8):",
            f"    if {flag}:",
            f"        {store}",
            "    else:",
            *indent(inner, 2),
        ]
    if kind == "nest-under-if":
        flag = _flag(ctx)
        return [f"if {flag}:", f"    for {i} in T.Parallel(8):", f"        {store}", *indent(inner, 2)]
    if kind == "macro-if":
        flag = _flag(ctx)
        mac = ctx.macro(
            "macro-if",
            ["guarded_row", "masked_row"],
            lambda nm: [
                "@T.macro",
                f"def {nm}(buf, r, on):",
                "    if on:",
                "        buf[r, 0] = 0.0",
                "        for c_ in T.Parallel(8):",
                "            buf[r, c_] = 1.0",
            ],
        )
        return [f"for {i} in T.Parallel(8):", f"    {mac}({B}, {i}, {flag})"]
    if kind == "tileop-branch":
        flag = _flag(ctx)
        return [f"for {i} in T.Parallel(8):", f"    if {flag}:", f"        T.fill({B}[{i}, 0:8], 0.0)"]
    if kind in ("unknown-bind", "unknown-annotated"):
        r = ctx.var()
        note = ": T.int32" if kind == "unknown-annotated" else ""
        return [
            f"for {i} in T.Parallel(8):",
            f"    {r}{note} = bx * CFG.block + {i}",
            f"    for {j} in T.Parallel(8):",
            f"        {B}[{r} % 64, {j}] = 0.0",
        ]
    if kind == "unknown-if":
        return [f"for {i} in T.Parallel(8):", f"    if {i} * CFG.block < CFG.limit:", *indent(inner, 2)]
    if kind == "unknown-while":
        count = ctx.alloc("count", ["cnt", "steps"], 'T.alloc_local((1,), "int32")')
        return [
            f"for {i} in T.Parallel(8):",
            f"    while {count}[0] < CFG.limit:",
            *indent(inner, 2),
        ]
    if kind == "unknown-pure":
        w = ctx.var()
        return [
            f"for {i} in T.Parallel(8):",
            f"    {w} = CFG.block * 2",
            f"    for {j} in T.Parallel(8):",
            f"        {B}[{i}, {j}] = {A}[{i}, {j}] + {w}",
        ]
    if kind in ("helper-bind", "helper-inline"):
        helper = ctx.macro(
            "helper-row", ["row_of", "offset_of"], lambda nm: [f"def {nm}(b, r):", "    return b * 8 + r"]
        )
        if kind == "helper-inline":
            return [
                f"for {i} in T.Parallel(8):",
                f"    for {j} in T.Parallel(8):",
                f"        {B}[{helper}(bx, {i}) % 64, {j}] = 0.0",
            ]
        r = ctx.var()
        return [
            f"for {i} in T.Parallel(8):",
            f"    {r} = {helper}(bx, {i})",
            f"    for {j} in T.Parallel(8):",
            f"        {B}[{r} % 64, {j}] = 0.0",
        ]
    raise KeyError(variant)


def with_preamble(text: str) -> str:
    """The module with the opaque values defined after its imports, and a `# flags:` line that
    says what each flag is at build time (compare.py reads it to apply findings that hold only
    "when `flag` is true")."""
    lines = text.split("\n")
    cases = next(line for line in lines if line.startswith("# cases:"))
    flags = [
        tag[len("flag:") :]
        for tag in cases[len("# cases:") :].replace(" ", "").split(",")
        if tag.startswith("flag:")
    ]
    # The macro's parameter `on` receives the flag: its findings name `on`.
    flags += [f"on={flag.split('=')[1]}" for flag in flags if "macro-if" in cases]
    at = next(n for n, line in enumerate(lines) if line.startswith("def make_kernel("))
    header = [lines[0], lines[1], f"# flags: {', '.join(flags)}"]
    return "\n".join([*header, *lines[2 : at - 2], *PREAMBLE, "", "", *lines[at:]])


def queue(rng: random.Random) -> list[str]:
    variants = list(COND_VARIANTS)
    rng.shuffle(variants)
    return variants
