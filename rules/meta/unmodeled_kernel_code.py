from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from tilecheck.core.meta import Problem
from tilecheck.core.rule import Invalid, Rule, Valid
from tilecheck.core.types import Grade, Severity, Span
from tilecheck.source import python_ast
from tilecheck.source.kernel_code import construct_lines, may_hold_tilelang
from tilecheck.tilelang.language import TILELANG_PACKAGES
from tilecheck.tilelang.model import FileModel

from ._kernel_constructs import constructs, tops_at

if TYPE_CHECKING:
    import libcst as cst

    from tilecheck.lint.context import Context

_MAX_LISTED = 5


class UnmodeledKernelCode(Rule):
    """TileLang kernel code that tilecheck did not check.

    ## What it does
    Reports, once per file, the `@T.prim_func` kernels and the `T.Kernel`, `T.Pipelined`
    and `T.Parallel` constructs that lie outside every kernel tilecheck modeled, and says
    why when it knows: the name `T` does not resolve to `tilelang.language` (imported from a
    module tilecheck could not follow: not in the project, unreadable, too large, not
    parsable, or more imports away than tilecheck follows; the note names it), or the
    construct is in a plain Python function, which tilecheck does not follow into. A kernel
    that calls a name imported from a project module tilecheck could not follow (a macro in an
    unparsable `common.py`) gets the note too, at the first call. It is a note: nothing is wrong with the code, but no
    rule looked at it, so a clean report says nothing about it.

    ## Why is this bad?
    A checker that prints "All checks passed!" about code it never read gives false
    confidence. TileLang builds these loops when the kernel is built; tilecheck can only
    check what its model of TileLang's frontend reaches.

    ## Example
    ```python
    from .tilelang_utils import T   # a module tilecheck cannot find or read

    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        ...
    ```

    ## Use instead
    ```python
    import tilelang.language as T
    ```
    in the kernel's module; for a loop in a plain helper function the kernel calls, make the helper
    a `@T.macro` (TileLang inlines it, and tilecheck checks it there). Or keep the note: it is
    information, not an error.

    ## Backends
    All. Reported by the engine's model coverage, whatever the backend.
    """

    CODE = "TL006"
    NAME = "unmodeled-kernel-code"
    GRADE = Grade.META
    REPORTS = Problem.UNMODELED_KERNEL_CODE
    SEVERITY = Severity.INFO
    HELP = "Import TileLang as `import tilelang.language as T` where the kernel is defined, and write kernels as `@T.prim_func` functions or `@T.macro` helpers."
    VALID = [
        Valid('import tilelang.language as T\n\n\n@T.prim_func\ndef main(A: T.Tensor((8,), "float32")):\n'
              "    with T.Kernel(1) as bx:\n        for i in T.Parallel(8):\n            A[i] = 0\n"),
        Valid("from joblib import Parallel\n\nParallel(n_jobs=2)\n"),
        Valid("from tvm.script import tir as T\n\n\n@T.prim_func\ndef main(A: T.Buffer((8,), 'float32')):\n"
              "    for i in T.serial(8):\n        A[i] = 0\n"),
        Valid('"""Example: `@T.prim_func` and `T.Parallel(8)` in a docstring."""\n'),
    ]  # fmt: skip
    INVALID = [
        Invalid(
            'from mypkg.tl_utils import T\n\n\n@T.prim_func\ndef main(A: T.Tensor((8,), "float32")):\n'
            "    with T.Kernel(1) as bx:\n        A[0] = 0\n",
            at=((4, 2),),
            message="it comes from `mypkg.tl_utils`, which tilecheck could not follow (no such file in the project)",
        ),
        Invalid(
            "from mylib import my_wrap\nimport tilelang.language as T\n\n\n@my_wrap\ndef main(A):\n"
            "    with T.Kernel(1) as bx:\n        A[0] = 0\n",
            at=((7, 10),),
            message="`main` is decorated with `@my_wrap`, which tilecheck does not understand",
        ),
        Invalid(
            'from .tilelang_utils import T\n\n\n@T.prim_func\ndef main(A: T.Tensor((8,), "float32")):\n'
            "    with T.Kernel(1) as bx:\n        for i in T.Parallel(8):\n            A[i] = 0\n",
            at=((4, 2),),
            message="TileLang code that tilecheck did not check: `T.prim_func` at line 4, `T.Kernel` at line 6 "
            "and `T.Parallel` at line 7 (`T` is not resolved to `tilelang.language`: it comes from "
            "`.tilelang_utils`, which tilecheck could not follow (no such file in the project))",
        ),
        Invalid(
            'import tilelang.language as T\n\n\ndef fill(A):\n    for i in T.Parallel(8):\n        A[i] = 0\n\n\n'
            '@T.prim_func\ndef main(A: T.Tensor((8,), "float32")):\n    with T.Kernel(1) as bx:\n        fill(A)\n',
            at=((5, 14),),
            message="`T.Parallel` at line 5 (it is in `fill`, a plain Python function, which tilecheck does "
            "not follow into)",
        ),
    ]  # fmt: skip

    def check(self, ctx: Context) -> None:
        hits = construct_lines(ctx.source) if may_hold_tilelang(ctx.source) else []
        if not hits:
            return
        tree = ctx.python_tree
        if tree is None:
            return
        covered = _covered_lines(ctx, ctx.model)
        if all(line in covered for line in hits):
            _report_unfollowed_calls(ctx, tree, covered)
            return  # the common case: every construct is in a modeled kernel
        uncovered = [line for line in hits if line not in covered]
        found = [item for item in constructs(ctx.source, tops_at(tree, uncovered)) if item[1] not in covered]
        signals = {alias for alias, _, _, api, _ in found if api in ("prim_func", "Kernel")}
        found = [item for item in found if _is_tilelang(ctx, item[0], signals)]
        if not found:
            _report_unfollowed_calls(ctx, tree, covered)
            return
        names = sorted({alias for alias, _, _, _, _ in found})
        parts = [f"`{alias}.{api}` at line {line}" for alias, line, _, api, _ in found[:_MAX_LISTED]]
        more = f" and {len(found) - _MAX_LISTED} more" if len(found) > _MAX_LISTED else ""
        listed = (
            (", ".join(parts[:-1]) + " and " + parts[-1]) if len(parts) > 1 and not more else ", ".join(parts)
        )
        reasons = [_reason(ctx, alias) for alias in names]
        plain = sorted({where[6:] for *_, where in found if where and where.startswith("plain:")})
        macros = sorted({where[6:] for *_, where in found if where and where.startswith("macro:")})
        decorated = sorted(
            {tuple(where.split(":")[1:3]) for *_, where in found if where and where.startswith("decorated:")}
        )
        for name, decorator in decorated:
            reasons.append(f"`{name}` is decorated with `@{decorator}`, which tilecheck does not understand")
        if plain:
            reasons.append(
                f"it is in {_names(plain)}, a plain Python function, which tilecheck does not follow into"
            )
        if macros:
            reasons.append(
                f"it is in macro {_names(macros)}, which no kernel tilecheck modeled in this file calls; a "
                "macro is checked where a kernel calls it"
            )
        why = "; ".join(reason for reason in reasons if reason) or (
            "it is not in a kernel tilecheck recognises: a `@T.prim_func` function, a `@T.macro` it calls, "
            "or a `@tilelang.jit` function that opens `with T.Kernel(...)`"
        )
        _, line, column, _, _ = found[0]
        resolved = not any(reasons[: len(names)])  # each alias is TileLang's: importing it is not the fix
        help = None
        if plain and not decorated and resolved:
            help = _PLAIN_HELPER_HELP.format(names=_names(plain))
        elif macros and not decorated and resolved:
            help = _UNCALLED_MACRO_HELP
        ctx.report_at(
            Span.point(line, column),
            f"TileLang code that tilecheck did not check: {listed}{more} ({why})",
            help=help,
        )


def _report_unfollowed_calls(ctx: Context, tree: ast.Module, covered: set[int]) -> None:
    """Calls in modeled kernels whose callee, a macro perhaps, was not checked: names imported
    from project modules tilecheck could not follow (`from .common import load_tile`,
    `common.py` unparsable; `bad.broken(f)`), and attributes of `self` whose value it does not
    know (`self.loader(f)` after `self.loader = make_loader(3)`)."""
    unresolved = {
        name: why
        for name, why in ctx.imports.unresolved.items()
        # a project module tilecheck could not read; not a plain function of one it did read
        if why.unfollowed_module
    }
    calls = sorted(
        (node.lineno, node.col_offset, name)
        for node in (ast.walk(tree) if unresolved else ())
        if isinstance(node, ast.Call)
        and (name := python_ast.dotted_name(node.func)) is not None
        and name.split(".", 1)[0] in unresolved  # `broken(f)`, `bad.broken(f)`
        and node.lineno in covered
    )
    heads = sorted({name.split(".", 1)[0] for *_, name in calls})
    reasons = [f"`{head}` comes from {unresolved[head]}" for head in heads]
    stored = []
    for site, name in ctx.model.unfollowed:
        if site.path is None and name:
            span = ctx.span(site.report_node, site.report_top)
            stored.append((span.line, span.column, name))
    if stored:
        attributes = sorted({name for *_, name in stored})
        reasons.append(
            f"{_names(attributes)} is an attribute whose value tilecheck does not know; a macro stored "
            "on `self` is not inlined"
        )
    calls = sorted(set(calls) | set(stored))
    if not calls:
        return
    line, column, _ = calls[0]
    names = sorted({name for *_, name in calls})
    parts = [f"`{name}` (line {min(ln for ln, _, n in calls if n == name)})" for name in names]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    help = (
        "Call the macro by a name bound at module level or in the factory (`loader = make_loader(3)`), "
        "which tilecheck inlines"
        if stored and not heads
        else None
    )
    ctx.report_at(
        Span.point(line, column),
        f"TileLang code that tilecheck did not check: what the kernel calls as {listed} ({'; '.join(reasons)})",
        help=help,
    )


def _covered_lines(ctx: Context, model: FileModel) -> set[int]:
    """The lines of every modeled kernel and inlined macro, read from CPython's tree: locating the
    CST functions would regenerate their whole top-level statements (slow on large test files)."""
    lines: set[int] = set()
    added: set[tuple[int, str]] = set()  # a macro called many times is added once

    def add(function: cst.FunctionDef, top: cst.CSTNode) -> None:
        statement = ctx.locator.python_statement(top)
        if statement is None:  # a kernel tilecheck read from elsewhere: locate it the slow way
            span = ctx.span(function, top)
            lines.update(range(span.line - len(function.decorators), span.end_line + 1))
            return
        key = (id(statement), function.name.value)
        if key in added:
            return
        added.add(key)
        for node in python_ast.nested_statements(statement):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function.name.value:
                start = python_ast.first_line(node)
                lines.update(range(start, (node.end_lineno or node.lineno) + 1))

    for kernel in model.kernels:
        add(kernel.node, kernel.top)
        for call in kernel.macro_calls:
            if call.path is None:  # a macro of another project module covers no line here
                add(call.definition, call.definition_top)
    return lines


_PLAIN_HELPER_HELP = (
    "Make {names} a `@T.macro`, which TileLang inlines into the kernel that calls it (and tilecheck "
    "checks there); or move its loops into the `@T.prim_func`."
)
_UNCALLED_MACRO_HELP = (
    "Nothing to change here: check the files whose kernels call the macro (or the factory that "
    "returns it); tilecheck checks a macro's body inlined at each call, as TileLang builds it."
)


def _is_tilelang(ctx: Context, alias: str, signals: set[str]) -> bool:
    """`alias` is TileLang's language module, or unresolved in a file whose uses of it only
    TileLang code writes (`@alias.prim_func`, `alias.Kernel(...)`)."""
    qualified = _qualified(ctx, alias)
    if qualified is not None:
        if qualified.split(".", 1)[0] in ("tilelang", "tvm"):
            return qualified in TILELANG_PACKAGES  # not `tilelang.language.dtypes`, not TVM script
        return alias in signals  # a project module that re-exports TileLang (`from mypkg.tl import T`)
    origin = _import_origin(ctx.source, alias)
    if origin is not None and origin.split(".", 1)[0] == "tvm":
        return False  # TVM script's own `prim_func` (`from tvm.script import tir as T`)
    return alias in signals


def _qualified(ctx: Context, alias: str) -> str | None:
    found = ctx.imports.lookup(alias)
    return found if isinstance(found, str) else None


def _reason(ctx: Context, alias: str) -> str:
    qualified = _qualified(ctx, alias)
    if qualified in TILELANG_PACKAGES:
        return ""
    unresolved = ctx.imports.unresolved.get(alias)
    if unresolved is not None:  # a project import tilecheck followed as far as it could
        return f"`{alias}` is not resolved to `tilelang.language`: it comes from {unresolved}"
    through = ctx.imports.unresolved_reason(alias) if "." in alias else None
    if through is not None:  # `utils.T`, `nothere.T`: through a module attribute
        return f"`{alias}` is not resolved to `tilelang.language`: {through}"
    origin = _import_origin(ctx.source, alias)
    if qualified is not None and "." not in qualified:
        # `import numpy as T` in the helper the kernel takes `T` from
        where = f", imported from `{origin}`" if origin is not None and origin != qualified else ""
        return f"`{alias}` is `{qualified}`{where}, not TileLang's `tilelang.language`"
    if qualified is not None and not qualified.startswith(("tilelang.", "tvm.")):
        return (
            f"`{alias}` is not resolved to `tilelang.language`: it stands for `{qualified}`, which "
            "tilecheck does not find in the project"
        )
    if origin is None:
        return f"`{alias}` is not resolved to `tilelang.language`"
    if origin.startswith("tilelang"):
        return (
            f"`{alias}` is imported from `{origin}` only inside a function or a conditional branch (`if`), "
            "where tilecheck does not resolve imports"
        )
    return f"`{alias}` is not resolved to `tilelang.language`: it comes from `{origin}`, which tilecheck does not read"


def _import_origin(source: str, alias: str) -> str | None:
    """The module an import statement anywhere in the file (a function, a `try:`) binds `alias` from."""
    name = re.escape(alias)
    match = re.search(rf"^\s*from\s+(\S+)\s+import\s+[^\n]*\b{name}\b", source, re.MULTILINE) or re.search(
        rf"^\s*import\s+(\S+)\s+as\s+{name}\b", source, re.MULTILINE
    )
    return match.group(1) if match else None


def _names(functions: list[str]) -> str:
    quoted = [f"`{name}`" for name in functions]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
