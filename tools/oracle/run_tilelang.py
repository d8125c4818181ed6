#!/usr/bin/env python3
"""Run the real TileLang pre-lower semantic checkers on kernel files (the oracle).

Runs INSIDE .oracle-venv (it imports tilelang).  For every kernel file:

1. import the file as a fresh module (building the PrimFuncs is the frontend's
   job; an exception here is recorded as a *build failure*, not a verdict);
2. find the PrimFuncs, by this convention (see tools/oracle/generate.py):
     - a module-level ``KERNEL`` (one PrimFunc), or
     - a module-level ``KERNELS`` (list/tuple/dict of PrimFuncs), or else
     - every module-level global that is a ``tvm.tirx.PrimFunc``;
   (a module-level dict ``BUILD_ERRORS`` {sub-case: message} is copied into
   the record as ``sub_build_errors``: fixtures use it for sub-cases that do
   not build);
3. put them in one ``IRModule`` and apply each of TileLang's three checkers
   SEPARATELY (``NestedLoopChecker``, ``ParallelLocalIndexChecker``,
   ``FragmentLoopChecker``), recording per family: rejected or not, message.

Output: one JSON object per file (JSON lines), in input order::

  {"path": ..., "sha256": ..., "status": "ok" | "build_error" | "no_kernel"
             | "crash" | "timeout",
   "error": "<build error / crash text or null>",
   "kernels": ["main", ...],
   "families": {"NestedLoopChecker": {"rejected": bool, "message": str|null,
                                     "error_type": str|null}, ...},
   "seconds": float, "tilelang": "0.1.15",
   "per_kernel": {name: {family: message-or-null}}   # only when >1 kernel}

Robustness: files are processed by ``--jobs`` worker *subprocesses* (each
imports TVM once and then handles many files).  A Python exception only
affects its file; a hard crash or hang of a worker marks the file being
processed as ``crash``/``timeout`` and a fresh worker takes over the rest.

Caching: with ``--cache FILE`` verdicts are looked up / stored by
``sha256(file bytes)`` + TileLang version, so unchanged kernels are not re-run.

Usage::

  .oracle-venv/bin/python tools/oracle/run_tilelang.py [--jobs 2] [--out verdicts.jsonl]
        [--cache build/oracle/tilelang_cache.json] [--timeout 120] PATH_OR_DIR...
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from digest import is_kernel_file, sha256_file
from oracle_worker import worker_main

CACHE_FORMAT = 1


def expand_paths(items: list[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            out.extend(str(q) for q in sorted(p.rglob("*.py")) if is_kernel_file(q))
        else:
            out.append(str(p))
    return out


# --------------------------------------------------------------------------- parent side


class _Worker:
    def __init__(self, python: str, stderr: IO[str] | int):
        self.proc = subprocess.Popen(
            [python, os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            bufsize=1,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None  # both are pipes
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.stdout, selectors.EVENT_READ)

    def ask(self, path: str, timeout: float) -> dict[str, Any] | None:
        try:
            self.stdin.write(path + "\n")
            self.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return {
                    "path": path,
                    "status": "timeout",
                    "error": f"no answer within {timeout}s",
                    "families": {},
                }
            if self.sel.select(timeout=left):
                line = self.stdout.readline()
                if not line:
                    return None  # worker died
                answer: dict[str, Any] = json.loads(line)
                return answer

    def close(self, kill: bool = False) -> None:
        try:
            if kill:
                self.proc.kill()
            else:
                self.stdin.close()
            self.proc.wait(timeout=30)
        except Exception:
            self.proc.kill()


def run_files(
    paths: list[str],
    jobs: int = 2,
    timeout: float = 120.0,
    stderr_log: str | None = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Run the oracle on ``paths`` with ``jobs`` worker subprocesses; keeps input order."""
    results: list[dict[str, Any] | None] = [None] * len(paths)
    lock = threading.Lock()
    next_idx = [0]
    done = [0]
    err = open(stderr_log, "a") if stderr_log else subprocess.DEVNULL  # noqa: SIM115

    def take() -> int | None:
        with lock:
            if next_idx[0] >= len(paths):
                return None
            i = next_idx[0]
            next_idx[0] += 1
            return i

    def loop() -> None:
        worker = _Worker(sys.executable, err)
        try:
            while (i := take()) is not None:
                rec = worker.ask(paths[i], timeout)
                if rec is None or rec.get("status") == "timeout":
                    if rec is None:
                        try:
                            rc = worker.proc.wait(timeout=10)
                        except subprocess.TimeoutExpired:
                            rc = None
                        rec = {
                            "path": paths[i],
                            "status": "crash",
                            "error": f"worker died (exit code {rc})",
                            "families": {},
                        }
                    worker.close(kill=True)
                    worker = _Worker(sys.executable, err)
                rec.setdefault("sha256", sha256_file(paths[i]))
                results[i] = rec
                with lock:
                    done[0] += 1
                    if progress and (done[0] % 50 == 0 or done[0] == len(paths)):
                        print(f"[oracle] {done[0]}/{len(paths)} files", file=sys.stderr, flush=True)
        finally:
            worker.close()

    threads = [threading.Thread(target=loop) for _ in range(max(1, min(jobs, len(paths))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if not isinstance(err, int):  # the log file `stderr_log` names
        err.close()
    return [r for r in results if r is not None]


def load_cache(path: str | None) -> dict[str, Any]:
    if not path or not os.path.exists(path):
        return {}
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    if data.get("format") != CACHE_FORMAT:
        return {}
    entries: dict[str, Any] = data.get("entries", {})
    return entries


def save_cache(path: str, entries: dict[str, Any]) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    tmp = path + ".tmp"
    Path(tmp).write_text(json.dumps({"format": CACHE_FORMAT, "entries": entries}, indent=0, sort_keys=True))
    os.replace(tmp, path)


def cache_key(sha: str, version: str) -> str:
    return f"{version}:{sha}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="kernel files or directories (recursed for *.py)")
    ap.add_argument("--jobs", "-j", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--out", "-o", help="write JSON lines here (default: stdout)")
    ap.add_argument("--cache", help="JSON verdict cache keyed by content hash")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per file")
    ap.add_argument("--stderr-log", help="append worker stderr (TVM warnings, prints) here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker_main()
        return 0
    paths = expand_paths(args.paths)
    if not paths:
        ap.error("no kernel files given")

    import importlib.metadata

    version = importlib.metadata.version("tilelang")
    cache = load_cache(args.cache)
    todo, recs = [], {}
    for p in paths:
        entry = cache.get(cache_key(sha256_file(p), version))
        if entry is not None:
            recs[p] = dict(entry, path=p, cached=True)
        else:
            todo.append(p)
    t0 = time.perf_counter()
    if todo:
        print(
            f"[oracle] running TileLang {version} on {len(todo)} file(s) "
            f"({len(paths) - len(todo)} cached), {args.jobs} worker(s)",
            file=sys.stderr,
            flush=True,
        )
        for rec in run_files(todo, jobs=args.jobs, timeout=args.timeout, stderr_log=args.stderr_log):
            recs[rec["path"]] = rec
            if args.cache and rec.get("status") in ("ok", "build_error", "no_kernel"):
                cache[cache_key(rec["sha256"], version)] = {k: v for k, v in rec.items() if k != "path"}
        wall = time.perf_counter() - t0
        per = [r.get("seconds", 0.0) for r in recs.values() if not r.get("cached")]
        print(
            f"[oracle] {len(todo)} file(s) in {wall:.1f}s wall; mean {sum(per) / max(1, len(per)):.3f}s/file "
            "in-worker (excluding the one-off TVM import)",
            file=sys.stderr,
            flush=True,
        )
        if args.cache:
            save_cache(args.cache, cache)
    out = open(args.out, "w") if args.out else sys.stdout  # noqa: SIM115
    for p in paths:
        out.write(json.dumps(recs[p]) + "\n")
    if args.out:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
