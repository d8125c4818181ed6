"""The README's console examples, generated from real output.

Each ```console block right after an `<!-- example: DIR -->` comment is rewritten with the output
of its `$ tilecheck ...` lines, each run in DIR (relative to the repository root; the example
projects are in docs/examples/), stdout and stderr as a terminal interleaves them. `python
tools/readme_examples.py` rewrites README.md (`make docs` runs it); `--check` exits 1 when it is
stale; a test keeps README.md identical to what this prints.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
EXAMPLE = re.compile(r"(<!-- example: (?P<directory>\S+) -->\n```console\n)(?P<body>.*?)(```\n)", re.DOTALL)


def commands(body: str) -> list[str]:
    return [line[2:] for line in body.splitlines() if line.startswith("$ ")]


def output_of(command: str, directory: Path, cache: str) -> str:
    argv = shlex.split(command)
    if argv[:1] != ["tilecheck"]:
        raise ValueError(f"an example runs `tilecheck`, not {command!r}")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("TILECHECK_")}
    environment.update({"NO_COLOR": "1", "TILECHECK_CACHE_DIR": cache, "COLUMNS": "100"})
    done = subprocess.run(
        [sys.executable, "-m", "tilecheck", *argv[1:]],
        cwd=directory,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )
    return done.stdout if done.stdout.endswith("\n") or not done.stdout else done.stdout + "\n"


def render(text: str) -> str:
    """`text` (the README) with every example's output regenerated."""
    with tempfile.TemporaryDirectory() as cache:

        def block(match: re.Match[str]) -> str:
            directory = ROOT / match["directory"]
            body = "".join(
                f"$ {command}\n{output_of(command, directory, cache)}" for command in commands(match["body"])
            )
            return match[1] + body + match[4]

        return EXAMPLE.sub(block, text)


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    fresh = render(text)
    if "--check" in argv:
        return 0 if fresh == text else 1
    README.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
