#!/usr/bin/env python3
"""Differential comparison: tilecheck versus the real TileLang checkers.

Stdlib only; runs with any Python 3.10+ (it does NOT import tilelang).

1. TileLang's verdicts come from the cache (``--cache``, a JSON file keyed by
   TileLang version + sha256 of the file's bytes, written by run_tilelang.py).
   Files missing from the cache are sent to ``run_tilelang.py`` in the oracle
   venv, so re-running after a tilecheck change does not re-run TileLang.
2. tilecheck runs once over all files with ``--output-format json`` (a JSON
   array of {path, line, column, end_line, end_column, code, rule, grade,
   severity, message}; exit 1 with diagnostics, 0 when clean).  If the batch
   run fails, each file is run alone so one crash is isolated.
3. Per file and family: NestedLoopChecker <=> any of TL101/TL102/TL103,
   ParallelLocalIndexChecker <=> TL104, FragmentLoopChecker <=> TL105.  Other
   codes are ignored for parity (but shown for disagreeing files).  Files that
   TileLang could not build are excluded from parity and listed separately.
   A finding that holds only in some Python-level branches ("... (when `flag`
   is true)") counts only when the file's ``# flags:`` line (written by the
   conditions family) gives its flags those values.

Exit status: 0 = full agreement, 1 = at least one disagreement, 2 = could not
run (no oracle venv for uncached files, tilecheck missing or crashing).

The tilecheck command is ``$TILECHECK`` if set (a shell-split command line,
e.g. ``".venv/bin/tilecheck check"``), else ``.venv/bin/tilecheck`` if it
exists, else ``<python> -m tilecheck`` with PYTHONPATH=<repo root> (python =
``.venv/bin/python`` if present).  A ``check`` subcommand is used when the CLI
accepts it (auto-detected; force with ``TILECHECK_SUBCOMMAND=check`` or ``=``
for none).  Extra arguments: ``$TILECHECK_EXTRA_ARGS``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from digest import is_kernel_file, sha256_file

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FAMILIES = {
    "NestedLoopChecker": ("TL101", "TL102", "TL103"),
    "ParallelLocalIndexChecker": ("TL104",),
    "FragmentLoopChecker": ("TL105",),
}
CACHE_FORMAT = 1


def expand(items: list[str]) -> list[Path]:
    out: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            out.extend(q for q in sorted(p.rglob("*.py")) if is_kernel_file(q))
        elif p.exists():
            out.append(p)
        else:
            sys.exit(f"[oracle/compare] no such file: {p}")
    return out


# --------------------------------------------------------------------------- TileLang verdicts


def load_cache(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    entries: dict[str, Any] = data.get("entries", {}) if data.get("format") == CACHE_FORMAT else {}
    return entries


def oracle_verdicts(
    files: list[Path], cache_path: Path, version: str, oracle_python: str, jobs: int
) -> dict[Path, dict[str, Any]]:
    cache = load_cache(cache_path)
    shas = {f: sha256_file(f) for f in files}
    missing = [f for f in files if f"{version}:{shas[f]}" not in cache]
    if missing:
        if not Path(oracle_python).exists():
            print(
                f"[oracle/compare] {len(missing)} file(s) have no cached TileLang verdict and the oracle "
                f"interpreter {oracle_python} does not exist; run tools/oracle/setup.sh",
                file=sys.stderr,
            )
            sys.exit(2)
        with tempfile.TemporaryDirectory() as td:
            listing = Path(td) / "out.jsonl"
            cmd = [
                oracle_python,
                str(HERE / "run_tilelang.py"),
                "--cache",
                str(cache_path),
                "--jobs",
                str(jobs),
                "--out",
                str(listing),
                *map(str, missing),
            ]
            rc = subprocess.call(cmd)
            if rc != 0:
                print(f"[oracle/compare] run_tilelang.py failed (exit {rc})", file=sys.stderr)
                sys.exit(2)
            fresh = [json.loads(ln) for ln in listing.read_text().splitlines() if ln.strip()]
        cache = load_cache(cache_path)
        for rec in fresh:  # crashes / timeouts are not cached but still reported
            cache.setdefault(f"{version}:{rec.get('sha256')}", rec)
    return {f: dict(cache.get(f"{version}:{shas[f]}", {"status": "missing"}), path=str(f)) for f in files}


# --------------------------------------------------------------------------- tilecheck


def tilecheck_base() -> list[str]:
    env = os.environ.get("TILECHECK")
    if env:
        return shlex.split(env)
    exe = ROOT / ".venv" / "bin" / "tilecheck"
    if exe.exists():
        return [str(exe)]
    py = ROOT / ".venv" / "bin" / "python"
    return [str(py) if py.exists() else sys.executable, "-m", "tilecheck"]


def tilecheck_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _run_tc(cmd: list[str], files: list[Path]) -> tuple[int, list[dict[str, Any]] | None, str]:
    proc = subprocess.run(
        [*cmd, *map(str, files)], capture_output=True, text=True, env=tilecheck_env(), cwd=ROOT
    )
    try:
        data = json.loads(proc.stdout) if proc.stdout.strip() else []
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, list):
        data = None
    return proc.returncode, data, proc.stderr[-2000:]


ORACLE_RELEASE = os.environ.get("ORACLE_TILELANG_VERSION", "0.1.15")


def tilecheck_command(probe: Path) -> list[str]:
    base = tilecheck_base()
    extra = shlex.split(os.environ.get("TILECHECK_EXTRA_ARGS", ""))
    # The verdicts compared are TileLang 0.1.15's (the oracle's release), whatever a kernel's project declares.
    flags = ["--output-format", "json", "--tilelang-version", ORACLE_RELEASE, *extra]
    forced = os.environ.get("TILECHECK_SUBCOMMAND")
    if forced is not None:
        return [*base, *shlex.split(forced), *flags]
    for sub in (["check"], []):
        rc, data, _ = _run_tc([*base, *sub, *flags], [probe])
        if rc in (0, 1) and data is not None:
            return [*base, *sub, *flags]
    rc, data, err = _run_tc([*base, "check", *flags], [probe])
    print(f"[oracle/compare] cannot run tilecheck ({' '.join(base)}): exit {rc}\n{err}", file=sys.stderr)
    sys.exit(2)


def tilecheck_diagnostics(files: list[Path]) -> tuple[dict[Path, list[dict[str, Any]]], dict[Path, str]]:
    cmd = tilecheck_command(files[0])
    by_file: dict[Path, list[dict[str, Any]]] = {f.resolve(): [] for f in files}
    errors: dict[Path, str] = {}

    def absorb(data: list[dict[str, Any]]) -> None:
        for d in data:
            p = Path(d.get("path", ""))
            p = (p if p.is_absolute() else ROOT / p).resolve()
            by_file.setdefault(p, []).append(d)

    rc, data, err = _run_tc(cmd, files)
    if rc in (0, 1) and data is not None:
        absorb(data)
    else:
        print(
            f"[oracle/compare] batch tilecheck run failed (exit {rc}); running file by file", file=sys.stderr
        )
        for f in files:
            rc, data, err = _run_tc(cmd, [f])
            if rc in (0, 1) and data is not None:
                absorb(data)
            else:
                errors[f.resolve()] = f"exit {rc}: {err.strip()[-600:]}"
    return {f: by_file.get(f.resolve(), []) for f in files}, {
        f: errors[f.resolve()] for f in files if f.resolve() in errors
    }


# --------------------------------------------------------------------------- comparison


def cases_line(path: Path) -> str:
    try:
        for ln in path.read_text().splitlines()[:5]:
            if ln.startswith("# cases:"):
                return ln[len("# cases:") :].strip()
    except OSError:
        pass
    return ""


def flags_line(path: Path) -> dict[str, bool]:
    """`# flags: use_tc=true, on=true`: the build-time value of each Python-level flag."""
    try:
        for ln in path.read_text().splitlines()[:5]:
            if ln.startswith("# flags:"):
                pairs = [
                    part.strip().split("=", 1) for part in ln[len("# flags:") :].split(",") if "=" in part
                ]
                return {name: value == "true" for name, value in pairs}
    except OSError:
        pass
    return {}


def applies(message: str, flags: dict[str, bool]) -> bool:
    """Whether a finding holds in this build: one that holds only "when `x` is true" (and ...)
    applies unless a flag of the file says otherwise; any other finding always applies."""
    _, note, tail = message.rpartition(" (when ")
    if not note or not tail.endswith(")"):
        return True
    for condition in tail[:-1].split(" and "):
        expr, _, value = condition.rpartition(" is ")
        name = expr.strip("`")
        if name in flags and flags[name] != (value == "true"):
            return False
    return True


def short(msg: str | None, n: int = 220) -> str:
    if not msg:
        return ""
    msg = msg.replace("[Tilelang Semantic Check] ", "")
    if 'name="' in msg and "ir.Op" in msg:  # the tile-op message embeds the whole ir.Op repr
        msg = (
            msg.split(" Got a tile-op", 1)[0]
            + ' Got tile-op "'
            + msg.split('name="', 1)[1].split('"', 1)[0]
            + '"'
        )
    return msg if len(msg) <= n else msg[: n - 3] + "..."


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="compare tilecheck with the real TileLang checkers")
    ap.add_argument("paths", nargs="*", default=["build/oracle/kernels"])
    ap.add_argument("--cache", default=str(ROOT / "build/oracle/tilelang_cache.json"))
    ap.add_argument(
        "--oracle-python",
        default=str(Path(os.environ.get("ORACLE_VENV", ROOT / ".oracle-venv")) / "bin" / "python"),
    )
    ap.add_argument("--tilelang-version", default=os.environ.get("TILELANG_VERSION", "0.1.15"))
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--report", help="also write a JSON report here")
    ap.add_argument("--max-list", type=int, default=0, help="list at most N disagreeing files (0 = all)")
    ap.add_argument("--oracle-only", action="store_true", help="only make sure TileLang verdicts are cached")
    args = ap.parse_args(argv)

    files = expand(args.paths)
    if not files:
        print("[oracle/compare] no kernel files", file=sys.stderr)
        return 2
    verdicts = oracle_verdicts(files, Path(args.cache), args.tilelang_version, args.oracle_python, args.jobs)
    built = [f for f in files if verdicts[f].get("status") == "ok"]
    unbuilt = [f for f in files if f not in built]
    print(
        f"[oracle/compare] {len(files)} file(s); TileLang built {len(built)}, "
        f"{len(unbuilt)} excluded (build error / crash / no kernel)"
    )
    for f in unbuilt:
        print(f"  excluded {f}: {verdicts[f].get('status')}: {short(verdicts[f].get('error'))}")
    if args.oracle_only:
        return 0
    if not built:
        return 2

    diags, tc_errors = tilecheck_diagnostics(built)
    rows: list[dict[str, Any]] = []  # one per disagreeing file, as the JSON report has them
    stats = {
        fam: {"agree": 0, "total": 0, "both": 0, "only_tilelang": 0, "only_tilecheck": 0, "neither": 0}
        for fam in FAMILIES
    }
    for f in built:
        if f in tc_errors:
            continue
        flags = flags_line(f)
        ds = [d for d in diags[f] if applies(str(d.get("message", "")), flags)]
        codes = {d.get("code") for d in ds}
        fams = verdicts[f]["families"]
        bad: list[dict[str, Any]] = []
        for fam, fam_codes in FAMILIES.items():
            tl = bool(fams[fam]["rejected"])
            tc = bool(codes & set(fam_codes))
            st = stats[fam]
            st["total"] += 1
            key = "both" if tl and tc else "only_tilelang" if tl else "only_tilecheck" if tc else "neither"
            st[key] += 1
            if tl == tc:
                st["agree"] += 1
            else:
                bad.append(
                    {
                        "family": fam,
                        "tilelang": tl,
                        "tilelang_message": fams[fam]["message"],
                        "tilecheck": [d for d in ds if d.get("code") in fam_codes],
                    }
                )
        if bad:
            rows.append({"path": str(f), "cases": cases_line(f), "disagreements": bad, "all_diagnostics": ds})

    print()
    print(
        f"{'family':<27}{'codes':<16}{'agree/total':>12}{'both':>7}{'only-TileLang':>15}"
        f"{'only-tilecheck':>16}{'neither':>9}"
    )
    for fam, st in stats.items():
        agree = f"{st['agree']}/{st['total']}"
        print(
            f"{fam:<27}{'/'.join(FAMILIES[fam]):<16}{agree:>12}{st['both']:>7}{st['only_tilelang']:>15}"
            f"{st['only_tilecheck']:>16}{st['neither']:>9}"
        )
    files_agree = len(built) - len(tc_errors) - len(rows)
    print(f"\nfiles agreeing on all three families: {files_agree}/{len(built) - len(tc_errors)}")

    if tc_errors:
        print(f"\ntilecheck failed on {len(tc_errors)} file(s):")
        for f, e in tc_errors.items():
            print(f"  {f}: {e}")
    if rows:
        listed = rows if args.max_list <= 0 else rows[: args.max_list]
        print(f"\n{len(rows)} disagreeing file(s):")
        for r in listed:
            print(f"\n- {r['path']}\n    cases: {r['cases']}")
            for b in r["disagreements"]:
                if b["tilelang"]:
                    print(f"    {b['family']}: TileLang REJECTS, tilecheck silent")
                    print(f"      TileLang: {short(b['tilelang_message'])}")
                else:
                    print(f"    {b['family']}: tilecheck reports, TileLang ACCEPTS")
                    for d in b["tilecheck"]:
                        print(
                            f"      tilecheck {d.get('code')} {d.get('line')}:{d.get('column')} "
                            f"[{d.get('grade')}/{d.get('severity')}] {short(d.get('message'))}"
                        )
            other = [
                d
                for d in r["all_diagnostics"]
                if d.get("code") not in {c for b in r["disagreements"] for c in FAMILIES[b["family"]]}
            ]
            for d in other:
                print(
                    f"      (other) {d.get('code')} {d.get('line')}:{d.get('column')} {short(d.get('message'), 120)}"
                )
        if len(listed) < len(rows):
            print(f"\n... {len(rows) - len(listed)} more (use --max-list 0)")

    if args.report:
        Path(args.report).parent.mkdir(parents=True, exist_ok=True)
        Path(args.report).write_text(
            json.dumps(
                {
                    "stats": stats,
                    "files": len(files),
                    "built": len(built),
                    "excluded": {str(f): verdicts[f].get("status") for f in unbuilt},
                    "tilecheck_errors": {str(f): e for f, e in tc_errors.items()},
                    "disagreements": rows,
                },
                indent=1,
            )
        )
    if tc_errors:
        return 2
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
