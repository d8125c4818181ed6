"""`make hostile`: randomized hostile state and input, by category, with counts (the robustness
evidence beside `make fuzz` and `make sweep`; seeded, so a run is reproducible).

- settings: budget flags and configuration keys with random values (NaN, infinities, huge and
  5,000-digit numbers, negatives, garbage): a usage or configuration error naming the flag or
  key (exit 2), or a run; never a traceback.
- names: files whose names are random bytes (not UTF-8, long, odd characters): every report
  format stays valid UTF-8 (and JSON where it is JSON).
- caches: a warm cache whose entries are mutated at random (truncated, bytes flipped, replaced by
  a FIFO, a link, a forgery, deep nesting): the results are the cold run's, never a stored lie.
- server: a valid LSP session with its byte stream mutated at random: the server ends or answers,
  within a deadline, never with a traceback.

    python tools/hostile.py [--cases N] [--seed S]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tilecheck.cli.main import main as tilecheck_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "fixtures", "examples", "softmax_mistakes.py"), encoding="utf-8") as _kernel:
    KERNEL = _kernel.read()
VALUES = ["nan", "-nan", "inf", "-inf", "1e400", "-1", "0", "1e-300", "99999999999999999999", "9" * 5000,
          "0x10", "1_000", " 5 ", "", "abc", "1.5", "2048", "3.0"]  # fmt: skip
Case = Callable[[random.Random, str], str | None]  # None: passed; else what went wrong


def _run(arguments: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = tilecheck_main(arguments)
        except SystemExit as exit:  # argparse's usage errors
            status = exit.code if isinstance(exit.code, int) else 2
    return status, out.getvalue(), err.getvalue()


def settings_case(rng: random.Random, directory: str) -> str | None:
    value = rng.choice(VALUES) if rng.random() < 0.7 else repr(rng.uniform(-1e6, 1e12))
    key = rng.choice(["per-file-timeout", "per-file-memory"])
    with open(os.path.join(directory, "k.py"), "w", encoding="utf-8") as out:
        out.write(KERNEL)
    if rng.random() < 0.5:
        arguments = ["check", "--no-cache", "--isolated", f"--{key}", value, "k.py"]
        named = f"argument --{key}"
    else:
        toml = value if rng.random() < 0.8 else json.dumps(value)
        with open(os.path.join(directory, "tilecheck.toml"), "w", encoding="utf-8") as out:
            out.write(f"{key} = {toml}\n")
        arguments = ["check", "--no-cache", "k.py"]
        named = "tilecheck.toml"
    status, _, err = _run(arguments)
    if "Traceback" in err or status not in (0, 1, 2):
        return f"{arguments} {key}={value[:40]}: status {status}, {err[-200:]}"
    if status == 2 and named not in err:
        return f"{arguments} {key}={value[:40]}: the error does not name {named}: {err[-200:]}"
    return None


def names_case(rng: random.Random, directory: str) -> str | None:
    length = rng.choice([1, 8, 64, 200])
    name = bytes(rng.choice([*range(0x20, 0x7F), *range(0x80, 0x100)]) for _ in range(length))
    name = name.replace(b"/", b"_").strip(b".") or b"x"
    path = os.path.join(os.fsencode(directory), name[:240] + b".py")
    with open(path, "w", encoding="utf-8") as out:
        out.write(KERNEL)
    output_format = rng.choice(["json", "json-lines", "sarif", "concise", "full", "github"])
    status, out_text, err = _run(
        ["check", "--no-cache", "--isolated", "--output-format", output_format, directory]
    )
    try:
        out_text.encode("utf-8")
        if output_format in ("json", "sarif"):
            json.loads(out_text)
        elif output_format == "json-lines":
            [json.loads(line) for line in out_text.splitlines()]
    except (UnicodeEncodeError, ValueError) as error:
        return f"{name!r} {output_format}: {error}"
    if status != 1 or "Traceback" in err:
        return f"{name!r} {output_format}: status {status}, {err[-200:]}"
    return None


def _mutate_entry(rng: random.Random, entry: str) -> None:
    with open(entry, "rb") as handle:
        data = handle.read()
    how = rng.choice(["truncate", "flip", "fifo", "symlink", "forge", "deep", "empty", "header"])
    os.unlink(entry)
    if how == "fifo":
        os.mkfifo(entry)
    elif how == "symlink":
        os.symlink("/dev/zero", entry)
    else:
        if how == "truncate":
            data = data[: rng.randrange(len(data))]
        elif how == "flip":
            position = rng.randrange(len(data))
            data = data[:position] + bytes([data[position] ^ (1 << rng.randrange(8))]) + data[position + 1 :]
        elif how == "forge":
            header, _, payload = data.partition(b"\n")
            forged = json.loads(payload)
            forged["diagnostics"], forged["text"] = [], None
            data = header + b"\n" + json.dumps(forged).encode()
        elif how == "deep":
            data = data.partition(b"\n")[0] + b"\n" + b"[" * 200_000 + b"]" * 200_000
        elif how == "empty":
            data = b""
        else:
            data = b"tilecheck-cache 3 " + data.partition(b" ")[2].partition(b" ")[2]
        with open(entry, "wb") as out:
            out.write(data)


def caches_case(rng: random.Random, directory: str) -> str | None:
    for index in range(3):
        with open(os.path.join(directory, f"k{index}.py"), "w", encoding="utf-8") as out:
            out.write(KERNEL if index % 2 == 0 else "x = 1\n")
    cache = os.path.join(directory, "cache")
    arguments = ["check", "--isolated", "--cache-dir", cache, "--output-format", "json", directory]
    cold = _run(arguments)
    entries = [os.path.join(d, n) for d, _, names in os.walk(cache) for n in names if n.endswith(".json")]
    for entry in rng.sample(entries, rng.randint(1, len(entries))):
        _mutate_entry(rng, entry)
    warm = _run(arguments)
    if warm[:2] != cold[:2] or "Traceback" in warm[2]:
        return f"a mutated cache changed the results: {warm[2][-200:]}"
    return None


def _session(uri: str) -> bytes:
    messages: list[dict[str, Any]] = [
        {"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"method": "initialized", "params": {}},
        {"method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": KERNEL}}},
        {"id": 2, "method": "shutdown", "params": None},
        {"method": "exit", "params": None},
    ]  # fmt: skip
    stream = b""
    for message in messages:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stream += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return stream


def server_case(rng: random.Random, directory: str) -> str | None:
    stream = bytearray(_session("file://" + os.path.join(directory, "k.py")))
    for _ in range(rng.randint(1, 4)):
        position = rng.randrange(len(stream))
        how = rng.choice(["flip", "delete", "insert", "length"])
        if how == "flip":
            stream[position] ^= 1 << rng.randrange(8)
        elif how == "delete":
            del stream[position]
        elif how == "insert":
            stream[position:position] = bytes([rng.randrange(256)])
        else:
            stream = bytearray(stream.replace(b"Content-Length: ", b"Content-Length: 99999999", 1))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tilecheck", "server"],
            input=bytes(stream),
            capture_output=True,
            cwd=directory,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        return "the server neither answered nor ended within 300 s"
    errors = done.stderr.decode("utf-8", "replace")
    if "Traceback" in errors and "Unable to handle message" not in errors:
        return f"exit {done.returncode}: {errors[-300:]}"
    if done.returncode not in (0, 1):
        return f"exit {done.returncode}: {errors[-300:]}"
    return None


CATEGORIES: dict[str, tuple[Case, float]] = {  # the case, and its share of --cases
    "settings": (settings_case, 0.4),
    "names": (names_case, 0.25),
    "caches": (caches_case, 0.25),
    "server": (server_case, 0.1),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--seed", type=int, default=22)
    args = parser.parse_args(argv)
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="tilecheck-hostile-key-")  # the cache's MAC key
    rng = random.Random(args.seed)
    counts: Counter[str] = Counter()
    failures: list[str] = []
    for name, (case, share) in CATEGORIES.items():
        for _ in range(max(1, round(args.cases * share))):
            directory = tempfile.mkdtemp(prefix=f"tilecheck-hostile-{name}-")
            previous = os.getcwd()
            os.chdir(directory)
            try:
                problem = case(rng, directory)
            finally:
                os.chdir(previous)
                shutil.rmtree(directory, ignore_errors=True)
            counts[name] += 1
            if problem is not None:
                failures.append(f"{name}: {problem}")
        print(
            f"{name}: {counts[name]} cases, {sum(f.startswith(name + ':') for f in failures)} failed",
            flush=True,
        )
    for failure in failures:
        print(failure)
    print(f"{sum(counts.values())} hostile cases, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
