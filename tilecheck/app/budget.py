"""Per-file budgets and their defaults, apart from the workers that enforce them: the command
line and the workspace name them on every run, also when the cache answers for every file."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_TIMEOUT = 60.0  # seconds; a 2,000-line kernel takes well under 2 s
DEFAULT_MEMORY = 2048  # MiB beyond the worker's size at start; a 2,000-line kernel needs < 150


@dataclass(frozen=True)
class Budget:
    """Per-file limits: wall-clock seconds and MiB of memory (None: unlimited)."""

    seconds: float | None = DEFAULT_TIMEOUT
    memory: int | None = DEFAULT_MEMORY

    def describe_memory(self) -> str:
        return f"{self.memory} MiB" if self.memory else "unlimited"
