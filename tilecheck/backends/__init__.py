"""Backend capability profiles (`tilecheck.backends.profile`): what each TileLang backend does
with a pipeline request. The shipped profiles are data in `profiles/*.toml`."""

from tilecheck.backends.profile import (
    FIELDS,
    IGNORED,
    MANUAL_MODES,
    NUM_STAGES_MODES,
    PLANNED,
    REJECTED,
    STRIPPED,
    Profile,
    describe_request,
    get_profile,
    load_profiles,
    names,
    profile_of,
    shipped,
)
from tilecheck.core.errors import ProfileError

__all__ = [
    "FIELDS",
    "IGNORED",
    "MANUAL_MODES",
    "NUM_STAGES_MODES",
    "PLANNED",
    "REJECTED",
    "STRIPPED",
    "Profile",
    "ProfileError",
    "describe_request",
    "get_profile",
    "load_profiles",
    "names",
    "profile_of",
    "shipped",
]
