"""Print `tilecheck/tilelang/signatures.py` from the installed TileLang (run with the oracle's Python).

    .oracle-venv/bin/python tools/oracle/signatures.py > tilecheck/tilelang/signatures.py
    ruff format tilecheck/tilelang/signatures.py

The table lists the loop constructors and tile operators tilecheck models; a TileLang function
that takes `**kwargs` stops the script (its keywords could not be checked).
"""

from __future__ import annotations

import inspect
import sys

NAMES = [
    "Parallel",
    "parallel",
    "Pipelined",
    "Persistent",
    "serial",
    "Serial",
    "unroll",
    "Unroll",
    "vectorized",
    "Vectorized",
    "grid",
    "thread_binding",
    "fill",
    "clear",
    "reduce",
    "reduce_sum",
    "reduce_max",
    "reduce_min",
    "reduce_abssum",
    "reduce_absmax",
    "reduce_bitand",
    "reduce_bitor",
    "reduce_bitxor",
    "cumsum",
    "cummax",
    "gemm",
    "gemm_sp",
    "gemm_blockscaled",
    "wgmma_gemm",
    "wgmma_gemm_sp",
    "tcgen05_gemm",
    "tcgen05_gemm_sp",
    "tcgen05_gemm_blockscaled",
    "async_copy",
    "tma_copy",
    "tma_gather4",
    "tma_scatter4",
    "transpose",
    "im2col",
    "c2d_im2col",
    "reducer_init",
    "finalize_reducer",
    "copy",
    "atomic_add",
    "atomic_max",
    "atomic_min",
]

HEADER = '''"""The call signatures of TileLang {version}'s loop constructors and tile operators.

Read from the installed `tilelang=={version}` with `inspect.signature` (regenerate with
`tools/oracle/signatures.py`) and kept here as data: tilecheck never imports TileLang. A
call these signatures do not accept raises `TypeError` when the kernel is built.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Signature:
    positional: tuple[str, ...]  # positional-or-keyword parameters, in order
    keyword_only: tuple[str, ...] = ()
    variadic: bool = False  # *extents

    def accepts(self, keyword: str) -> bool:
        return keyword in self.positional or keyword in self.keyword_only

    @property
    def max_positional(self) -> int | None:
        return None if self.variadic else len(self.positional)


VERSION = "{version}"

# `import tilelang.language as T` re-exports the CUDA dialect in {version}; these are its
# signatures. Other dialects (`tilelang.rocm.language`, `tilelang.ascend.language`) differ.
DEFAULT_DIALECTS = ("tilelang.language.", "tilelang.cuda.language.")

# API name (as `T.<name>`) -> its signature.
SIGNATURES: dict[str, Signature] = {{'''


def main() -> int:
    import tilelang  # type: ignore[import-not-found]  # only in the oracle's venv
    import tilelang.language as T  # type: ignore[import-not-found]  # only in the oracle's venv

    print(HEADER.format(version=tilelang.__version__))
    for name in NAMES:
        positional, keyword_only, variadic = [], [], False
        for parameter in inspect.signature(getattr(T, name)).parameters.values():
            if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
                positional.append(parameter.name)
            elif parameter.kind is parameter.KEYWORD_ONLY:
                keyword_only.append(parameter.name)
            elif parameter.kind is parameter.VAR_POSITIONAL:
                variadic = True
            else:
                print(f"T.{name} takes **{parameter.name}: its keywords cannot be checked", file=sys.stderr)
                return 1
        parts = [repr(tuple(positional))]
        if keyword_only:
            parts.append(f"keyword_only={tuple(keyword_only)!r}")
        if variadic:
            parts.append("variadic=True")
        print(f'    "{name}": Signature({", ".join(parts)}),')
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
