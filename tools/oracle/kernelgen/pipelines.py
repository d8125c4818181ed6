"""The pipeline family: `T.Pipelined`, pipeline annotations and `T.Persistent`, inside and outside `T.Parallel`."""

from __future__ import annotations

from .context import Ctx, indent

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
