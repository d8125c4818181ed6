"""tilecheck: static semantic checks for TileLang and PyPTO kernel loops.

The public API for rule authors and tools; everything else is internal. Names are
imported on first use, so `tilecheck --version` stays fast.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing costs `--version` ~5 ms

__version__ = "0.1.0"

_EXPORTS = {
    "Rule": "tilecheck.core.rule",
    "Valid": "tilecheck.core.rule",
    "Invalid": "tilecheck.core.rule",
    "Checklist": "tilecheck.core.rule",
    "Context": "tilecheck.lint.context",
    "Grade": "tilecheck.core.types",
    "Severity": "tilecheck.core.types",
    "Span": "tilecheck.core.types",
    "Edit": "tilecheck.core.types",
    "Fix": "tilecheck.core.types",
    "Diagnostic": "tilecheck.core.types",
    "check_source": "tilecheck.lint.engine",
    "check_file": "tilecheck.lint.engine",
    "apply_fixes": "tilecheck.lint.fixes",
    "example_cases": "tilecheck.lint.testing",
    "documentation_problems": "tilecheck.lint.testing",
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
    from tilecheck.core.rule import Checklist, Invalid, Rule, Valid
    from tilecheck.core.types import Diagnostic, Edit, Fix, Grade, Severity, Span
    from tilecheck.lint.context import Context
    from tilecheck.lint.engine import check_file, check_source
    from tilecheck.lint.fixes import apply_fixes
    from tilecheck.lint.testing import documentation_problems, example_cases


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tilecheck' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
