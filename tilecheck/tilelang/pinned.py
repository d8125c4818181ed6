"""Kernels whose `@tilelang.jit(target="...")` names the target they are compiled for.

`tilelang.jit(target="hip")` or `target="cuda -arch=sm_90a"` on a factory (or on an eager
kernel) fixes the target whatever GPU the process sees (`tilelang/jit/__init__.py`); `"auto"`
(the default) does not. A size judged for another profile than that target says nothing about
the kernel, so such a kernel is not sized there.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tilecheck.tilelang.model import Kernel

if TYPE_CHECKING:
    from tilecheck.backends.profile import Profile

# The first word of a TVM target string, as a profile's `backend` names it.
_KINDS = {
    "cuda": "cuda",
    "nvidia": "cuda",
    "hip": "rocm",
    "rocm": "rocm",
    "metal": "metal",
    "webgpu": "webgpu",
}
_ARCH = re.compile(r"-(?:arch|mcpu)=(\S+)")


def pinned_target(kernel: Kernel) -> str | None:
    """The literal `target=` of a `@...jit(...)` decorator on the kernel or a function around
    it, None when there is none (or it is `"auto"`, or not a literal)."""
    import libcst as cst  # here: importing the rules must not import libcst

    from tilecheck.tilelang.syntax import nested_statements, string_literal

    for statement in nested_statements([kernel.top]):  # statements only: cheap
        if not isinstance(statement, cst.FunctionDef):
            continue
        if not any(inner is kernel.node for inner in nested_statements([statement])):
            continue
        for decorator in statement.decorators:
            call = decorator.decorator
            if not isinstance(call, cst.Call) or not _ends_with_jit(call.func):
                continue
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "target":
                    text = string_literal(arg.value)
                    if text is not None and text.strip() and text.strip() != "auto":
                        return text.strip()
    return None


def targets_profile(target: str, profile: Profile) -> bool:
    """Whether a pinned target string is (or may be) `profile`'s target: the same backend, and
    the same architecture when both name one."""
    words = target.lower().split()
    kind = _KINDS.get(words[0]) if words else None
    if kind != profile.backend:
        return False
    pinned, own = _ARCH.search(target), _ARCH.search(profile.target)
    return pinned is None or own is None or _family(pinned.group(1)) == _family(own.group(1))


def _family(arch: str) -> str:
    """`sm_90a` and `sm_90` (the arch-specific and family suffixes lower alike here): `sm_90`."""
    return re.sub(r"^(sm_\d+)[af]$", r"\1", arch)


def _ends_with_jit(node: object) -> bool:
    import libcst as cst

    if isinstance(node, cst.Attribute):
        return node.attr.value in ("jit", "lazy_jit")
    return isinstance(node, cst.Name) and node.value in ("jit", "lazy_jit")
