"""Whether the report is coloured: `--color auto|always|never`, then `NO_COLOR`, then
`FORCE_COLOR`, then whether the output is a terminal (CPython's own order for its colours)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import TextIO

CHOICES = ("auto", "always", "never")


def add_color_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--color",
        choices=CHOICES,
        default="auto",
        help="colour the report: auto (a terminal, unless NO_COLOR is set; FORCE_COLOR forces it), always, never",
    )


def wants_color(choice: str, stream: TextIO | None, environ: Mapping[str, str] | None = None) -> bool:
    """`stream` is where the report goes (None: a file, never a terminal)."""
    if choice != "auto":
        return choice == "always"
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM") == "dumb" or stream is None:
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty()) if callable(isatty) else False
