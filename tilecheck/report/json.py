"""A JSON array of diagnostics (1-based lines and columns), sorted and deterministic."""

from __future__ import annotations

import json
from typing import TextIO

from tilecheck.core.codec import encode
from tilecheck.core.types import Diagnostic
from tilecheck.report import Run, data_path


def as_dict(diagnostic: Diagnostic) -> dict[str, object]:
    return encode(diagnostic, data_path(diagnostic.path), data_path)


def render(run: Run, out: TextIO) -> None:
    json.dump([as_dict(d) for d in run.diagnostics], out, indent=2, ensure_ascii=False)
    out.write("\n")
