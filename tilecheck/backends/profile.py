"""Backend capability profiles: what each TileLang backend does with a pipeline request.

A profile is data: one TOML file per shipped profile in `tilecheck/backends/profiles/`, each
value commented with the reference fact it comes from. Users add or override profiles in
their configuration, one table per profile::

    [backends.my-npu]              # tilecheck.toml  ([tool.tilecheck.backends.my-npu] in pyproject.toml)
    base = "ascend"                # start from another profile (shipped or user-defined)
    manual_schedule = "planned"    # then override any field
    description = "Ascend with manual order/stage support"

    [backends.cuda-sm80]           # a table named like a shipped profile overrides its fields
    hierarchical_pipelines = true

A profile without `base` must give every required field. Fields (see `FIELDS`):

- `description` (string), `backend` (TileLang backend name), `target` (TVM target string);
- `software_pipelining` (bool): the backend plans software pipelines at all;
- `num_stages`: `"planned"`, `"stripped"` (removed without a warning) or `"ignored"` (never read);
- `manual_schedule` (`order`/`stage`): `"planned"`, `"ignored"` or `"rejected"` (the build fails);
- `hierarchical_pipelines` (bool): nested requested pipelines are planned at both levels;
- `async_copy`, `warp_specialization`, `vectorize_innermost_only` (bool);
- `manual_rejected_with` (optional): the name of a scope API (`"Stage"` for `T.Stage`) that,
  used directly in the loop body, turns an ignored manual schedule into a build error;
- `shared_memory_per_block` (optional integer, bytes): the most shared memory (dynamic and
  static together; LDS on HIP, threadgroup memory on Metal, workgroup storage on WebGPU) one
  thread block may use on the target (left out when unknown: 0 is refused for a CUDA or HIP
  profile, where it would turn the check off); with `shared_memory_source`, where that number
  is published (a derived profile that sets the budget without a source says the configuration
  set it). Only the backends in `BUDGET_BACKENDS` take a budget; TL501 sizes CUDA and HIP
  (`SIZED_BACKENDS`), while on Metal and WebGPU the budget is shown and `explain` says why
  the kernels are not sized; a budget on any other backend is refused;
- `static_shared_memory_per_block` (optional integer, bytes; CUDA only): the most static
  `__shared__` memory one kernel may declare, which ptxas enforces at compile time (48 KiB on
  the targets TileLang compiles with a plain `-arch=sm_XY`); with
  `static_shared_memory_source`. Left out: not checked;
- optional texts used in messages: `drop_reason`, `drop_effect` (what a dropped request
  becomes), `nested_behaviour` (what happens to nested pipelines), `manual_rejection` and
  `manual_stage_rejection` (the backend's errors for `order` and `stage`).

`get_profile(name, overrides)` resolves a name (`KeyError` when unknown, `ProfileError` when a
definition is invalid); `load_profiles(overrides)` returns every profile.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, fields
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from tilecheck.core.errors import ProfileError

if TYPE_CHECKING:  # the model imports libcst: `tilecheck backends` needs neither
    from tilecheck.tilelang.model import PipelineRequest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PLANNED = "planned"
STRIPPED = "stripped"
IGNORED = "ignored"
REJECTED = "rejected"

NUM_STAGES_MODES = (PLANNED, STRIPPED, IGNORED)
SIZED_BACKENDS = ("cuda", "rocm")  # TL501 sizes their kernels (tilecheck.tilelang.shared_memory)
BUDGET_BACKENDS = (*SIZED_BACKENDS, "metal", "webgpu")  # a published per-block limit is known
MANUAL_MODES = (PLANNED, IGNORED, REJECTED)


@dataclass(frozen=True, eq=False)
class Profile:
    """What one backend does with loops; see the module documentation for the fields.

    A profile compares equal to its name (and to a profile of the same name), so code that
    stores backend names keeps working when it receives profiles.
    """

    name: str
    description: str
    backend: str
    target: str
    software_pipelining: bool
    num_stages: str
    manual_schedule: str
    hierarchical_pipelines: bool
    async_copy: bool
    warp_specialization: bool
    vectorize_innermost_only: bool
    drop_reason: str = ""
    drop_effect: str = "the loop runs serially"
    nested_behaviour: str = ""
    manual_rejected_with: str = ""
    manual_rejection: str = ""
    manual_stage_rejection: str = ""
    shared_memory_per_block: int = 0  # bytes; 0: no budget known
    shared_memory_source: str = ""
    static_shared_memory_per_block: int = 0  # bytes; 0: not checked
    static_shared_memory_source: str = ""
    origin: str = "shipped"  # "shipped", or where a user definition came from

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Profile):
            return self.name == other.name
        if isinstance(other, str):
            return self.name == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return self.name

    # -- what the rules ask ---------------------------------------------------------

    def honours_stages(self) -> bool:
        return self.num_stages == PLANNED

    def honours_manual(self) -> bool:
        return self.manual_schedule == PLANNED

    def plans(self, request: PipelineRequest | None) -> bool:
        """Whether this backend plans (some schedule of) a pipeline-requested loop.

        A manual schedule counts only with both `order` and `stage`: PipelinePlanning takes
        its manual branch only then (pipeline_planning.cc:1087), and that branch runs before
        num_stages is read, so on hip-gfx942 a complete manual schedule survives.
        """
        from tilecheck.tilelang.model import Request

        if request is None or request.state is not Request.REQUESTED:
            return False
        manual = request.has_order and request.has_stage
        return (request.requests_stages and self.num_stages == PLANNED) or (
            manual and self.manual_schedule == PLANNED
        )

    def dropped(self, request: PipelineRequest | None) -> list[tuple[str, str]]:
        """The parts of a requested schedule this backend drops: (what, "ignored"/"stripped").

        Nothing is dropped when the backend plans the loop anyway. A lone `order` or `stage`
        is not listed here: every backend ignores it (see malformed-pipeline-schedule).
        """
        from tilecheck.tilelang.model import Request

        if request is None or request.state is not Request.REQUESTED or self.plans(request):
            return []
        parts: list[tuple[str, str]] = []
        if request.requests_stages and self.num_stages in (IGNORED, STRIPPED):
            parts.append((describe_request(request, "stages"), self.num_stages))
        if request.has_order and request.has_stage and self.manual_schedule == IGNORED:
            parts.append((describe_request(request, "manual"), IGNORED))
        return parts

    def capabilities(self) -> dict[str, object]:
        data = asdict(self)
        data.pop("origin")
        return data


def describe_request(request: PipelineRequest, part: str | None = None) -> str:
    """`num_stages=3`, `the manual schedule order=[0, 1], stage=[0, 1]`, ... for messages.

    `part` is "stages", "manual" or None (everything requested).
    """
    pieces: list[str] = []
    if part in (None, "stages") and request.requests_stages:
        for reason in request.reasons:
            if "num_stages" in reason:
                pieces.append(reason)
    if part in (None, "manual") and request.requests_manual:
        manual: list[str] = []
        for name, values in (("order", request.order_values), ("stage", request.stage_values)):
            present = request.has_order if name == "order" else request.has_stage
            if present:
                manual.append(f"{name}={list(values)}" if values is not None else f"{name}=[...]")
        pieces.append(("the manual schedule " if part == "manual" else "") + ", ".join(manual))
    return " and ".join(pieces)


# field name -> (python type, required, allowed values)
FIELDS: dict[str, tuple[type, bool, tuple[str, ...]]] = {
    "description": (str, True, ()),
    "backend": (str, True, ()),
    "target": (str, True, ()),
    "software_pipelining": (bool, True, ()),
    "num_stages": (str, True, NUM_STAGES_MODES),
    "manual_schedule": (str, True, MANUAL_MODES),
    "hierarchical_pipelines": (bool, True, ()),
    "async_copy": (bool, True, ()),
    "warp_specialization": (bool, True, ()),
    "vectorize_innermost_only": (bool, True, ()),
    "drop_reason": (str, False, ()),
    "drop_effect": (str, False, ()),
    "nested_behaviour": (str, False, ()),
    "manual_rejected_with": (str, False, ()),
    "manual_rejection": (str, False, ()),
    "manual_stage_rejection": (str, False, ()),
    "shared_memory_per_block": (int, False, ()),
    "shared_memory_source": (str, False, ()),
    "static_shared_memory_per_block": (int, False, ()),
    "static_shared_memory_source": (str, False, ()),
}
_TYPE_NAMES = {str: "a string", bool: "a boolean", int: "a non-negative integer"}


@cache
def shipped() -> dict[str, Profile]:
    """The profiles shipped as package data, by name (the file name without `.toml`)."""
    found: dict[str, Profile] = {}
    folder = resources.files("tilecheck.backends") / "profiles"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        name = entry.name[: -len(".toml")]
        data = tomllib.loads(entry.read_text(encoding="utf-8"))
        found[name] = _build(name, data, None, f"profiles/{entry.name}", "shipped")
    return found


def names(overrides: dict[str, dict[str, object]] | None = None) -> tuple[str, ...]:
    """Shipped profile names in a stable order, then user-defined ones."""
    order = (
        "cuda-sm80",
        "cuda-sm86",
        "cuda-sm87",
        "cuda-sm89",
        "cuda-sm90",
        "cuda-sm100",
        "cuda-sm120",
        "hip-gfx942",
        "hip-gfx950",
        "cpu",
        "metal",
        "webgpu",
        "ascend",
    )
    known = list(shipped())
    result = [n for n in order if n in known] + sorted(n for n in known if n not in order)
    result += sorted(n for n in (overrides or {}) if n not in result)
    return tuple(result)


def load_profiles(overrides: dict[str, dict[str, object]] | None = None) -> dict[str, Profile]:
    """Every profile: the shipped ones, overridden and extended by `overrides`.

    `overrides` maps a profile name to a table of fields (the configuration's `[backends.NAME]`
    tables). A table may name a `base` profile to start from; a table named like a shipped
    profile starts from it. Raises `ProfileError` for an invalid table.
    """
    result = dict(shipped())
    tables = dict(overrides or {})
    resolving: list[str] = []

    def resolve(name: str) -> Profile:
        if name in resolving:
            raise ProfileError(
                f"backend `{name}`: `base` chain is circular ({' -> '.join([*resolving, name])})"
            )
        if name not in tables:
            if name in result:
                return result[name]
            raise ProfileError(f"unknown base backend `{name}`")
        resolving.append(name)
        table = dict(tables.pop(name))
        if not isinstance(table, dict):
            raise ProfileError(f"backend `{name}` must be a table")
        base_name = table.pop("base", None)
        base: Profile | None = None
        if base_name is not None:
            if not isinstance(base_name, str):
                raise ProfileError(f"backend `{name}`: `base` must be a string")
            if base_name == name:
                base = shipped().get(name)
                if base is None:
                    raise ProfileError(f"backend `{name}`: `base` names itself")
            else:
                base = resolve(base_name)
        elif name in shipped():
            base = shipped()[name]
        profile = _build(name, table, base, f"backend `{name}`", "configuration")
        resolving.pop()
        result[name] = profile
        return profile

    for name in list(tables):
        if name in tables:
            resolve(name)
    return result


def get_profile(name: str, overrides: dict[str, dict[str, object]] | None = None) -> Profile:
    """The profile called `name` (shipped or defined in `overrides`); `KeyError` when unknown."""
    if not overrides:
        profiles = shipped()
    else:
        profiles = load_profiles(overrides)
    if name not in profiles:
        raise KeyError(name)
    return profiles[name]


def profile_of(backend: object) -> Profile | None:
    """The profile a rule should use for `ctx.backend` (a Profile, a shipped name, or None)."""
    if backend is None or isinstance(backend, Profile):
        return backend
    if isinstance(backend, str):
        return shipped().get(backend)
    return None


def _build(name: str, data: dict[str, object], base: Profile | None, where: str, origin: str) -> Profile:
    values: dict[str, object] = {}
    if base is not None:
        values = {f.name: getattr(base, f.name) for f in fields(Profile) if f.name not in ("name", "origin")}
    for key, value in data.items():
        spec = FIELDS.get(key)
        if spec is None:
            known = ", ".join(["base", *FIELDS])
            raise ProfileError(f"{where}: unknown field `{key}` (known: {known})")
        kind, _, allowed = spec
        wrong = not isinstance(value, kind)
        if kind is int and (isinstance(value, bool) or (isinstance(value, int) and value < 0)):
            wrong = True  # a TOML boolean is a Python int; a budget is never negative
        if wrong:
            raise ProfileError(f"{where}: `{key}` must be {_TYPE_NAMES[kind]}, got {value!r}")
        if allowed and value not in allowed:
            raise ProfileError(
                f"{where}: `{key}` must be one of {', '.join(map(repr, allowed))}, got {value!r}"
            )
        values[key] = value
    if data.get("shared_memory_per_block") == 0 and values.get("backend", "cuda") in SIZED_BACKENDS:
        # 0 means "budget unknown": set by hand it would silently turn the TL501 check off.
        raise ProfileError(
            f"{where}: `shared_memory_per_block` must be the target's budget in bytes, not 0 (0 would "
            "turn the shared-memory check off; leave the field out to keep the base profile's budget)"
        )
    if base is not None and "shared_memory_per_block" in data and "shared_memory_source" not in data:
        # The base's source vouches for the base's number, not for this one.
        values["shared_memory_source"] = f"set in the configuration ({where})"
    if (
        base is not None
        and "static_shared_memory_per_block" in data
        and "static_shared_memory_source" not in data
    ):
        values["static_shared_memory_source"] = f"set in the configuration ({where})"
    if values.get("static_shared_memory_per_block") and values.get("backend", "cuda") != "cuda":
        raise ProfileError(
            f"{where}: `static_shared_memory_per_block` is ptxas's limit and is used only by CUDA profiles; "
            f"backend `{values.get('backend')}` would ignore it (remove it)"
        )
    if values.get("shared_memory_per_block") and values.get("backend", "cuda") not in BUDGET_BACKENDS:
        raise ProfileError(
            f"{where}: `shared_memory_per_block` is used only by CUDA, HIP, Metal and WebGPU profiles; tilecheck "
            f"does not size shared memory for backend `{values.get('backend')}`, so the budget would be ignored "
            '(remove it, or base the profile on one that takes a budget, such as `base = "cuda-sm80"`)'
        )
    missing = [key for key, (_, required, _) in FIELDS.items() if required and key not in values]
    if missing:
        raise ProfileError(
            f"{where}: missing field{'s' if len(missing) > 1 else ''} {', '.join(f'`{m}`' for m in missing)} "
            "(give them, or name a `base` profile to start from)"
        )
    return Profile(name=name, origin=origin, **values)  # type: ignore[arg-type]  # each value checked against its field above
