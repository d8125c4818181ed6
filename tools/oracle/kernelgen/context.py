"""Assembly state of one generated kernel file: name pools, declarations, tags."""

from __future__ import annotations

import random
from collections.abc import Callable

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

    def macro(self, key: str, pool: list[str], make: Callable[[str], list[str]]) -> str:
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
