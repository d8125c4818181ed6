"""The TOML reader, imported where a file is parsed: `tomllib` (and the `datetime` it loads)
would cost every run, also one that finds no configuration file."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["tomllib"]
