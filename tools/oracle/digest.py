"""What identifies a kernel file's verdict, for both sides of the oracle (stdlib only).

A file of a generated project (`pNNNN/kernel.py`) imports helper modules of its package, so
its verdict depends on them too: its digest covers every `.py` file of its top-level package.
Helper modules start with `_` (and `__init__.py`); they are not kernel files themselves.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def package_root(path: Path) -> Path | None:
    """The top-level package folder holding `path`, or None for a plain module."""
    folder = path.resolve().parent
    if not (folder / "__init__.py").is_file():
        return None
    while (folder.parent / "__init__.py").is_file():
        folder = folder.parent
    return folder


def sha256_file(path: str | Path) -> str:
    path = Path(path)
    digest = hashlib.sha256(path.read_bytes())
    root = package_root(path)
    if root is not None:
        for helper in sorted(root.rglob("*.py")):
            if helper.resolve() != path.resolve():
                digest.update(str(helper.relative_to(root)).encode() + b"\0" + helper.read_bytes())
    return digest.hexdigest()


def is_kernel_file(path: Path) -> bool:
    return not path.name.startswith("_")
