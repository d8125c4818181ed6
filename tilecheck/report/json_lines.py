"""`json-lines`: one JSON object per diagnostic per line (the `json` format's objects)."""

from __future__ import annotations

import json
from typing import TextIO

from tilecheck.report import Run
from tilecheck.report.json import as_dict


def render(run: Run, out: TextIO) -> None:
    for diagnostic in run.diagnostics:
        out.write(json.dumps(as_dict(diagnostic), ensure_ascii=False, separators=(",", ":")) + "\n")
