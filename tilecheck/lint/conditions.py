"""How a finding that holds only in some branches of undecided Python-level `if` statements
names them: `` (when `use_tc` is false)`` at the end of its message. The engine counts such a
finding once with its unconditional twin (one mistake, one error)."""

from __future__ import annotations

CONDITION_NOTE = " (when "


def base_message(message: str) -> tuple[str, bool]:
    """The message without its branch condition, and whether it had one."""
    head, note, _ = message.rpartition(CONDITION_NOTE)
    return (head, True) if note else (message, False)
