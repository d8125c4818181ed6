"""The `tilecheck` command (and `python -m tilecheck`).

`tilecheck --version` is answered here, before the command line's modules are imported: a
version check (in scripts, pre-commit, editors probing the tool) should cost no more than
starting Python.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["--version"]:
        from tilecheck import __version__

        print(f"tilecheck {__version__}")
        return 0
    from tilecheck.cli.main import main as run

    return run(arguments)


if __name__ == "__main__":
    sys.exit(main())
