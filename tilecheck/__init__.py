"""tilecheck: static semantic checks for TileLang and PyPTO kernel loops.

The public API for rule authors and tools; everything else is internal. Names are
imported on first use, so `tilecheck --version` stays fast.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs `--version` ~5 ms

__version__ = "0.1.0"

_EXPORTS = {
    "Rule": "tilecheck.rule",
    "Valid": "tilecheck.rule",
    "Invalid": "tilecheck.rule",
    "Checklist": "tilecheck.rule",
    "Context": "tilecheck.context",
    "Grade": "tilecheck.types",
    "Severity": "tilecheck.types",
    "Span": "tilecheck.types",
    "Edit": "tilecheck.types",
    "Fix": "tilecheck.types",
    "Diagnostic": "tilecheck.types",
    "check_source": "tilecheck.engine",
    "check_file": "tilecheck.engine",
    "apply_fixes": "tilecheck.fixes",
    "example_cases": "tilecheck.testing",
    "documentation_problems": "tilecheck.testing",
}
__all__ = [
    "Checklist",
    "Context",
    "Diagnostic",
    "Edit",
    "Fix",
    "Grade",
    "Invalid",
    "Rule",
    "Severity",
    "Span",
    "Valid",
    "__version__",
    "apply_fixes",
    "check_file",
    "check_source",
    "documentation_problems",
    "example_cases",
]

if TYPE_CHECKING:
    from tilecheck.context import Context
    from tilecheck.engine import check_file, check_source
    from tilecheck.fixes import apply_fixes
    from tilecheck.rule import Checklist, Invalid, Rule, Valid
    from tilecheck.testing import documentation_problems, example_cases
    from tilecheck.types import Diagnostic, Edit, Fix, Grade, Severity, Span


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tilecheck' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
