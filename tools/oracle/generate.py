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

TEMPLATE FAMILIES (tags are ``family:variant``; the templates are in ``kernelgen/``)
-----------------------------------------------------------------------------------
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

CONDITIONS (``--conditions``, default 60): files ``cNNNN.py`` whose loop nests sit under
Python-level conditions and next to names tilecheck cannot evaluate (``os.environ`` flags,
``types.SimpleNamespace`` integers), built by TileLang with concrete values; a ``# flags:`` line
records each flag's value for compare.py; see ``kernelgen/conditions.py``.

PROJECTS (``--projects``, default 120): packages ``pNNNN/`` whose ``kernel.py`` takes ``T``
from a helper module (relative, under ``try:``, re-exported by ``__init__.py``, as a module
attribute, from a lazy loader), may build its kernel in a class method, and may import its
macros from ``_common.py`` or make them there with a factory; see ``kernelgen/projects.py``.
The oracle imports ``kernel.py`` as ``pNNNN.kernel``.

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

from kernelgen.buffers import FRAG_VARIANTS, LOCAL_VARIANTS, fam_frag, fam_local
from kernelgen.conditions import COND_VARIANTS, fam_cond, with_preamble
from kernelgen.conditions import queue as condition_queue
from kernelgen.context import FUNC_POOL, IMPORTS, Ctx, indent
from kernelgen.loops import CHAIN_VARIANTS, RANGE_VARIANTS, fam_chain, fam_range
from kernelgen.macros import MACRO_VARIANTS, fam_macro, fam_macro_buffer_only
from kernelgen.pipelines import PIPE_VARIANTS, fam_pipe
from kernelgen.projects import HELPER_VARIANTS, HOME_VARIANTS, as_project
from kernelgen.projects import MACRO_VARIANTS as PROJECT_MACRO_VARIANTS
from kernelgen.tileops import TILEOP_VARIANTS, fam_tileop

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
        return fam_macro_buffer_only(ctx)
    if family == "macro" and variant is None and ctx.rng.random() < 0.06:
        ctx.tag("macro:par-body:buffer-only")
        return fam_macro_buffer_only(ctx)
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


def generate_projects(seed: int, count: int) -> list[tuple[str, dict[str, str], list[str]]]:
    """`count` packages `pNNNN/` (see kernelgen/projects.py), from their own random stream so
    that the single-file kernels stay the same; macros are drawn twice as often, so that they
    have macros to move."""
    rng = random.Random(seed * 7919 + 1)
    out = []
    for index, (_, text, tags) in enumerate(generate(seed + 1, count, macro_share=0.5)):
        package = f"p{index:04d}"
        files, variants = as_project(text, package, random.Random(rng.getrandbits(64)))
        out.append((package, files, tags + variants))
    return out


def generate_conditioned(seed: int, count: int) -> list[tuple[str, str, list[str]]]:
    """`count` files `cNNNN.py` of the conditions family (kernelgen/conditions.py), from their own
    random stream: every variant once, then random ones; one snippet each, sometimes wrapped."""
    rng = random.Random(seed * 104729 + 3)
    variants = condition_queue(rng)
    out = []
    for index in range(count):
        ctx = Ctx(random.Random(rng.getrandbits(64)))
        variant = variants.pop() if variants else ctx.rng.choice(COND_VARIANTS)
        snippet = fam_cond(ctx, variant)
        if ctx.rng.random() < 0.2:
            snippet = _wrap_outer(ctx, snippet)
        out.append((f"c{index:04d}.py", with_preamble(render(ctx, [snippet], seed, index)), ctx.tags))
    return out


def generate(seed: int, count: int, macro_share: float = 0.0) -> list[tuple[str, str, list[str]]]:
    rng = random.Random(seed)
    queue = coverage_queue(rng)
    fams = list(FAMILY_WEIGHTS)
    weights = [FAMILY_WEIGHTS[f] for f in fams]
    out = []
    for index in range(count):
        krng = random.Random(rng.getrandbits(64))
        ctx = Ctx(krng)
        picks: list[tuple[str, str | None]] = []
        if macro_share and krng.random() < macro_share:
            picks.append(("macro", krng.choice(MACRO_VARIANTS)))
        elif queue:
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
    ap.add_argument("--projects", type=int, default=120, help="multi-file projects pNNNN/ to write as well")
    ap.add_argument(
        "--conditions",
        type=int,
        default=60,
        help="kernels cNNNN.py under Python-level conditions to write as well",
    )
    ap.add_argument("--keep", action="store_true", help="do not delete existing k*.py files in --out")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if out.exists() and not args.keep:
        for p in [*out.glob("k*.py"), *out.glob("c[0-9]*.py")]:
            p.unlink()
        for p in out.glob("p[0-9]*/*.py"):
            p.unlink()
    out.mkdir(parents=True, exist_ok=True)
    files = generate(args.seed, args.count)
    manifest = {}
    for name, text, tags in files:
        (out / name).write_text(text)
        manifest[name] = tags
    conditioned = generate_conditioned(args.seed, args.conditions)
    for name, text, tags in conditioned:
        (out / name).write_text(text)
        manifest[name] = tags
    for package, project_files, tags in generate_projects(args.seed, args.projects):
        for relative, text in project_files.items():
            (out / package).mkdir(exist_ok=True)
            (out / package / relative).write_text(text)
        manifest[f"{package}/kernel.py"] = tags
    all_variants = {f"{fam}:{v}" for fam, (_, vs) in FAMILIES.items() for v in vs}
    all_variants |= {f"helper:{v}" for v in HELPER_VARIANTS} | {f"home:{v}" for v in HOME_VARIANTS}
    all_variants |= {f"macros:{v}" for v in PROJECT_MACRO_VARIANTS} if args.projects else set()
    all_variants |= {f"cond:{v}" for v in COND_VARIANTS} if args.conditions else set()
    covered = {t for tags in manifest.values() for t in tags}
    missing = sorted(v for v in all_variants if not any(t.startswith(v) for t in covered))
    (out / "manifest.json").write_text(
        json.dumps(
            {"seed": args.seed, "count": args.count, "files": manifest, "uncovered_variants": missing},
            indent=1,
        )
    )
    print(
        f"[oracle/generate] wrote {len(files)} kernels, {len(conditioned)} under conditions and "
        f"{args.projects} projects to {out} (seed {args.seed}); "
        f"{len(all_variants) - len(missing)}/{len(all_variants)} template variants covered"
    )
    if missing:
        print(f"[oracle/generate] uncovered: {', '.join(missing)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
