"""What a per-file budget may be, checked once for every front end (the command line's flags,
the configuration's keys, the editor's settings): a finite number, 0 (no limit) or more, and
small enough for the operating system's limits (a memory budget becomes RLIMIT_AS in bytes, a
time budget a wait), so that no value that passes here fails later inside a worker."""

from __future__ import annotations

import math

MAX_SECONDS = 1_000_000  # about eleven days
MAX_MIB = 1 << 30  # 1 PiB: far beyond any machine, and its bytes still fit RLIMIT_AS


def problem(value: object, whole: bool) -> str | None:
    """Why `value` cannot be a budget (seconds, or with `whole` MiB), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "not a number"
    if whole and not isinstance(value, int):
        return "not a whole number"
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite number"
    if value < 0:
        return "must be 0 (no limit) or more"
    largest = MAX_MIB if whole else MAX_SECONDS
    if value > largest:
        return f"must be at most {largest}"
    return None


def parse(text: str, whole: bool) -> int | float:
    """A budget given as text (a flag); raises ValueError saying what is wrong."""
    text = text.strip()
    if len(text) > 40:  # never convert a 5,000-digit number (Python refuses ints past 4,300)
        raise ValueError(f"must be at most {MAX_MIB if whole else MAX_SECONDS}")
    try:
        value: int | float = int(text) if whole else float(text)
    except ValueError:
        try:
            float(text)
        except ValueError:
            raise ValueError(f"not a number: {text!r}") from None
        raise ValueError(f"not a whole number: {text!r}") from None
    reason = problem(value, whole)
    if reason is not None:
        raise ValueError(reason)
    return value
