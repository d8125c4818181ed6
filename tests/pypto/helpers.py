"""Shared helpers for the PyPTO tests: wrap a function body in a DSL program and lower it."""

from __future__ import annotations

import textwrap

from tilecheck.core.types import Severity
from tilecheck.pypto import lower_source

HEADER = "import pypto.language as pl\n\n\n@pl.function\ndef f(a, b, n, s, s0, t0, out):\n"


def program(body: str) -> str:
    return HEADER + textwrap.indent(textwrap.dedent(body).lstrip("\n"), "    ")


def lower_body(body: str, backend: str | None = None) -> str:
    """The lowered function body, dedented; fails on any error diagnostic."""
    result = lower_source(program(body), "k.py", backend=backend)
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    assert not errors, errors
    assert result.source.startswith(HEADER)
    return textwrap.dedent(result.source[len(HEADER) :])


def expect(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def run_lower_command(argv: list[str]) -> tuple[int, str, str]:
    """`tilecheck lower ...` (argv without the program name): exit status, stdout, stderr."""
    import contextlib
    import io

    from tilecheck.cli.lower import run
    from tilecheck.cli.main import build_parser
    from tilecheck.core.errors import TilecheckError

    out, err = io.StringIO(), io.StringIO()
    # The command itself, not `cli.main.main`: that raises the process's recursion limit.
    with contextlib.redirect_stderr(err):
        try:
            code = run(build_parser("lower").parse_args(argv), out, err)
        except TilecheckError as error:  # as `cli.main` reports them
            print(f"tilecheck: error: {error}", file=err)
            code = 2
    return code, out.getvalue(), err.getvalue()


def lower_notes(source: str) -> list[tuple[str, int, int, str]]:
    """(code, line, 1-based column, message) of each diagnostic of lowering `source`."""
    result = lower_source(source, "k.py")
    return [(d.code, d.span.line, d.span.column + 1, d.message) for d in result.diagnostics]
