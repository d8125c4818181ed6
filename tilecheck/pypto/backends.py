"""What the PyPTO checks ask of a backend profile: can it run hierarchical (nested) pipelines?

The answer comes from tilecheck's backend profiles (`tilecheck/backends/`, selected with
`--backend` or `backend = ...` in the configuration). Without a backend the check is
target-agnostic: PyPTO's own pass lowers nested pipelines (inner before outer), so nesting is
accepted.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilecheck.backends import Profile, get_profile
from tilecheck.backends import names as profile_names

DEFAULT = "pypto"


@dataclass(frozen=True)
class Capabilities:
    name: str
    hierarchical_pipelines: bool


def names() -> list[str]:
    return list(profile_names())


def capabilities(backend: object | None) -> Capabilities:
    """The capabilities of a profile (or a profile name; KeyError when unknown)."""
    if backend is None:
        return Capabilities(DEFAULT, hierarchical_pipelines=True)
    profile = backend if isinstance(backend, Profile) else get_profile(str(backend))
    return Capabilities(profile.name, profile.hierarchical_pipelines)
