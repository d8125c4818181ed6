"""Multi-file projects: a generated kernel rewritten to take what it uses from its package.

`as_project` turns one generated kernel file into a package `pNNNN/` whose `kernel.py` gets
TileLang's module (and, when it can, its macros) from helper modules, the way real projects
write it. Helper modules start with `_` (the oracle checks `kernel.py` only):

- how `kernel.py` gets `T` (`helper:*`): `from ._tl import T`; `_tl.py` importing it under
  `try:`/`except ImportError: T = None`; re-exported by the package's `__init__.py` and imported
  absolutely (`from pNNNN import T`); as a module attribute (`import pNNNN._tl as tlu`, then
  `tlu.T.Parallel`); or returned by a lazy loader (`tilelang, T = load_tilelang()`).
- where the factory lives (`home:*`): a module-level function, or a method of a class (`class
  Builder: def make_kernel(self, ...)`, `KERNEL = Builder().make_kernel(...)`).
- where the macros live (`macros:*`): in the factory, moved to `_common.py` and imported
  (`from ._common import fill_row`), or made there by a factory function (`fill_row =
  make_fill_row()` in the kernel's factory). Only macros that read nothing of the factory move.
"""

from __future__ import annotations

import random
import re

HELPER_VARIANTS = ["relative", "try", "reexport", "module-attr", "loader"]
HOME_VARIANTS = ["function", "method"]
MACRO_VARIANTS = ["in-factory", "imported", "factory-made"]

_IMPORT = re.compile(r"^(?:import tilelang\.language as|from tilelang import language as) (\w+)$", re.M)


def as_project(text: str, package: str, rng: random.Random) -> tuple[dict[str, str], list[str]]:
    """The files of the package (relative paths) and the variant tags."""
    match = _IMPORT.search(text)
    assert match is not None, "every generated kernel imports tilelang.language"
    alias = match.group(1)
    helper = rng.choice(HELPER_VARIANTS)
    home = rng.choice(HOME_VARIANTS)
    macros = rng.choice(MACRO_VARIANTS)
    files: dict[str, str] = {"__init__.py": ""}
    lines = text.splitlines()
    moved, lines = _move_macros(lines, alias) if macros != "in-factory" else ([], lines)
    if not moved:
        macros = "in-factory"
    if moved:
        common = [f"import tilelang.language as {alias}", "", ""]
        imported = []
        for name, block in moved:
            if macros == "imported":
                common += [*block, "", ""]
                imported.append(name)
            else:
                common += [f"def make_{name}():", *("    " + ln if ln else ln for ln in block),
                           "", f"    return {name}", "", ""]  # fmt: skip
                imported.append(f"make_{name}")
        files["_common.py"] = "\n".join(common).rstrip() + "\n"
        start = lines.index(next(ln for ln in lines if ln.startswith("def make_kernel(")))
        if macros == "factory-made":
            made = [f"    {name} = make_{name}()" for name, _ in moved]
            lines[start + 1 : start + 1] = [*made, ""]
        lines[start:start] = [f"from ._common import {', '.join(imported)}", "", ""]
    text = "\n".join(lines) + "\n"
    text = _IMPORT.sub(_import_line(helper, alias, package), text, count=1)
    if helper != "loader":  # the kernel file need not name tilelang at all
        text = text.replace("\nimport tilelang\n", "\n", 1)
    if helper == "module-attr":
        head, _, body = text.partition("def make_kernel(")
        text = head + "def make_kernel(" + re.sub(rf"(?<![\w.]){alias}\.", f"tlu.{alias}.", body)
    files["_tl.py"] = _tl_module(helper, alias)
    if helper == "reexport":
        files["__init__.py"] = f"from ._tl import {alias}\n"
    if helper == "loader":
        files["_loader.py"] = (
            "def load_tilelang():\n    import tilelang\n"
            f"    import tilelang.language as {alias}\n\n    return tilelang, {alias}\n"
        )
    if home == "method":
        text = _as_method(text)
    files["kernel.py"] = text
    return files, [f"helper:{helper}", f"home:{home}", f"macros:{macros}"]


def _import_line(helper: str, alias: str, package: str) -> str:
    if helper in ("relative", "try"):
        return f"from ._tl import {alias}"
    if helper == "reexport":
        return f"from {package} import {alias}"
    if helper == "module-attr":
        return f"import {package}._tl as tlu"
    return f"from ._loader import load_tilelang\n\ntilelang, {alias} = load_tilelang()"


def _tl_module(helper: str, alias: str) -> str:
    if helper == "try":
        return f"try:\n    import tilelang.language as {alias}\nexcept ImportError:\n    {alias} = None\n"
    return f"import tilelang.language as {alias}\n"


def _move_macros(lines: list[str], alias: str) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """The factory's macros that read no name of the factory, moved out (dedented)."""
    start = next(i for i, ln in enumerate(lines) if ln.startswith("def make_kernel("))
    end = next(i for i, ln in enumerate(lines) if ln.strip() == f"@{alias}.prim_func")
    factory_names = set(re.findall(r"(\w+)=", lines[start]))
    blocks: list[tuple[int, int, str]] = []
    i = start + 1
    while i < end:
        if lines[i] == f"    @{alias}.macro" and lines[i + 1].startswith("    def "):
            j = i + 2
            while j < end and (lines[j].startswith("        ") or not lines[j].strip()):
                j += 1
            header = re.match(r"    def (\w+)\(", lines[i + 1])
            assert header is not None  # a macro's def line, which this file generates
            name = header.group(1)
            blocks.append((i, j, name))
            i = j
        else:
            for name in re.findall(r"^    (\w+) = ", lines[i]):
                factory_names.add(name)
            i += 1
    factory_names |= {name for _, _, name in blocks}
    moved: list[tuple[str, list[str]]] = []
    keep = list(lines)
    for i, j, name in reversed(blocks):
        body = "\n".join(lines[i + 2 : j])
        words = set(re.findall(r"\b\w+\b", body))
        if words & (factory_names - {name}):
            continue
        block = [ln[4:] for ln in lines[i:j]]
        while block and not block[-1].strip():
            block.pop()
        moved.insert(0, (name, block))
        del keep[i:j]
    return moved, keep


def _as_method(text: str) -> str:
    """`def make_kernel(...)` as a method of `Builder`; the module-level call goes through it."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("def make_kernel("))
    end = next(i for i, ln in enumerate(lines) if ln.startswith("KERNEL = make_kernel("))
    header = lines[start].replace("def make_kernel(", "def make_kernel(self, ").replace("(self, )", "(self)")
    body = [("    " + ln) if ln.strip() else ln for ln in lines[start + 1 : end]]
    lines[start:end] = ["class Builder:", "    " + header, *body]
    text = "\n".join(lines) + "\n"
    return text.replace("KERNEL = make_kernel(", "KERNEL = Builder().make_kernel(")
