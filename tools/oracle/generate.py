#!/usr/bin/env python3
"""Seeded random generator of small TileLang kernels for the differential oracle.

Usage::

    python3 tools/oracle/generate.py --seed 1234 --count 400 --out build/oracle/kernels

Stdlib only (it never imports tilelang).  Output is deterministic for a given
``--seed``/``--count``.

FILE CONVENTION (what ``run_tilelang.py`` relies on)
----------------------------------------------------
Every generated file is a self-contained Python module::

    # tilecheck-oracle kernel seed=<seed> index=<n>
    # cases: <tag>, <tag>, ...
    import tilelang
    import tilelang.language as T          # or: from tilelang import language as T
                                           # or: import tilelang.language as tl
    def make_kernel(<factory params with defaults>):
        <T.dynamic symbols, @T.macro helpers>
        @T.prim_func
        def <name>(<tensor / scalar params>):
            with T.Kernel(..., threads=128) as (bx, by):
                <allocations>
                <1-3 snippets>
        return <name>

    KERNEL = make_kernel(<factory arguments>)

i.e. the module-level constant ``KERNEL`` holds the (one) PrimFunc; the oracle
imports the module, wraps ``KERNEL`` in an IRModule and runs the checkers.
The ``# cases:`` line lists the template/variant tags (for humans and for
``manifest.json``); it is *not* an expected verdict: the oracle decides.

TEMPLATE FAMILIES (tags are ``family:variant``)
-----------------------------------------------
chain     strict T.Parallel chains (2-D ``T.Parallel(M, N)``, triple
          ``T.Parallel(a, b, c)``, P{P}, P(M,N){P(K)}, P{P{P}}) with 0-3
          interposers: stores before/after, sibling inner P, wrapper loops
          (serial, grid, range, unroll, vectorized, while, ``while False``), runtime ``if`` on bx
          / on a buffer value, ``if True:``/``if FLAG:`` (factory bool),
          assignments (``c = 3``, ``T.int32(3)``, alias ``ii = i``, Bind
          ``t = i * 2``, ``v = A[i, 0]``, ``T.float32(3)``), allocations without
          init, ``T.alloc_var(init=)``, ``T.print``, ``T.assume``,
          ``with T.sblock``, ``for c in [0, 1]`` / ``[0]`` / ``(0,)``, ``pass``,
          docstrings.
range     ``range(...)`` inside / around T.Parallel (incl. stepped range).
macro     ``@T.macro`` helpers called inside T.Parallel with var args, expression
          args, constant args, buffer args; macro bodies = single T.Parallel,
          local store, fragment store, tile op, pipelined loop; plain (non-macro)
          Python helpers returning an expression.
pipe      T.Pipelined bare / num_stages=0 / num_stages=2 / positional
          ``(0, n, 2)`` / ``(0, n)`` / order+stage / order only / stage only /
          empty lists / ``T.serial(n, annotations={"num_stages": 2})`` /
          ``tl_pipelined_num_stages`` / ``num_stages=0`` + annotations /
          T.Persistent with and without num_stages; inside T.Parallel at depth
          0-2 and outside (incl. nested pipelines).
tileop    T.copy region / whole buffer / scalar / scalar+coalesced_width,
          T.fill, T.clear, T.reduce_sum/max, T.gemm, T.atomic_add/max elem vs
          region, T.cumsum, T.reducer_update, T.evaluate(T.copy), ``x = T.copy``,
          T.call_extern(..., T.copy(...)) (nested in a call: TileLang misses it);
          inside P, under serial/if in P, in the inner P of a chain, outside P.
local     T.alloc_local indexed by the parallel var directly, through an alias,
          a Bind (``idx = i + 1; loc[idx - 1]``), folded ``i * 0`` / ``i % 1``
          / ``i - i`` / ``i + 0`` / ``i // 1`` / ``0 * i`` / ``i * K`` (K=0), by a
          serial var, replicated ``loc[0]``, ``scope="local.var"``, fragment /
          shared indexed by i; reads, writes, conditions, under serial /
          vectorized / if, 2-D parallel.
frag      T.alloc_fragment indexed by the var of a T.Parallel whose extent is a
          literal, factory int, factory arithmetic, ``A.shape[1]``, T.min /
          T.ceildiv of constants, ``T.dynamic`` symbol, scalar param, symbolic
          shape dim, bx, ``block_M - bx``, T.alloc_var value, lowercase
          ``T.parallel(bx, bx + 8)``; write / read / under if / under serial /
          alias / Bind / unused var / symbolic serial / nested const P.

Each kernel takes its first snippet from a shuffled coverage queue of every
(family, variant) pair (so all variants appear once ``--count`` exceeds the
queue length, ~170), then 0-2 more random snippets; snippets are sometimes
wrapped in legal outer contexts (T.serial, T.Pipelined(num_stages), range,
``if bx == 0``, T.vectorized) to vary depth.

DROPPED CONSTRUCTS (fail in the 0.1.15 frontend for reasons other than the checkers)
-----------------------------------------------------------------------------
- ``T.max(T.copy(...), 1.0)`` / tile ops inside arithmetic: InternalError
  "Can't cast a handle to other types".
- indexing a ``scope="local.var"`` buffer (``lv[i] = ...``): TypeError, the
  name is bound to the value; only ``lv = value`` is generated.
- ``for i in T.Parallel(2, 8)`` with one target: build error (2-D nest).
- plain (non-macro) Python helpers containing ``for ... in T.Parallel`` ("'ForFrame'
  object is not iterable") or a buffer store ("'Buffer' object does not support
  item assignment"): only helpers that return an expression are generated.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

IMPORTS = [
    ("import tilelang.language as T", "T"),
    ("from tilelang import language as T", "T"),
    ("import tilelang.language as tl", "tl"),
]

VAR_POOL = [
    "i",
    "j",
    "k",
    "ii",
    "jj",
    "kk",
    "r",
    "c",
    "row",
    "col",
    "p",
    "q",
    "u",
    "v",
    "m",
    "n",
    "x",
    "y",
    "t0",
    "t1",
    "e",
    "f",
    "a0",
    "b0",
    "s",
    "w",
]
SER_POOL = ["s", "ko", "kk", "it", "st", "z", "h", "g", "l0", "l1"]
A_POOL = ["A", "X", "src", "inp", "Q", "a_glob"]
B_POOL = ["B", "Y", "dst", "out", "O", "b_glob"]
FUNC_POOL = ["main", "kernel", "body", "tile_kernel", "k_fn", "prog"]


class Ctx:
    """Assembly state for one kernel file."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: set[str] = {
            "bx",
            "by",
            "T",
            "tl",
            "tilelang",
            "make_kernel",
            "KERNEL",
            "range",
            "True",
            "False",
        }
        self.A = self.fresh(A_POOL)
        self.B = self.fresh(B_POOL)
        self.fparams: list[tuple[str, str]] = []  # factory params (name, default literal)
        self.fargs: dict[str, str] = {}  # overriding arguments in the KERNEL = make_kernel(...) call
        self.flines: list[str] = []  # factory lines before @T.prim_func
        self.kparams: list[str] = []  # extra kernel params
        self.allocs: list[str] = []
        self.tags: list[str] = []
        self.bufs: dict[str, str] = {}
        self.macros: dict[str, str] = {}
        self.two_d_grid = rng.random() < 0.7

    # -- names
    def fresh(self, pool: list[str]) -> str:
        cands = [n for n in pool if n not in self.used]
        if cands:
            name = self.rng.choice(cands)
        else:
            base = self.rng.choice(pool)
            k = 2
            while f"{base}{k}" in self.used:
                k += 1
            name = f"{base}{k}"
        self.used.add(name)
        return name

    def var(self) -> str:
        return self.fresh(VAR_POOL)

    def svar(self) -> str:
        return self.fresh(SER_POOL)

    # -- declarations
    def fparam(self, pool: list[str], default: str, arg: str | None = None) -> str:
        name = self.fresh(pool)
        self.fparams.append((name, default))
        if arg is not None:
            self.fargs[name] = arg
        return name

    def kparam(self, pool: list[str], annotation: str) -> str:
        name = self.fresh(pool)
        self.kparams.append(f"{name}: {annotation}")
        return name

    def alloc(self, key: str, pool: list[str], expr: str) -> str:
        """Allocate a buffer once per kernel (allocation emits no IR)."""
        if key not in self.bufs:
            name = self.fresh(pool)
            self.allocs.append(f"{name} = {expr}")
            self.bufs[key] = name
        return self.bufs[key]

    def local(self) -> str:
        return self.alloc(
            "local", ["loc", "acc_l", "regs", "tmp_l", "lbuf"], 'T.alloc_local((8,), "float32")'
        )

    def frag(self) -> str:
        return self.alloc(
            "frag", ["frag", "acc", "f_buf", "fr", "facc"], 'T.alloc_fragment((64,), "float32")'
        )

    def frag2(self) -> str:
        return self.alloc("frag2", ["tile_f", "f2", "blk_f"], 'T.alloc_fragment((8, 8), "float32")')

    def shared(self) -> str:
        return self.alloc(
            "shared", ["sh", "smem", "A_shared", "s_buf"], 'T.alloc_shared((64, 64), "float32")'
        )

    def macro(self, key: str, pool: list[str], make) -> str:
        """Define a factory-level helper once; make(name) returns its source lines."""
        if key not in self.macros:
            name = self.fresh(pool)
            self.flines.extend(make(name))
            self.macros[key] = name
        return self.macros[key]

    def tag(self, t: str) -> None:
        self.tags.append(t)


def indent(lines: list[str], n: int = 1) -> list[str]:
    return [("    " * n + ln) if ln.strip() else ln for ln in lines]


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
def _fam_macro_buffer_only(ctx: Ctx) -> list[str]:
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


# =========================================================================== pipeline family

PIPES = {
    "bare": "T.Pipelined({n})",
    "ns0": "T.Pipelined({n}, num_stages=0)",
    "ns2": "T.Pipelined({n}, num_stages=2)",
    "ns3": "T.Pipelined({n}, num_stages=3)",
    "positional3": "T.Pipelined(0, {n}, 2)",
    "positional2": "T.Pipelined(0, {n})",
    "order-stage": "T.Pipelined({n}, num_stages=2, order=[0], stage=[0])",
    "order-only": "T.Pipelined({n}, order=[0])",
    "stage-only": "T.Pipelined({n}, stage=[0])",
    "empty-lists": "T.Pipelined({n}, order=[], stage=[])",
    "serial-anno-ns": 'T.serial({n}, annotations={{"num_stages": 2}})',
    "serial-anno-tl-pipelined": 'T.serial({n}, annotations={{"tl_pipelined_num_stages": 2}})',
    "ns0-anno-ns2": 'T.Pipelined({n}, num_stages=0, annotations={{"num_stages": 2}})',
    "anno-ns0": 'T.Pipelined({n}, annotations={{"num_stages": 0}})',
    "serial-anno-ns0": 'T.serial({n}, annotations={{"num_stages": 0}})',
    "unroll-anno-ns": 'T.unroll({n}, annotations={{"num_stages": 2}})',
    "parallel-anno-ns": 'T.Parallel({n}, annotations={{"num_stages": 2}})',
    "order-stage-2": "T.Pipelined({n}, order=[0, 1], stage=[0, 1])",
}
PIPE_PLACES = ["in-P", "in-P-under-serial", "in-P-under-if", "in-inner-P", "outside", "outside-nested"]
PIPE_VARIANTS = (
    [f"{p}@{pl}" for p in PIPES for pl in ("in-P", "outside")]
    + [f"ns2@{pl}" for pl in PIPE_PLACES]
    + [f"bare@{pl}" for pl in PIPE_PLACES]
    + ["persistent@in-P", "persistent-ns2@in-P", "persistent@outside", "persistent-ns2@outside"]
)


def fam_pipe(ctx: Ctx, variant: str | None) -> list[str]:
    rng = ctx.rng
    if variant is None:
        if rng.random() < 0.15:
            variant = rng.choice(["persistent", "persistent-ns2"]) + "@" + rng.choice(["in-P", "outside"])
        else:
            variant = rng.choice(list(PIPES)) + "@" + rng.choice(PIPE_PLACES)
    ctx.tag(f"pipe:{variant}")
    A, B = ctx.A, ctx.B
    pipe, place = variant.split("@")
    i, k = ctx.var(), ctx.svar()
    if pipe.startswith("persistent"):
        bi, bj = ctx.var(), ctx.var()
        ns = ", num_stages=2" if pipe.endswith("ns2") else ""
        head = f"for {bi}, {bj} in T.Persistent([4, 4], 2, bx{ns}):"
        if place == "in-P":
            return [f"for {i} in T.Parallel(8):", f"    {head}", f"        {B}[{bi} * 4 + {bj}, {i}] = 0.0"]
        return [head, f"    for {i} in T.Parallel(8):", f"        {B}[{bi} * 4 + {bj}, {i}] = {A}[{bi}, {i}]"]
    n = rng.choice([4, 8])
    loop = PIPES[pipe].format(n=n)
    leaf = [f"for {k} in {loop}:", f"    {B}[{i}, {k}] = {A}[{i}, {k}] * 2.0"]
    if place == "in-P":
        return [f"for {i} in T.Parallel(8):", *indent(leaf)]
    if place == "in-P-under-serial":
        s = ctx.svar()
        return [f"for {i} in T.Parallel(8):", f"    for {s} in T.serial(2):", *indent(leaf, 2)]
    if place == "in-P-under-if":
        return [f"for {i} in T.Parallel(8):", f"    if {A}[{i}, 0] > 0.0:", *indent(leaf, 2)]
    if place == "in-inner-P":
        j = ctx.var()
        leaf = [f"for {k} in {loop}:", f"    {B}[{i}, {j} + {k}] = 0.0"]
        return [f"for {i} in T.Parallel(4):", f"    for {j} in T.Parallel(4):", *indent(leaf, 2)]
    if place == "outside":
        return [
            f"for {k} in {loop}:",
            f"    for {i} in T.Parallel(8):",
            f"        {B}[{i}, {k}] = {A}[{i}, {k}] * 2.0",
        ]
    # outside-nested: pipeline inside pipeline, P at the bottom
    k2 = ctx.svar()
    return [
        f"for {k2} in T.Pipelined(2, num_stages=2):",
        f"    for {k} in {loop}:",
        f"        for {i} in T.Parallel(8):",
        f"            {B}[{i}, {k} + {k2}] = 0.0",
    ]


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


# =========================================================================== assembly

FAMILIES = {
    "chain": (fam_chain, CHAIN_VARIANTS),
    "range": (fam_range, RANGE_VARIANTS),
    "macro": (fam_macro, MACRO_VARIANTS),
    "pipe": (fam_pipe, PIPE_VARIANTS),
    "tileop": (fam_tileop, TILEOP_VARIANTS),
    "local": (fam_local, LOCAL_VARIANTS),
    "frag": (fam_frag, FRAG_VARIANTS),
}
FAMILY_WEIGHTS = {"chain": 5, "range": 1, "macro": 2, "pipe": 3, "tileop": 3, "local": 3, "frag": 3}

OUTER_WRAPPERS = ["serial", "pipelined-ns2", "range", "if-bx", "vectorized", "grid"]


def _snippet(ctx: Ctx, family: str, variant: str | None) -> list[str]:
    fn, _ = FAMILIES[family]
    if family == "macro" and variant == "par-body:buffer-only":
        ctx.tag("macro:par-body:buffer-only")
        return _fam_macro_buffer_only(ctx)
    if family == "macro" and variant is None and ctx.rng.random() < 0.06:
        ctx.tag("macro:par-body:buffer-only")
        return _fam_macro_buffer_only(ctx)
    return fn(ctx, variant)


def _wrap_outer(ctx: Ctx, lines: list[str]) -> list[str]:
    kind = ctx.rng.choice(OUTER_WRAPPERS)
    ctx.tag(f"outer:{kind}")
    s = ctx.svar()
    if kind == "serial":
        return [f"for {s} in T.serial(2):", *indent(lines)]
    if kind == "pipelined-ns2":
        return [f"for {s} in T.Pipelined(2, num_stages=2):", *indent(lines)]
    if kind == "range":
        return [f"for {s} in range(2):", *indent(lines)]
    if kind == "if-bx":
        return ["if bx < 2:", *indent(lines)]
    if kind == "vectorized":
        return [f"for {s} in T.vectorized(2):", *indent(lines)]
    s2 = ctx.svar()
    return [f"for {s}, {s2} in T.grid(2, 1):", *indent(lines)]


def render(ctx: Ctx, snippets: list[list[str]], seed: int, index: int) -> str:
    rng = ctx.rng
    imp, alias = rng.choice(IMPORTS)
    fname = ctx.fresh(FUNC_POOL)
    threads = rng.choice([128, 128, 256])
    if ctx.two_d_grid:
        kernel_head = f"with T.Kernel(4, 2, threads={threads}) as (bx, by):"
    else:
        kernel_head = f"with T.Kernel(4, threads={threads}) as bx:"
    params = [
        f'{ctx.A}: T.Tensor((64, 64), "float32")',
        f'{ctx.B}: T.Tensor((64, 64), "float32")',
        *ctx.kparams,
    ]
    body: list[str] = []
    body += ctx.allocs
    for sn in snippets:
        body += sn
    fparams = ", ".join(f"{n}={d}" for n, d in ctx.fparams)
    fargs = ", ".join(f"{n}={v}" for n, v in ctx.fargs.items())
    lines = [
        f"# tilecheck-oracle kernel seed={seed} index={index}",
        f"# cases: {', '.join(ctx.tags)}",
        "import tilelang",
        imp,
        "",
        "",
        f"def make_kernel({fparams}):",
        *indent(ctx.flines),
        *([""] if ctx.flines else []),
        "    @T.prim_func",
        f"    def {fname}({', '.join(params)}):",
        f"        {kernel_head}",
        *indent(body, 3),
        "",
        f"    return {fname}",
        "",
        "",
        f"KERNEL = make_kernel({fargs})",
        "",
    ]
    text = "\n".join(lines)
    if alias != "T":
        text = re.sub(r"(?<![\w.])T\.", f"{alias}.", text)
    return text


def coverage_queue(rng: random.Random) -> list[tuple[str, str]]:
    q = [(fam, v) for fam, (_, variants) in FAMILIES.items() for v in variants]
    rng.shuffle(q)
    return q


def generate(seed: int, count: int) -> list[tuple[str, str, list[str]]]:
    rng = random.Random(seed)
    queue = coverage_queue(rng)
    fams = list(FAMILY_WEIGHTS)
    weights = [FAMILY_WEIGHTS[f] for f in fams]
    out = []
    for index in range(count):
        krng = random.Random(rng.getrandbits(64))
        ctx = Ctx(krng)
        picks: list[tuple[str, str | None]] = []
        if queue:
            picks.append(queue.pop())
        else:
            picks.append((krng.choices(fams, weights)[0], None))
        n_more = krng.choices([0, 1, 2], [5, 3, 2])[0]
        for _ in range(n_more):
            picks.append((krng.choices(fams, weights)[0], None))
        snippets = []
        for fam, variant in picks:
            sn = _snippet(ctx, fam, variant)
            if krng.random() < 0.2:
                sn = _wrap_outer(ctx, sn)
            snippets.append(sn)
        name = f"k{index:04d}.py"
        out.append((name, render(ctx, snippets, seed, index), ctx.tags))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="generate random TileLang kernels for the differential oracle")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--out", default="build/oracle/kernels")
    ap.add_argument("--keep", action="store_true", help="do not delete existing k*.py files in --out")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if out.exists() and not args.keep:
        for p in out.glob("k*.py"):
            p.unlink()
    out.mkdir(parents=True, exist_ok=True)
    files = generate(args.seed, args.count)
    manifest = {}
    for name, text, tags in files:
        (out / name).write_text(text)
        manifest[name] = tags
    all_variants = {f"{fam}:{v}" for fam, (_, vs) in FAMILIES.items() for v in vs}
    covered = {t for tags in manifest.values() for t in tags}
    missing = sorted(v for v in all_variants if not any(t.startswith(v) for t in covered))
    (out / "manifest.json").write_text(
        json.dumps(
            {"seed": args.seed, "count": args.count, "files": manifest, "uncovered_variants": missing},
            indent=1,
        )
    )
    print(
        f"[oracle/generate] wrote {len(files)} kernels to {out} (seed {args.seed}); "
        f"{len(all_variants) - len(missing)}/{len(all_variants)} template variants covered"
    )
    if missing:
        print(f"[oracle/generate] uncovered: {', '.join(missing)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
