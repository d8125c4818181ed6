from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Grade, Severity
from tilecheck.tilelang.model import Loop, Site, Stmt
from tilecheck.tilelang.queries import kernel_items
from tilecheck.tilelang.signatures import CHECKED, DEFAULT_DIALECTS, Signature, signature
from tilecheck.tilelang.versions import names

from .._examples import KERNEL

if TYPE_CHECKING:
    import libcst as cst

    from tilecheck.lint.context import Context


class UnexpectedKeywordArgument(Rule):
    """A loop constructor or tile operator called with arguments the project's TileLang does not accept.

    ## What it does
    Checks every call of a loop constructor (`T.Pipelined`, `T.Parallel`, `T.serial`,
    `T.unroll`, `T.vectorized`, `T.grid`, `T.Persistent`, `T.thread_binding`) and of a tile
    operator (`T.copy`, `T.gemm`, `T.fill`, `T.reduce_*`, `T.atomic_*`, ...) inside a kernel
    against the signature it has in each TileLang release the project uses
    (`tilelang-version`, else the project's declared `tilelang` requirement, else the
    supported releases), and reports a keyword argument the function does not take, or more
    positional arguments than it takes. It is an error when every release in range rejects
    the call, and a note naming the releases that reject it otherwise (and when the
    project pins a release tilecheck has not measured, such as the next one: its signatures
    are not known, so the nearest measured release's verdict is only a note).

    ## Why is this bad?
    The kernel is built by calling these Python functions, so the call raises `TypeError`
    (for example `Pipelined() got an unexpected keyword argument 'group'`) and nothing is
    built, for every target. Such keywords usually come from code written for another
    TileLang release: `T.Pipelined` takes `sync=` and `group=` up to 0.1.14 and neither in
    0.1.15 ([`tilelang/language/loop.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/language/loop.py)),
    and `T.gemm` takes `k_pack=` up to 0.1.14. The signatures are measured from each release
    (`tilecheck/tilelang/versions_data.py`).

    ## Example
    ```python
    for k in T.Pipelined(K, num_stages=2, group=[[0], [1, 2]]):
        ...
    ```

    ## Use instead
    ```python
    for k in T.Pipelined(K, num_stages=2):
        ...
    ```
    (or declare the TileLang versions whose `T.Pipelined` takes `group`, e.g.
    `tilelang-version = "<0.1.15"`).

    ## Backends
    All, and with no backend selected: the call fails while the kernel is built, before any
    target is chosen. Calls with `*args` or `**kwargs` are not checked, nor calls into other
    dialects than `tilelang.language` (e.g. `tilelang.ascend.language`, whose `T.gemm` takes
    other keywords).
    """

    CODE = "TL210"
    NAME = "unexpected-keyword-argument"
    GRADE = Grade.SEMANTIC
    HELP = "Remove the argument, or use (and declare) a TileLang version that accepts it."
    CHECKLIST = Checklist(
        grade="Semantic: the Python call raises TypeError in the releases that reject it, so no kernel is "
        "built; a note when only some releases in range reject it.",
        shape="A call of a loop constructor or tile operator inside a kernel, with a keyword its "
        "signature lacks or too many positional arguments.",
        smallest_invalid="`for k in T.Pipelined(8, group=[[0]]): ...`",
        closest_valid="`for k in T.Pipelined(8, num_stages=2): ...`",
        siblings="Per call.",
        neutral_wrappers="No: the call itself fails, wherever it is.",
        generated_ir="None: the call fails before any IR exists.",
        proof="Proven from the call's syntax and each release's measured signature; calls with *args or "
        "**kwargs are skipped.",
        first_pass="The Python call itself, while the eager builder runs the kernel function.",
        rewrite="Drop the argument, or change the TileLang version.",
    )
    VALID = [
        Valid(KERNEL + "        for k in T.Pipelined(8, num_stages=2):\n            B[k, 0] = A[k, 0]\n"),
        Valid(KERNEL + "        T.copy(A, B, coalesced_width=4)\n"),
        Valid(KERNEL + "        for i in T.Parallel(64, 64, coalesced_width=4):\n            B[i, 0] = 0\n"),
        Valid(
            KERNEL.replace("import tilelang.language as T", "import tilelang.ascend.language as T")
            + "        T.gemm(A, B, A, unit_flag_ctrl=1)\n"
        ),
        Valid(KERNEL + "        options = {'group': [[0]]}\n        for k in T.Pipelined(8, **options):\n"
              "            B[k, 0] = A[k, 0]\n"),
    ]  # fmt: skip
    INVALID = [
        Invalid(
            KERNEL + "        for k in T.Pipelined(8, num_stages=2, group=[[0], [1]]):\n"
            "            B[k, 0] = A[k, 0]\n            B[k, 1] = A[k, 1]\n",
            at=((7, 47),),
            message="`T.Pipelined()` got an unexpected keyword argument `group` in TileLang 0.1.15",
        ),
        Invalid(
            KERNEL + "        for k in T.Pipelined(8, sync=True):\n            B[k, 0] = A[k, 0]\n",
            at=((7, 33),),
            message="unexpected keyword argument `sync`",
        ),
        Invalid(
            KERNEL + "        T.copy(A, B, transpose=True)\n",
            at=((7, 22),),
            message="`T.copy()` got an unexpected keyword argument `transpose`",
        ),
        Invalid(
            KERNEL + "        T.copy(A, B, 4)\n",
            at=((7, 22),),
            message="`T.copy()` takes at most 2 positional arguments but 3 were given",
        ),
    ]

    def check(self, ctx: Context) -> None:
        versions = ctx.tilelang.versions
        unmeasured = ctx.tilelang.stand_in_for
        for api, call, site in _calls(ctx):
            if api not in CHECKED or any(arg.star for arg in call.args) or not _default_dialect(ctx, call):
                continue
            local = any(statement is site.top for statement in ctx.module.body)
            for arg, message, rejecting in _verdicts(api, call, versions):
                severity = None
                if rejecting == versions and unmeasured is not None:
                    # Signatures change between releases (`group=` left `T.Pipelined` in 0.1.15 and is
                    # back on TileLang's main branch): not proven for a release nobody measured.
                    severity = Severity.INFO
                    message += (
                        f" in TileLang {names(rejecting)}; not proven for `{unmeasured}`, "
                        "which tilecheck has not measured"
                    )
                elif rejecting == versions:
                    message += f" in TileLang {names(rejecting)}"
                else:  # some releases in range take it (or do not define the function)
                    severity = Severity.INFO
                    others = [version for version in versions if version not in rejecting]
                    verb = "does" if len(others) == 1 else "do"
                    message += f" in TileLang {names(rejecting)}; {names(others)} {verb} not reject it"
                if local:  # at the argument, in a macro too: written once, however often it is called
                    ctx.report_at(ctx.span(arg, site.top), message, severity=severity)
                else:  # a macro from another module: at the call site here
                    ctx.report(site, message + ctx.macro_note(site), severity=severity)


def _calls(ctx: Context) -> Iterator[tuple[str, cst.Call, Site]]:
    """Every loop-constructor and operator call of the kernels, once per call site."""
    import libcst as cst  # here, not at the top: importing a rule stays free of libcst

    seen: set[tuple[int, int]] = set()
    for item, _ in kernel_items(ctx.model.kernels):
        found: list[tuple[str, cst.Call, Site]] = []
        if isinstance(item, Loop) and item.call is not None and item.api.startswith("T."):
            found.append((item.api[2:], item.call, item.site))
        elif isinstance(item, Stmt):
            found.extend(
                (op.api, op.site.node, op.site) for op in item.calls if isinstance(op.site.node, cst.Call)
            )
        for api, call, site in found:
            key = (id(call), id(site.report_node))
            if key not in seen:
                seen.add(key)
                yield api, call, site


def _default_dialect(ctx: Context, call: cst.Call) -> bool:
    """Whether `call` is to `tilelang.language` (the CUDA dialect facade the table records).

    Other dialects (`tilelang.ascend.language`) have other signatures: they are not checked.
    """
    qualified = ctx.imports.qualify(call.func)
    if qualified is not None:
        return qualified.startswith(DEFAULT_DIALECTS)
    return "tilelang.ascend" not in ctx.source  # imported inside a function: the only dialect in the file


def _verdicts(
    api: str, call: cst.Call, versions: tuple[str, ...]
) -> Iterator[tuple[cst.Arg, str, tuple[str, ...]]]:
    """Each argument some release in `versions` rejects: the message (in the newest rejecting
    release's words) and the releases that reject it, oldest first."""
    found: dict[int, tuple[cst.Arg, str, list[str]]] = {}
    for version in versions:
        measured = signature(version, api)
        if measured is None:  # not defined in this release: another error than this one
            continue
        for arg, message in _problems(api, call, measured):
            _, _, rejecting = found.setdefault(id(arg), (arg, message, []))
            found[id(arg)] = (arg, message, [*rejecting, version])
    for arg, message, rejecting in sorted(found.values(), key=lambda item: call.args.index(item[0])):
        yield arg, message, tuple(rejecting)


def _problems(api: str, call: cst.Call, signature: Signature) -> Iterator[tuple[cst.Arg, str]]:
    positional = [arg for arg in call.args if arg.keyword is None]
    limit = signature.max_positional
    if limit is not None and len(positional) > limit:
        yield (
            positional[limit],
            f"`T.{api}()` takes at most {limit} positional arguments but {len(positional)} were given",
        )
    for arg in call.args:
        if arg.keyword is not None and not signature.accepts(arg.keyword.value):
            yield arg, f"`T.{api}()` got an unexpected keyword argument `{arg.keyword.value}`"
