"""Backend capabilities the PyPTO lowering asks about, kept in one place.

This is a stand-in for tilecheck's backend profiles: when they exist, `capabilities()` should
read them instead. The only question the PyPTO checks ask today is whether a backend runs
hierarchical (nested) software pipelines; PyPTO's own pass lowers nested pipelines (inner
before outer), so the default profile says yes.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT = "pypto"


@dataclass(frozen=True)
class Capabilities:
    name: str
    hierarchical_pipelines: bool


_PROFILES = {
    "pypto": Capabilities("pypto", hierarchical_pipelines=True),
    # A profile for targets that schedule one pipeline level only (used to exercise the gate).
    "pypto-flat": Capabilities("pypto-flat", hierarchical_pipelines=False),
}


def names() -> list[str]:
    return sorted(_PROFILES)


def capabilities(name: str | None) -> Capabilities:
    """The profile called `name` (the default when None); KeyError when unknown."""
    return _PROFILES[name or DEFAULT]
