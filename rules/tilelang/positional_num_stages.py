from __future__ import annotations

from typing import TYPE_CHECKING

from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
from tilecheck.core.types import Edit, Fix, Grade
from tilecheck.tilelang.model import Loop, LoopKind
from tilecheck.tilelang.queries import kernel_items

from .._examples import KERNEL

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class PositionalNumStages(Rule):
    """`T.Pipelined(start, stop, n)`: the third positional argument is `num_stages`, not a step.

    ## What it does
    Reports a `T.Pipelined` call with a third positional argument and suggests writing it as
    `num_stages=...`. The fix rewrites it (safe: same meaning).

    ## Why is this bad?
    `T.Pipelined(0, 8, 2)` reads like `range(0, 8, 2)` but is the loop `0..7` with
    `num_stages=2` ([`tilelang/language/loop.py`](https://github.com/tile-ai/tilelang/blob/v0.1.15/tilelang/language/loop.py), verified with
    TileLang 0.1.15): `T.Pipelined` has no step. Readers, reviewers and TileLang's own
    loop-nesting scanner ([`scan_loop_nesting.py`](https://github.com/tile-ai/tilelang/blob/6ebc5ba7fe821832b0e49d699396a02b14d80a4b/.agents/skills/tilelang-semantic/scripts/scan_loop_nesting.py), which
    ignores positional arguments) miss
    the pipeline request.

    ## Example
    ```python
    for k in T.Pipelined(0, 8, 2):
        ...
    ```

    ## Use instead
    ```python
    for k in T.Pipelined(0, 8, num_stages=2):
        ...
    ```

    ## Fix
    `tilecheck --fix` writes the third argument as `num_stages=`. The fix is safe: it
    changes how the call reads, not what TileLang builds.

    ## Backends
    All, and with no backend selected: the signature is the same everywhere.
    """

    CODE = "TL302"
    NAME = "positional-num-stages"
    GRADE = Grade.OPTIMIZATION
    HELP = "Write the pipeline depth as a keyword: `T.Pipelined(start, stop, num_stages=n)`."
    CHECKLIST = Checklist(
        grade="Optimization-grade hint: the code is valid and means num_stages; only readability is at stake.",
        shape="A T.Pipelined call with three or more positional arguments.",
        smallest_invalid="`for k in T.Pipelined(0, 8, 2): ...`",
        closest_valid="`for k in T.Pipelined(0, 8, num_stages=2): ...`",
        siblings="Per call.",
        neutral_wrappers="No.",
        generated_ir="Only user-written calls.",
        proof="Proven: the argument position is syntactic.",
        first_pass="None (a readability hint).",
        rewrite="num_stages=n as a keyword argument.",
    )
    VALID = [Valid(KERNEL + "        for k in T.Pipelined(0, 8, num_stages=2):\n            B[k, 0] = 0\n")]
    INVALID = [
        Invalid(
            KERNEL + "        for k in T.Pipelined(0, 8, 2):\n            B[k, 0] = 0\n",
            at=((7, 18),),
            message="num_stages=2",
            fixed=KERNEL + "        for k in T.Pipelined(0, 8, num_stages=2):\n            B[k, 0] = 0\n",
        ),
    ]

    def check(self, ctx: Context) -> None:
        for item, _ in kernel_items(ctx.model.kernels):
            if not isinstance(item, Loop) or item.kind is not LoopKind.PIPELINED or item.pipeline is None:
                continue
            if not item.pipeline.num_stages_positional or item.call is None:
                continue
            positional = [arg for arg in item.call.args if arg.keyword is None and not arg.star]
            value = positional[2].value
            text = ctx.text(value, 40)
            fix = None
            named = any(
                arg.keyword is not None and arg.keyword.value == "num_stages" for arg in item.call.args
            )
            if len(positional) == 3 and not item.site.origin and not named:  # else a repeated keyword
                edit = Edit(ctx.span(value, item.site.top), f"num_stages={ctx.module.code_for_node(value)}")
                fix = Fix(f"Write `num_stages={text}`", (edit,), safe=True)
            ctx.report(
                item.site,
                f"The third positional argument of `T.Pipelined` is `num_stages`, not a step: write "
                f"`num_stages={text}`{ctx.macro_note(item.site)}",
                fix=fix,
            )
