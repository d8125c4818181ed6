"""The `tilecheck` command (and `python -m tilecheck`): the language server (`tilecheck server`)
or the command line.

`tilecheck --version` is answered here, before the command line's modules are imported: a
version check (in scripts, pre-commit, editors probing the tool) should cost no more than
starting Python.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def isolate() -> None:
    """Run nothing from the working directory (a checked tree is untrusted): `python -m` and
    `python -c` put it first on sys.path, so a tree's `argparse.py` or `multiprocessing/` would
    shadow the standard library's (and run). Drop it, as `python -P` would; and have every
    Python this process starts (the editor's analysis worker, multiprocessing's helpers) start
    that way too (`PYTHONSAFEPATH`, Python 3.11+), before any of them imports anything.

    Everything imported before this point (this module's imports, `tilecheck/__init__`'s, runpy's)
    is already loaded when the interpreter starts, so nothing was looked up in the directory."""
    if not getattr(sys.flags, "safe_path", False) and sys.path:
        first = sys.path[0]
        try:
            here = first == "" or os.path.abspath(first) == os.getcwd()
        except OSError:  # the working directory is gone: nothing can be imported from it
            here = True
        if here:
            del sys.path[0]
    os.environ["PYTHONSAFEPATH"] = "1"


def main(argv: Sequence[str] | None = None) -> int:
    isolate()
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["--version"]:
        from tilecheck import __version__

        print(f"tilecheck {__version__}")
        return 0
    if arguments[:1] == ["server"]:  # the editor's front end, beside the command line's
        from tilecheck.server import main as serve

        return serve(arguments[1:])
    from tilecheck.cli.main import main as run

    return run(arguments)


if __name__ == "__main__":
    sys.exit(main())
