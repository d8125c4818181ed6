"""The stack every entry point allows (once, for its process): libcst and the kernel model
recurse once per nesting level, and deep kernels nest deeply. A module of its own so that the
command line sets it without importing the parsing guards (`ast` and their patterns)."""

from __future__ import annotations

RECURSION_LIMIT = 6000
