"""What `make hostile`'s categories share: the kernel they check and the in-process runner."""

from __future__ import annotations

import contextlib
import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tilecheck.cli.main import main as tilecheck_main  # noqa: E402

with open(os.path.join(ROOT, "fixtures", "examples", "softmax_mistakes.py"), encoding="utf-8") as _kernel:
    KERNEL = _kernel.read()
Outcome = tuple[int, str, str]  # exit status, standard output, standard error


def run_in_process(arguments: list[str]) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = tilecheck_main(arguments)
        except SystemExit as exit:  # argparse's usage errors
            status = exit.code if isinstance(exit.code, int) else 2
    return status, out.getvalue(), err.getvalue()
