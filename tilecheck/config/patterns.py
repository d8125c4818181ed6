"""Glob patterns of configuration files (`exclude`, `per-file-ignores`), relative to the
directory of the file that defines them."""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
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
        name = os.path.basename(path)
        if not whole and self._relative is None and name not in ("", ".", "..") and path != self.root:
            # the component is the path's own name, inside the root or not: no relative path to
            # compute (a directory walk asks this of every entry it meets)
            return self._name is not None and self._name.match(name) is not None
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


_GLOB = frozenset("*?[")


@dataclass
class _Node:
    """Patterns under one literal directory prefix."""

    children: dict[str, _Node] = field(default_factory=dict)
    patterns: list[int] = field(default_factory=list)  # whose literal prefix ends here


class PatternTable:
    """Many patterns of one root (a `per-file-ignores` table), indexed so that finding the
    patterns a path matches costs the path's depth plus the candidates, not the table's size.

    Each pattern means what `PathPatterns((pattern,), root)` means. Patterns are indexed by
    their literal leading components (`kernels/gen_5/*.py` under `kernels` -> `gen_5`; a
    literal name pattern by the name), and compiled only when first tested."""

    def __init__(self, patterns: list[str], root: str) -> None:
        self.patterns = patterns
        self.root = root
        self._names: dict[str, list[int]] = {}  # literal name -> patterns
        self._name_globs: list[int] = []
        self._trie = _Node()
        self._compiled: dict[int, PathPatterns] = {}
        for index, pattern in enumerate(patterns):
            bare = pattern.rstrip("/")
            if "/" not in bare:
                if _GLOB.isdisjoint(bare):
                    self._names.setdefault(bare, []).append(index)
                else:
                    self._name_globs.append(index)
                continue
            node = self._trie
            for part in pattern.strip("/").removeprefix("./").split("/")[:-1]:
                if not _GLOB.isdisjoint(part) or part in ("", "."):
                    break
                node = node.children.setdefault(part, _Node())
            node.patterns.append(index)

    def hits(self, path: str) -> list[int]:
        """The indices of the patterns `path` (absolute) matches, in table order."""
        relative = os.path.relpath(path, self.root).replace(os.sep, "/")
        inside = not relative.startswith("../") and relative != ".."
        parts = relative.split("/") if inside else [os.path.basename(path)]
        candidates = set(self._name_globs)
        for part in parts:
            candidates.update(self._names.get(part, ()))
        if inside:
            node: _Node | None = self._trie
            for part in parts:
                if node is None:
                    break
                candidates.update(node.patterns)
                node = node.children.get(part)
            if node is not None:
                candidates.update(node.patterns)
        return sorted(index for index in candidates if self._pattern(index).match(path))

    def _pattern(self, index: int) -> PathPatterns:
        compiled = self._compiled.get(index)
        if compiled is None:
            compiled = self._compiled[index] = PathPatterns((self.patterns[index],), self.root)
        return compiled
