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
- documents: a valid LSP session whose documents are hostile (tools/hostile_documents.py): the
  fuzzer's hostile constructs, lone surrogates, odd line ends, a 2 MiB line, an oversized
  document, an edit past the end; the hover and shutdown are answered, diagnostics published.
- permissions: a tree whose files, folders, configuration files and cache get random modes, checked
  without root's DAC override (`setpriv`): an unreadable file or folder is its TL003, every other
  file has its findings, an unreadable configuration file is a clear error, a cache at most one
  warning (tools/hostile_fs.py, as the next two).
- shadowing: a working directory that shadows a random part of every module a run imports (as
  `x.py`, `x/` or both, each leaving a marker when executed), under a random front end (console
  script or `-m`; check, lower, explain, inventory, debug-config, rule, --version, the server with
  a document open): no marker, and the front end's usual answer.
- paths: folders with long names nested up to and past PATH_MAX, kernels at random depths, walked
  or named: each kernel has its findings or a TL003 on a folder above it; every report stays valid.

Each case has its own generator (seed, category, number), so `--category C --case N` repeats one.
Printed: the count and failures per category, and its slowest case.

    python tools/hostile.py [--cases N] [--seed S] [--category C ...] [--case N]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools.hostile_documents import documents_case
from tools.hostile_fs import paths_case, permissions_case, shadowing_case
from tools.hostile_run import KERNEL, run_in_process

VALUES = ["nan", "-nan", "inf", "-inf", "1e400", "-1", "0", "1e-300", "99999999999999999999", "9" * 5000,
          "0x10", "1_000", " 5 ", "", "abc", "1.5", "2048", "3.0"]  # fmt: skip
Case = Callable[[random.Random, str], tuple[str, str | None]]  # (what it tried, what went wrong or None)
_run = run_in_process


def settings_case(rng: random.Random, directory: str) -> tuple[str, str | None]:
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
    tried = f"{named}: {key} = {value[:40]}"
    status, _, err = _run(arguments)
    if "Traceback" in err or status not in (0, 1, 2):
        return tried, f"{arguments} {key}={value[:40]}: status {status}, {err[-200:]}"
    if status == 2 and named not in err:
        return tried, f"{arguments} {key}={value[:40]}: the error does not name {named}: {err[-200:]}"
    return tried, None


def names_case(rng: random.Random, directory: str) -> tuple[str, str | None]:
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
    tried = f"{name[:40]!r} in {output_format}"
    try:
        out_text.encode("utf-8")
        if output_format in ("json", "sarif"):
            json.loads(out_text)
        elif output_format == "json-lines":
            [
                json.loads(line) for line in out_text.split("\n") if line
            ]  # not splitlines: U+0085 may be in a name
    except (UnicodeEncodeError, ValueError) as error:
        return tried, f"{name!r} {output_format}: {error}"
    if status != 1 or "Traceback" in err:
        return tried, f"{name!r} {output_format}: status {status}, {err[-200:]}"
    return tried, None


def _mutate_entry(rng: random.Random, entry: str) -> str:
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
    return how


def caches_case(rng: random.Random, directory: str) -> tuple[str, str | None]:
    for index in range(3):
        with open(os.path.join(directory, f"k{index}.py"), "w", encoding="utf-8") as out:
            out.write(KERNEL if index % 2 == 0 else "x = 1\n")
    cache = os.path.join(directory, "cache")
    arguments = ["check", "--isolated", "--cache-dir", cache, "--output-format", "json", directory]
    cold = _run(arguments)
    entries = [os.path.join(d, n) for d, _, names in os.walk(cache) for n in names if n.endswith(".json")]
    hows = [_mutate_entry(rng, entry) for entry in rng.sample(entries, rng.randint(1, len(entries)))]
    tried = f"{len(hows)} of {len(entries)} entries: {', '.join(hows)}"
    warm = _run(arguments)
    if warm[:2] != cold[:2] or "Traceback" in warm[2]:
        return tried, f"a mutated cache changed the results: {warm[2][-200:]}"
    return tried, None


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


def server_case(rng: random.Random, directory: str) -> tuple[str, str | None]:
    stream = bytearray(_session("file://" + os.path.join(directory, "k.py")))
    changes = []
    for _ in range(rng.randint(1, 4)):
        position = rng.randrange(len(stream))
        how = rng.choice(["flip", "delete", "insert", "length"])
        changes.append(how)
        if how == "flip":
            stream[position] ^= 1 << rng.randrange(8)
        elif how == "delete":
            del stream[position]
        elif how == "insert":
            stream[position:position] = bytes([rng.randrange(256)])
        else:
            stream = bytearray(stream.replace(b"Content-Length: ", b"Content-Length: 99999999", 1))
    tried = f"stream changed by {', '.join(changes)}"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tilecheck", "server"],
            input=bytes(stream),
            capture_output=True,
            cwd=directory,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        return tried, "the server neither answered nor ended within 300 s"
    errors = done.stderr.decode("utf-8", "replace")
    if "Traceback" in errors and "Unable to handle message" not in errors:
        return tried, f"exit {done.returncode}: {errors[-300:]}"
    if done.returncode not in (0, 1):
        return tried, f"exit {done.returncode}: {errors[-300:]}"
    return tried, None


CATEGORIES: dict[str, tuple[Case, float]] = {  # the case, and its share of --cases
    "settings": (settings_case, 0.3),
    "names": (names_case, 0.15),
    "caches": (caches_case, 0.15),
    "server": (server_case, 0.05),
    "documents": (documents_case, 0.05),
    "permissions": (permissions_case, 0.15),
    "shadowing": (shadowing_case, 0.05),
    "paths": (paths_case, 0.15),
}


def run_case(name: str, seed: int, number: int) -> tuple[str, str | None, float]:
    """One case in a fresh directory (its working directory meanwhile): (tried, problem, seconds)."""
    case = CATEGORIES[name][0]
    rng = random.Random(f"{seed}:{name}:{number}")
    directory = tempfile.mkdtemp(prefix=f"tilecheck-hostile-{name}-")
    previous = os.getcwd()
    os.chdir(directory)
    started = time.monotonic()
    try:
        tried, problem = case(rng, directory)
    finally:
        seconds = time.monotonic() - started
        os.chdir(previous)
        shutil.rmtree(directory, ignore_errors=True)
    return tried, problem, seconds


def _load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--category", action="append", choices=sorted(CATEGORIES), help="only these")
    parser.add_argument("--case", type=int, help="only this case number (with --category)")
    args = parser.parse_args(argv)
    key = tempfile.mkdtemp(prefix="tilecheck-hostile-key-")
    os.environ["XDG_CACHE_HOME"] = key  # the cache's MAC key, outside every case's tree
    try:
        return _run_all(args)
    finally:
        shutil.rmtree(key, ignore_errors=True)


def _run_all(args: argparse.Namespace) -> int:
    names = args.category or list(CATEGORIES)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"hostile: seed {args.seed}, {args.cases} cases, {started}, load {_load()}", flush=True)
    failures: list[str] = []
    total = 0
    began = time.monotonic()
    for name in names:
        count = max(1, round(args.cases * CATEGORIES[name][1]))
        numbers = [args.case] if args.case is not None else list(range(count))
        failed = 0
        slowest = (-1.0, 0, "")
        for number in numbers:
            tried, problem, seconds = run_case(name, args.seed, number)
            slowest = max(slowest, (seconds, number, tried))
            if problem is not None:
                failed += 1
                failures.append(f"{name} case {number} ({tried}): {problem}")
        total += len(numbers)
        print(
            f"{name}: {len(numbers)} cases, {failed} failed; slowest: case {slowest[1]}, "
            f"{slowest[0]:.1f} s ({slowest[2]})",
            flush=True,
        )
    for failure in failures:
        print(failure)
    elapsed = time.monotonic() - began
    print(
        f"{total} hostile cases, {len(failures)} failed (seed {args.seed}, load {_load()}, {elapsed:.0f} s)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
