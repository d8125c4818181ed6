"""PyPTO support: the DSL model, the LowerPipelineLoops lowering and its pre-lowering checks.

The names below are imported on first use: the PyPTO rules' module (`rulebase`) is imported
with every rule, and a TileLang-only check should not pay for the lowering machinery.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False

__all__ = ["LowerResult", "check_module", "check_pypto_source", "lower_source"]

if TYPE_CHECKING:
    from tilecheck.pypto.api import LowerResult, check_module, check_pypto_source, lower_source


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module 'tilecheck.pypto' has no attribute {name!r}")
    return getattr(importlib.import_module("tilecheck.pypto.api"), name)
