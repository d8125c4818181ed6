"""What a pip requirements file says about `tilelang`, as pip reads it.

pip joins a line ending in a backslash with the next, drops `#` comments (at the start of a
line or after whitespace), takes `--hash=` and other per-requirement options off a requirement,
skips option lines (`-i URL`, `--index-url`, `-e`, ...) and follows `-r FILE` / `-c FILE`
includes relative to the including file. pip installs a version every line allows, so the
specifiers of all the `tilelang` requirements (and, once one is required, of the constraints)
are joined into one range. Includes are followed only inside the project, at most
`MAX_INCLUDES` files, each once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tilecheck.config.file import read_bytes
from tilecheck.core.errors import ConfigError

MAX_INCLUDES = 32
_COMMENT = re.compile(r"(^|\s)#.*$")
# A per-requirement option: whitespace, then `-x` or `--name` (a specifier never holds ` -`).
_OPTION = re.compile(r"\s-{1,2}[A-Za-z].*$")
_INCLUDE = re.compile(r"(-r|-c|--requirement|--constraint)(?:\s*=\s*|\s*)(\S+)$")


def logical_lines(text: str) -> Iterator[str]:
    """The lines pip reads: continuations joined, comments removed, blank lines skipped."""
    pending = ""
    for raw in text.splitlines():
        line = _COMMENT.sub("", raw)
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line:
            yield line
    if pending.strip():
        yield pending.strip()


@dataclass
class _Reading:
    boundary: str  # includes outside this directory are not followed
    spec_of: Callable[[str], str | None]
    seen: set[str] = field(default_factory=set)
    required: list[str] = field(default_factory=list)
    constrained: list[str] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)

    def read(self, path: str, constraint: bool) -> None:
        real = os.path.realpath(path)
        if real in self.seen or len(self.seen) >= MAX_INCLUDES:
            return
        self.seen.add(real)
        try:
            text = read_bytes(path).decode("utf-8", errors="replace")
        except ConfigError:  # unreadable: it declares nothing we can use
            return
        for line in logical_lines(text):
            include = _INCLUDE.match(line)
            if include is not None:
                target = os.path.join(os.path.dirname(path), include.group(2))
                inside = os.path.realpath(target).startswith(os.path.realpath(self.boundary) + os.sep)
                if inside and os.path.isfile(target):
                    self.read(target, constraint or include.group(1) in ("-c", "--constraint"))
                continue
            if line.startswith("-"):  # -i URL, --index-url, -e ..., --find-links: not a requirement
                continue
            spec = self.spec_of(_OPTION.sub("", line))
            if spec is None:
                continue
            (self.constrained if constraint else self.required).append(spec)
            if path not in self.origins:
                self.origins.append(path)


def read_requirements(
    path: str, boundary: str, spec_of: Callable[[str], str | None]
) -> tuple[str, list[str]] | None:
    """(the joined `tilelang` specifier, the files that say it), or None: not required."""
    reading = _Reading(boundary, spec_of)
    reading.read(path, constraint=False)
    if not reading.required:
        return None
    specs = [spec for spec in reading.required + reading.constrained if spec]
    return ",".join(dict.fromkeys(specs)), reading.origins
