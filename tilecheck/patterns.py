"""Glob patterns of configuration files (`exclude`, `per-file-ignores`), relative to the
directory of the file that defines them."""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from functools import cached_property


def glob_regex(pattern: str) -> str:
    """A regular expression for a `/`-separated glob: `*` and `?` stay in one component, `**` crosses."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


@dataclass
class PathPatterns:
    """Glob patterns relative to `root`. A pattern without `/` matches any path component
    (`build`, `*_gen.py`); one with `/` matches the path relative to `root` (`kernels/old/*.py`).
    A path matches when it, or a directory containing it, matches."""

    patterns: tuple[str, ...]
    root: str

    @cached_property
    def _name(self) -> re.Pattern[str] | None:
        names = [fnmatch.translate(p.rstrip("/")) for p in self.patterns if "/" not in p.rstrip("/")]
        return re.compile("|".join(names)) if names else None

    @cached_property
    def _relative(self) -> re.Pattern[str] | None:
        paths = [glob_regex(p.strip("/").removeprefix("./")) for p in self.patterns if "/" in p.rstrip("/")]
        return re.compile("(?:" + "|".join(paths) + r")\Z") if paths else None

    def match(self, path: str, *, whole: bool = True) -> bool:
        """Does `path` (absolute) match? `whole=False` tests only the last component."""
        relative = os.path.relpath(path, self.root).replace(os.sep, "/")
        inside = not relative.startswith("../") and relative != ".."
        parts = relative.split("/") if inside else [os.path.basename(path)]
        if self._name is not None:
            tested = parts if whole else parts[-1:]
            if any(self._name.match(part) for part in tested):
                return True
        if self._relative is not None and inside:
            candidates = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)] if whole else [relative]
            return any(self._relative.match(candidate) for candidate in candidates)
        return False
