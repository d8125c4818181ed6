"""libcst's parser without validating the nodes it builds (a fifth of a parse's work), and
without cyclic garbage collection meanwhile (`source.collection`).

Every libcst node validates itself when it is built (`CSTNode.__post_init__` runs `_validate`:
whitespace patterns, parentheses, identifiers), though a parse builds only valid nodes
(libcst's comment on that hook says as much); measured as instructions executed, validation
was 21 % of parsing eight of the shared corpus's GEMM examples. The hook this module puts in
place of `CSTNode.__post_init__` skips validation only for nodes built on a thread inside
`parse_module`: a node built anywhere else (a fix's, a rewrite's, another thread's, or by
`libcst.parse_module` called directly) is validated exactly as before. The hook relies on a
libcst detail (not public API), checked for the pinned libcst range in tests/test_libcst_pin.py;
should `CSTNode` validate some other way, nothing is hooked and parses validate again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import libcst as cst

from tilecheck.source.collection import paused

__all__ = ["HOOKED", "parse_module"]

_thread = threading.local()  # `parsing`: this thread is inside `parse_module`


def _install_hook() -> Callable[[cst.CSTNode], None] | None:
    """The hook on `CSTNode` (installed the first time), or None when this libcst validates
    some other way (then nothing is changed)."""
    original = cst.CSTNode.__dict__.get("__post_init__")
    if getattr(original, "tilecheck_hook", False):
        return original  # this module was imported again
    code = getattr(original, "__code__", None)
    if original is None or code is None or "_validate" not in code.co_names:
        return None

    def post_init(node: cst.CSTNode) -> None:
        if not getattr(_thread, "parsing", False):
            original(node)

    post_init.tilecheck_hook = True  # type: ignore[attr-defined]  # marks the hook as installed
    setattr(cst.CSTNode, "__post_init__", post_init)  # noqa: B010  # a method mypy sees as fixed
    return post_init


HOOKED = _install_hook() is not None


def parse_module(text: str) -> cst.Module:
    """`libcst.parse_module(text)`: the same tree, or the same error; except that valid Python
    whose nodes libcst's validation wrongly refuses (`() if 0 else(lambda: ())`, LibCST issue
    #1061: no space after `else`) gets its tree, which gives the text back exactly."""
    inside = getattr(_thread, "parsing", False)
    try:
        _thread.parsing = True
        with paused():
            return cst.parse_module(text)
    finally:
        _thread.parsing = inside
