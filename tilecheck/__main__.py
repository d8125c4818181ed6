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


def _forget_working_directory() -> None:
    """`python -m tilecheck` puts the working directory first on sys.path, so a checked tree's
    `tomllib.py` or `libcst/` would shadow the real ones (and run). Nothing tilecheck imports
    lives there: drop it, as `python -P` would (the `tilecheck` script never adds it)."""
    started_as_module = bool(sys.argv) and sys.argv[0].endswith(os.path.join("tilecheck", "__main__.py"))
    if (
        started_as_module
        and not getattr(sys.flags, "safe_path", False)
        and sys.path
        and os.path.abspath(sys.path[0] or os.curdir) == os.getcwd()
    ):
        del sys.path[0]


def main(argv: Sequence[str] | None = None) -> int:
    _forget_working_directory()
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
