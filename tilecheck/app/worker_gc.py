"""When a batch worker (`app.supervisor`) collects its garbage.

A check builds two trees of the file and its kernel model, hundreds of thousands of container
objects that live until the check ends, so CPython's automatic collections, each walking every
young object and the older generations with them, ran hundreds of times per file and took a
sixth of a cold run; the kernel model holds cycles (a loop and the statements that know their
loop), so what a check leaves is only freed by a collection anyway.

So a worker freezes what it inherited (`gc.freeze`: moved where collections do not look), checks
each file with automatic collection paused, and after answering collects once and freezes what
survived (the modules the first check imported, caches), so that the next collection walks only
the next file's garbage. The memory budget (`app.budget`) bounds a file's check as before. A
frozen object that later becomes cyclic garbage is not reclaimed until the worker ends (one run).
This is the worker process's policy, set by its entry point; nothing in the library depends on it.
"""

from __future__ import annotations

import gc


def started() -> None:
    """What the worker inherited from its parent is never its garbage."""
    gc.freeze()


def checked() -> None:
    """After an answer: reclaim the check's garbage, freeze what survived."""
    gc.collect()
    gc.freeze()
