"""`make bench`: tilecheck's figures next to their anchors, on the shared TileLang corpus.

The corpus is TileLang's own `examples/` and `testing/` (`../shared/corpus/tilelang`, or
`--corpus DIR`); without it, a seeded generated corpus of realistic kernel files (GEMM, softmax
and reduction factories with macros, pipelines and parallel nests, one file in five with a
violation). Every figure is the best of `--repeat` runs, wall time and CPU time (the process
and its workers: a loaded machine inflates CPU time far less than wall time), measured in one
run of this script beside its anchor, so ratios compare like with like on a busy machine; the
load average is printed with them. Nothing here is a timed test.

  cold, whole tree    `tilecheck check --no-cache` of the whole tree, default jobs
                      anchors: ruff `check --select ALL --no-cache` (<= 3x), bare
                      `libcst.parse_module` of every file, bare `ast.parse`
  warm, whole tree    re-run with the cache and nothing changed (anchor: ruff's cached run, <= 0.3x)
  touched one file    re-run after rewriting one file (<= 1.2x warm + that file's own check)
  cached FILE         `tilecheck k.py` on a small file whose result is cached
                      (anchor: ruff on the same file, cached; <= 60 ms and <= 3x)
  check FILE          the same small file, no cache, end to end (<= 200 ms; anchor: ruff --no-cache)
  --version           (<= 100 ms)
  installed           the cached and the cold small file again with tilecheck built into a wheel
                      and installed in a fresh virtual environment, as users run it (`installed`)
  peak RSS            of the whole-tree cold run (largest process; 92 MB before the fast path)

Then the cold run's breakdown in one process: settings/reading/prefilter, parse, model, rules,
suppressions and the report, each with its share.

Fixit's default run is an anchor when `fixit` is installed. The lowering benchmark follows.
tilecheck's bytecode is compiled before anything is measured (see `compile_bytecode`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent.parent / "shared" / "corpus" / "tilelang"  # /work/shared next to /work/wt/NAME
if not CORPUS.is_dir():
    CORPUS = ROOT.parent / "shared" / "corpus" / "tilelang"  # /work/shared next to /work/main
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))  # run as a script: `tools` is importable from the repository root

from tools.bench_corpus import SMALL_CLEAN, generate  # noqa: E402


@dataclass(frozen=True)
class Timing:
    """The best wall time and the best CPU time (user + system, the children's included) of a few runs."""

    wall: float
    cpu: float

    def __add__(self, other: Timing) -> Timing:
        return Timing(self.wall + other.wall, self.cpu + other.cpu)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def best(repeat: int, action: Callable[[], object]) -> Timing:
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), _cpu()
        action()
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
    return Timing(min(walls), min(cpus))


def parse_all(paths: list[Path], parse: Callable[[bytes], object]) -> None:
    for path in paths:
        with contextlib.suppress(Exception):  # the corpus is real code: a few files may not parse
            parse(path.read_bytes())


def command(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> Callable[[], None]:
    def run() -> None:
        subprocess.run(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd, check=False
        )

    return run


def peak_rss_mb(args: list[str], env: dict[str, str]) -> float:
    """The largest resident set of the run (its main process or a worker), in MB."""
    code = (
        "import resource, subprocess, sys; "
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=False
    )
    try:
        return int(out.stdout.strip()) / 1024
    except ValueError:
        return float("nan")


def breakdown(paths: list[Path]) -> list[tuple[str, float, str]]:
    """Where a cold run's time goes, in this one process (no workers, no cache): reading and the
    prefilter, libcst's parse, the kernel model, the rules, suppressions, and the report."""
    from tilecheck.app.workspace import Workspace
    from tilecheck.lint.engine import Timings, lint_source
    from tilecheck.lint.prefilter import cannot_have_findings
    from tilecheck.report import Run
    from tilecheck.report.full import render
    from tilecheck.source.reading import read_source

    workspace = Workspace()
    settings = workspace.file_settings(str(paths[0]))
    lint_source("import pypto.language as pl\nimport tilelang\n", str(paths[0]), settings)  # imports
    timings = Timings()
    analyses = []
    start = time.perf_counter()
    for path in paths:
        settings = workspace.file_settings(str(path))
        data, _ = read_source(str(path))
        if data is None or cannot_have_findings(data, settings) is not None:
            continue
        analyses.append(lint_source(data, str(path), settings, timings=timings).detached())
    total = time.perf_counter() - start
    checked = timings.parse + timings.model + timings.rules + timings.suppressions
    started = time.perf_counter()
    diagnostics = sorted((d for a in analyses for d in a.diagnostics), key=lambda d: d.sort_key())
    sources = {a.path: a.text for a in analyses if a.text is not None}
    render(Run(diagnostics, sources, len(paths)), io.StringIO())
    report = time.perf_counter() - started
    whole = total + report
    skipped = len(paths) - timings.files
    rows = [
        ("settings, reading, prefilter", total - checked, f"{skipped} of {len(paths)} files need no CST"),
        ("libcst parse", timings.parse, f"{timings.files} files"),
        ("kernel model", timings.model, ""),
        ("rules", timings.rules, ""),
        ("suppressions", timings.suppressions, ""),
        ("report (full format)", report, f"{len(diagnostics)} diagnostics"),
    ]
    return [
        (what, seconds, f"{seconds / whole:.0%}" + (f"; {note}" if note else ""))
        for what, seconds, note in rows
    ]


def installed(scratch: Path) -> tuple[list[str], str] | str:
    """tilecheck as a user's `pip install` leaves it: built into a wheel and installed in a fresh
    virtual environment, whose interpreter starts without the development install's editable
    finder (about 9 ms of every start there). Its dependencies are this environment's (a `.pth`
    line). Returns the `tilecheck` command and that environment's python, or why there is none."""
    import sysconfig

    wheels = scratch / "wheel"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    found = sorted(wheels.glob("tilecheck-*.whl"))
    if built.returncode or not found:
        why = (built.stderr.strip().splitlines() or ["no wheel"])[-1]
        return f"the wheel did not build ({why})"
    home = scratch / "installed"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)], check=True)
    python = home / "bin" / "python"
    query = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(
        subprocess.run([python, "-c", query], capture_output=True, text=True, check=True).stdout.strip()
    )
    (site / "tilecheck_bench_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(found[-1])]
    done = subprocess.run(install, capture_output=True, text=True, check=False)
    script = home / "bin" / "tilecheck"
    if done.returncode or not script.exists():
        return f"the wheel did not install ({(done.stderr.strip().splitlines() or ['no script'])[-1]})"
    subprocess.run(
        [python, "-m", "compileall", "-q", str(site / "tilecheck")], capture_output=True, check=False
    )
    return [str(script)], str(python)


def tool(name: str) -> str | None:
    local = BIN / name
    return str(local) if local.exists() else shutil.which(name)


def _seconds(timing: Timing) -> str:
    return f"{timing.wall:.3f} s (cpu {timing.cpu:.3f})"


class Table:
    HEADERS = ("figure", "tilecheck wall (cpu)", "anchor wall (cpu)", "ratio wall (cpu)", "target")

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str]] = []

    def add(
        self,
        what: str,
        timing: Timing,
        anchor: str = "",
        anchor_timing: Timing | None = None,
        target: str = "",
    ) -> None:
        ratio = ""
        if anchor_timing is not None and anchor_timing.wall > 0:
            ratio = f"{timing.wall / anchor_timing.wall:.2f}x"
            if anchor_timing.cpu > 0:
                ratio += f" ({timing.cpu / anchor_timing.cpu:.2f}x)"
        anchor_text = f"{anchor} {_seconds(anchor_timing)}" if anchor_timing is not None else anchor
        self.rows.append((what, _seconds(timing), anchor_text, ratio, target))

    def note(self, what: str, value: str, target: str = "") -> None:
        self.rows.append((what, value, "", "", target))

    def print(self) -> None:
        headers = self.HEADERS
        widths = [max(len(row[i]) for row in [headers, *self.rows]) for i in range(5)]
        for row in [headers, tuple("-" * w for w in widths), *self.rows]:
            print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def compile_bytecode() -> None:
    """Compile tilecheck's modules to bytecode first, as an installed tool has them (pip compiles
    on install; an editable install writes them on first use). Without it, a machine that sets
    PYTHONDONTWRITEBYTECODE=1 (this one does) recompiles about 120 modules, some 0.1 s, in every
    process the start-up figures start."""
    import compileall

    for package in ("tilecheck", "rules"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    state = "set" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "not set"
    print(f"tilecheck's bytecode compiled first (PYTHONDONTWRITEBYTECODE is {state} here)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS if CORPUS.is_dir() else None)
    parser.add_argument("--files", type=int, default=230, help="generated corpus size (without a corpus)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "bench")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-lower", action="store_true", help="skip the lowering benchmark")
    args = parser.parse_args()
    if args.corpus is not None:
        corpus = args.corpus.resolve()
    else:
        generate(args.out, args.files, args.seed)
        corpus = args.out.resolve()
    paths = sorted(corpus.rglob("*.py"))
    lines = sum(path.read_bytes().count(b"\n") for path in paths)
    compile_bytecode()
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: corpus {len(paths)} files, {lines:,} lines "
        f"({corpus}); {os.cpu_count()} cores; best of {args.repeat}"
    )

    import ast

    import libcst

    repeat = args.repeat
    scratch = Path(tempfile.mkdtemp(prefix="tilecheck-bench-"))
    env = {**os.environ, "TILECHECK_CACHE_DIR": str(scratch / "cache")}
    env.pop("TILECHECK_OUTPUT_FORMAT", None)
    tilecheck = [sys.executable, "-m", "tilecheck"]
    script = tool("tilecheck")
    if script:
        tilecheck = [script]
    table = Table()

    load_before = os.getloadavg()
    parse = best(repeat, lambda: parse_all(paths, libcst.parse_module))
    ast_parse = best(repeat, lambda: parse_all(paths, ast.parse))
    ruff = tool("ruff")
    ruff_cold = ruff_warm = None
    if ruff:
        ruff_cold = best(
            repeat, command(ruff, "check", "--select", "ALL", "--no-cache", "--exit-zero", str(corpus))
        )
        ruff_cache = str(scratch / "ruff-cache")
        warm_ruff = command(ruff, "check", "--cache-dir", ruff_cache, "--exit-zero", str(corpus))
        warm_ruff()
        ruff_warm = best(repeat, warm_ruff)
    cold_args = [*tilecheck, "check", "--no-cache", "--exit-zero", str(corpus)]
    cold = best(repeat, command(*cold_args, env=env))
    table.add("cold, whole tree", cold, "ruff --select ALL --no-cache", ruff_cold, "<= 3x (2x)")
    table.add("", cold, "libcst.parse_module", parse)
    table.add("", cold, "ast.parse", ast_parse)
    fixit = tool("fixit")
    if fixit:
        table.add("", cold, "fixit lint", best(1, command(fixit, "lint", str(corpus))))

    warm_run = command(*tilecheck, "check", "--exit-zero", str(corpus), env=env)
    warm_run()  # fill the cache
    warm = best(repeat, warm_run)
    table.add("warm, nothing changed", warm, "ruff cached", ruff_warm, "<= 0.3x")

    copy = scratch / "touched"
    shutil.copytree(corpus, copy)
    biggest = max(copy.rglob("*.py"), key=lambda p: p.stat().st_size)
    original = biggest.read_bytes()
    copy_run = command(*tilecheck, "check", "--exit-zero", str(copy), env=env)
    copy_run()
    touched_times = []
    for index in range(repeat):
        biggest.write_bytes(original + f"\n# touched {index}\n".encode())
        touched_times.append(best(1, copy_run))
    touched = Timing(min(t.wall for t in touched_times), min(t.cpu for t in touched_times))
    one = best(repeat, command(*tilecheck, "check", "--no-cache", "--exit-zero", str(biggest), env=env))
    table.add("touched one file", touched, "warm + its check", warm + one, "<= 1.2x")

    small = scratch / "small" / "k.py"
    small.parent.mkdir()
    small.write_text(SMALL_CLEAN)
    many = max(repeat, 5)
    cached_small = command(*tilecheck, "check", str(small), env=env)
    cached_small()  # store its result
    small_cached = best(many, cached_small)
    ruff_small = ruff_small_cold = None
    if ruff:
        cached_ruff = command(
            ruff, "check", "--cache-dir", str(scratch / "ruff-small"), "--exit-zero", str(small)
        )
        cached_ruff()
        ruff_small = best(many, cached_ruff)
        ruff_small_cold = best(many, command(ruff, "check", "--no-cache", "--exit-zero", str(small)))
    table.add("cached FILE (small)", small_cached, "ruff cached", ruff_small, "<= 0.060 s, <= 3x")
    small_time = best(many, command(*tilecheck, "check", "--no-cache", str(small), env=env))
    table.add("check FILE (small, cold)", small_time, "ruff --no-cache", ruff_small_cold, "<= 0.200 s")
    python = best(many, command(sys.executable, "-c", "pass"))
    table.add("", small_time, "python -c pass", python)
    version = best(many, command(*tilecheck, "--version"))
    table.add("--version", version, "python -c pass", python, "<= 0.100 s")
    user = installed(scratch)
    if isinstance(user, str):
        table.note("installed from a wheel", f"not measured: {user}")
    else:
        user_tilecheck, user_python = user
        user_cached = command(*user_tilecheck, "check", str(small), env=env)
        user_cached()  # its own install: another tool fingerprint, so another cache entry
        table.add(
            "cached FILE, installed", best(many, user_cached), "ruff cached", ruff_small, "<= 0.060 s, <= 3x"
        )
        user_small = best(many, command(*user_tilecheck, "check", "--no-cache", str(small), env=env))
        table.add("check FILE, installed", user_small, "ruff --no-cache", ruff_small_cold, "<= 0.200 s")
        table.add("", user_small, "its python -c pass", best(many, command(user_python, "-c", "pass")))
    rss = peak_rss_mb(cold_args, env)
    table.note("peak RSS, cold whole tree", f"{rss:.0f} MB", "<= 92 MB")
    load_after = os.getloadavg()
    print(
        f"load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in load_before)} before, "
        f"{', '.join(f'{x:.1f}' for x in load_after)} after; {os.cpu_count()} cores"
    )
    table.print()
    shutil.rmtree(scratch, ignore_errors=True)

    print()
    print("cold run breakdown, one process (tilecheck.lint.engine.Timings):")
    parts = breakdown(paths)
    width = max(len(what) for what, _, _ in parts)
    for what, seconds, note in parts:
        print(f"  {what:<{width}}  {seconds:7.3f} s  {note}")
    print(f"  {'total':<{width}}  {sum(seconds for _, seconds, _ in parts):7.3f} s")

    lower = ROOT / "tools" / "bench_lower.py"
    if lower.exists() and not args.no_lower:
        print()
        subprocess.run([sys.executable, str(lower)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
