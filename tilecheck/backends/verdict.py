"""What the selected backend does with a pipeline-requested loop, decided and worded in one
place: `nested-pipeline-unsupported` (TL201) reports from `nesting_pipeline`, and
`tilecheck explain` and the language server's loop hover state `pipeline_verdict`, so a
verdict can never call planned a pipeline that TL201 says is lowered serially.

Not imported by `tilecheck.backends` itself: it needs the kernel model, which `tilecheck
backends` does not.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from tilecheck.backends.profile import Profile
from tilecheck.core.registry import rule_reporting
from tilecheck.tilelang.model import Item, Loop, Request, walk
from tilecheck.tilelang.queries import parallel_ancestors

if TYPE_CHECKING:
    from tilecheck.lint.context import Context


class BackendProblem(enum.Enum):
    """What the verdict decides that a rule reports (the rule declares it: `REPORTS`)."""

    NESTED_PIPELINE = "nested-pipeline-unsupported"


# A profile without `nested_behaviour` still says `hierarchical_pipelines = false`.
_NO_NESTED_PLANNING = "the backend does not plan nested software pipelines"


def certain_request(loop: Loop, ancestors: tuple[Item, ...]) -> bool:
    """A certain pipeline-requested loop on a certain path outside any `T.Parallel` loop
    (inside one, pipeline-in-parallel applies instead)."""
    return (
        loop.pipeline is not None
        and loop.pipeline.state is Request.REQUESTED
        and loop.certain
        and all(ancestor.certain for ancestor in ancestors)
        and not parallel_ancestors(ancestors)
    )


def nesting_pipeline(profile: Profile, loop: Loop, ancestors: tuple[Item, ...]) -> Loop | None:
    """The nearest enclosing loop whose pipeline `profile` plans, when `profile` would plan
    `loop`'s too but cannot plan nested pipelines (TL201's finding); otherwise None."""
    if (
        profile.hierarchical_pipelines
        or not certain_request(loop, ancestors)
        or not profile.plans(loop.pipeline)
    ):
        return None
    return next(
        (
            item
            for item in reversed(ancestors)
            if isinstance(item, Loop) and item.pipeline is not None and profile.plans(item.pipeline)
        ),
        None,
    )


def nested_pipelines(profile: Profile, loop: Loop, ancestors: tuple[Item, ...]) -> list[Loop]:
    """The loops under `loop` whose `nesting_pipeline` is `loop`."""
    if profile.hierarchical_pipelines or not profile.plans(loop.pipeline):
        return []
    return [
        item
        for item, path in walk(loop.body, (*ancestors, loop))
        if isinstance(item, Loop) and nesting_pipeline(profile, item, path) is loop
    ]


def pipeline_verdict(ctx: Context, profile: Profile, loop: Loop, ancestors: tuple[Item, ...]) -> str:
    """What `profile`'s backend does with `loop`'s pipeline request (`ancestors`: the items
    enclosing it, outermost first), e.g. `planned`, `num_stages=3 ignored`, or why a nested
    pipeline is not supported."""
    request = loop.pipeline
    if request is None or request.state is not Request.REQUESTED:
        return "no pipeline requested"
    behaviour = profile.nested_behaviour or _NO_NESTED_PLANNING
    outer = nesting_pipeline(profile, loop, ancestors)
    if outer is not None:
        return (
            "nested pipelines are not supported: this loop is nested in the pipelined loop at "
            f"{_where(ctx, outer)}; {behaviour} ({_nested_code()})"
        )
    inner = _distinct(ctx, nested_pipelines(profile, loop, ancestors))
    if inner:
        loops = "loop" if len(inner) == 1 else "loops"
        verb = "is" if len(inner) == 1 else "are"
        return (
            f"nested pipelines are not supported: the pipelined {loops} at {' and '.join(inner)} "
            f"{verb} nested in this one; {behaviour} ({_nested_code()})"
        )
    dropped = profile.dropped(request)
    if dropped:
        return ", ".join(f"{what} {how}" for what, how in dropped)
    return "planned" if profile.plans(request) else "not planned"


def _nested_code() -> str:
    return rule_reporting(BackendProblem.NESTED_PIPELINE).CODE


def _where(ctx: Context, loop: Loop) -> str:
    """`line 19 (`T.Pipelined(4, num_stages=2)`; in macro `inner`, line 7)`."""
    line = ctx.line_of(loop.site.report_node, loop.site.report_top)
    header = ctx.text(loop.call if loop.call is not None else loop.site.node, 50)
    macro = ctx.macro_note(loop.site).strip()[1:-1]  # ` (in macro `m`, line 7)` without its parentheses
    return f"line {line} (`{header}`{'; ' + macro if macro else ''})"


def _distinct(ctx: Context, loops: list[Loop]) -> list[str]:
    """Where each loop is, once per place (copies made by Python-level unrolling share it)."""
    places: list[str] = []
    for loop in loops:
        place = _where(ctx, loop)
        if place not in places:
            places.append(place)
    return places
