"""The errors tilecheck reports to its user (exit status 2), in one module that imports nothing.

Configuration, plugins and backend profiles raise these; front ends catch `TilecheckError`.
Keeping them here lets `config`, `plugins` and `backends` use each other's errors without
importing each other.
"""

from __future__ import annotations


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
