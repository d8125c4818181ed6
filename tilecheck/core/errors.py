"""The errors tilecheck reports to its user (exit status 2), in one module that imports nothing.

Configuration, plugins and backend profiles raise these; front ends catch `TilecheckError`.
Keeping them here lets `config`, `plugins` and `backends` use each other's errors without
importing each other.
"""

from __future__ import annotations

import errno


class TilecheckError(Exception):
    """A problem tilecheck reports in one line and exits 2 for (never a traceback)."""


class UsageError(TilecheckError):
    """A bad command line: unknown option value, missing path, conflicting flags."""


class ConfigError(TilecheckError):
    """A configuration problem; the message names the file and the key."""


class PluginError(ConfigError):
    """A plugin could not be loaded or defines a malformed rule."""


class ProfileError(ConfigError, ValueError):
    """An invalid backend profile definition (unknown field, wrong type, missing field, bad base)."""


class Abandoned(BaseException):
    """The question being answered was abandoned by whoever asked it (the editor's worker raises
    it from a signal: a newer text or a close superseded the check); never a plugin's failure."""


def looks_like_failed_allocation(error: BaseException) -> bool:
    """Whether an error is what an allocation that failed looks like under an address-space
    limit (RLIMIT_AS): CPython raises MemoryError, native code may return NULL without an
    exception (SystemError), the OS refuses a directory read or a library's mapping (ENOMEM).
    Only where a memory limit is in force is it the budget's verdict rather than a bug."""
    if isinstance(error, (MemoryError, SystemError)):
        return True
    if isinstance(error, OSError) and error.errno == errno.ENOMEM:
        return True
    message = str(error)
    return isinstance(error, ImportError) and (
        "failed to map segment" in message or "Cannot allocate memory" in message
    )
