"""The trees of the project files a worker's checks read, kept from one check to the next.

A kernel file's imports of the project's own modules are followed (`tilelang/project.py`): each
module is read, parsed with CPython's parser and, when a macro of it is used, with libcst. In a
tree whose files import the same helpers, every check parsed them again (sampled on the shared
corpus: 8 % of a cold run). A batch worker keeps them here: a file whose bytes are the same as
when it was parsed is not parsed again, so a changed file never gets an old tree. Owned by its
caller (made before the workers fork, so each has its own), bounded (the least recently used
file goes first), not shared between threads.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import libcst as cst

Parsed = TypeVar("Parsed")
MAX_FILES = 256


class ParsedFiles:
    def __init__(self, max_files: int = MAX_FILES) -> None:
        self.max_files = max_files
        self.hits = 0
        self._python: OrderedDict[str, tuple[bytes, object]] = OrderedDict()
        self._libcst: OrderedDict[str, tuple[str, cst.Module]] = OrderedDict()

    def python(self, path: str, data: bytes, parse: Callable[[bytes], Parsed]) -> Parsed:
        """`parse(data)`, or what it gave for the same bytes of `path` before."""
        found = self._python.get(path)
        if found is not None and found[0] == data:
            self._python.move_to_end(path)
            self.hits += 1
            return found[1]  # type: ignore[return-value]  # `parse`'s result for these bytes
        parsed = parse(data)
        _keep(self._python, path, (data, parsed), self.max_files)
        return parsed

    def libcst(self, path: str, source: str) -> cst.Module:
        """libcst's tree of `source`, the text of `path` (raises what the parser raises)."""
        found = self._libcst.get(path)
        if found is not None and found[0] == source:
            self._libcst.move_to_end(path)
            self.hits += 1
            return found[1]
        from tilecheck.source.cst_parse import parse_module

        module = parse_module(source)
        _keep(self._libcst, path, (source, module), self.max_files)
        return module


def _keep(kept: OrderedDict[str, Parsed], path: str, value: Parsed, most: int) -> None:
    kept[path] = value
    kept.move_to_end(path)
    while len(kept) > most:
        kept.popitem(last=False)
