#!/usr/bin/env bash
# `make oracle`: differential test of tilecheck against the real TileLang checkers.
#
#   setup (.oracle-venv with tilelang==0.1.15)  ->  generate kernels (fixed seed)
#   -> TileLang verdicts (cached by content hash)  ->  compare with tilecheck
#
# Environment (all optional):
#   ORACLE_SEED   generator seed            (default 20240601)
#   ORACLE_COUNT  number of kernels         (default 400)
#   ORACLE_PROJECTS  number of multi-file projects (default 120)
#   ORACLE_OUT    kernel directory          (default build/oracle/kernels)
#   ORACLE_JOBS   TileLang worker processes (default 2)
#   ORACLE_SKIP_SETUP=1  do not run setup.sh (the venv must exist)
#   ORACLE_SMEM_SEED / ORACLE_SMEM_COUNT  the shared-memory family's generator (default 20261202 / 200)
#   ORACLE_CORPUS=1  also compare shared-memory sizes on a corpus of real TileLang files (long: one
#                    TileLang process per file); ORACLE_CORPUS_DIR (default ../shared/corpus/tilelang beside the checkout)
#   TILECHECK / TILECHECK_SUBCOMMAND / TILECHECK_EXTRA_ARGS  see compare.py
# Exit status: that of compare.py (0 agree, 1 disagreement, 2 could not run),
# or 0 after the TileLang step when the tilecheck CLI does not exist yet.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

SEED="${ORACLE_SEED:-20240601}"
COUNT="${ORACLE_COUNT:-400}"
OUT="${ORACLE_OUT:-build/oracle/kernels}"
JOBS="${ORACLE_JOBS:-2}"
VENV="${ORACLE_VENV:-$ROOT/.oracle-venv}"
CACHE="build/oracle/tilelang_cache.json"
PY="${PYTHON:-python3}"

if [ "${ORACLE_SKIP_SETUP:-0}" != "1" ]; then
    bash "$HERE/setup.sh"
fi

"$PY" "$HERE/generate.py" --seed "$SEED" --count "$COUNT" --projects "${ORACLE_PROJECTS:-120}" --out "$OUT"

"$VENV/bin/python" "$HERE/run_tilelang.py" --jobs "$JOBS" --cache "$CACHE" \
    --stderr-log build/oracle/tilelang_stderr.log --out build/oracle/verdicts.jsonl "$OUT"

"$PY" - build/oracle/verdicts.jsonl <<'PYEOF'
import collections, json, sys
recs = [json.loads(line) for line in open(sys.argv[1])]
status = collections.Counter(r["status"] for r in recs)
print(f"[oracle] TileLang verdicts: {dict(status)}")
for fam in ("NestedLoopChecker", "ParallelLocalIndexChecker", "FragmentLoopChecker"):
    n = sum(1 for r in recs if r.get("families", {}).get(fam, {}).get("rejected"))
    print(f"[oracle]   {fam}: rejects {n}/{len(recs)}")
bad = [r for r in recs if r["status"] != "ok"]
for r in bad:
    print(f"[oracle]   NOT BUILT {r['path']}: {r['status']}: {r.get('error')}")
PYEOF

if [ -z "${TILECHECK:-}" ] && [ ! -x "$ROOT/.venv/bin/tilecheck" ] \
    && [ ! -f "$ROOT/tilecheck/__main__.py" ] && [ ! -f "$ROOT/tilecheck/cli.py" ]; then
    echo "[oracle] tilecheck CLI not found (.venv/bin/tilecheck, tilecheck/__main__.py); stopping after the TileLang verdicts"
    exit 0
fi

releases_status=0
# The measured per-release data (signatures, checkers) against every installed release
# (tools/oracle/releases.sh installs them; the oracle venv is one of them).
RELEASES_DIR="${TILELANG_RELEASES_DIR:-$ROOT/build/tilelang-releases}"
releases=("$VENV/bin/python")
for python in "$RELEASES_DIR"/*/bin/python; do
    [ -x "$python" ] && releases+=("$python")
done
# (each release's venv preloads the stub and CUDA 12 libraries it needs: releases.sh)
"$PY" "$ROOT/tools/tilelang_versions.py" --check --python "${releases[@]}" || releases_status=$?

loops_status=0
"$PY" "$HERE/compare.py" --cache "$CACHE" --jobs "$JOBS" --report build/oracle/report.json "$OUT" || loops_status=$?

# The shared-memory family: TileLang's own size of each kernel's shared memory per block
# (`dyn_shared_memory_buf` + static __shared__ arrays) for sm_80 and sm_90a, against tilecheck's.
SMEM_OUT="build/oracle/smem/kernels"
"$PY" "$HERE/smem/generate.py" --seed "${ORACLE_SMEM_SEED:-20261202}" --count "${ORACLE_SMEM_COUNT:-200}" --out "$SMEM_OUT"
"$VENV/bin/python" "$HERE/smem/judge.py" --jobs "$JOBS" --cache build/oracle/smem/cache.json \
    --out build/oracle/smem/verdicts.jsonl "$SMEM_OUT"
smem_status=0
"$PY" "$HERE/smem/compare.py" --cache build/oracle/smem/cache.json --report build/oracle/smem/report.json \
    "$SMEM_OUT" || smem_status=$?
# The warp-specialised families, judged on sm_90a: `tma`, only kernels of the TMA shape tilecheck
# sizes; `plain`, loops TileLang does not warp-specialise (`T.serial`, num_stages=0), 128 and 256 threads.
for family in tma plain; do
    "$PY" "$HERE/smem/generate.py" --family "$family" --seed "${ORACLE_SMEM_SEED:-20261202}" \
        --count "${ORACLE_SMEM_COUNT:-200}" --out "build/oracle/smem/$family"
    "$VENV/bin/python" "$HERE/smem/judge.py" --jobs "$JOBS" --targets sm_90a --cache build/oracle/smem/cache.json \
        --out "build/oracle/smem/verdicts-$family.jsonl" "build/oracle/smem/$family"
    "$PY" "$HERE/smem/compare.py" --targets sm_90a --cache build/oracle/smem/cache.json \
        --report "build/oracle/smem/report-$family.json" "build/oracle/smem/$family" || smem_status=$?
done
corpus_status=0
if [ "${ORACLE_CORPUS:-0}" = "1" ]; then
    # tilecheck's size of every kernel build of a real corpus against TileLang's lowering of it.
    ORACLE_VENV="$VENV" "$PY" "$HERE/smem/corpus_judge.py" --jobs "$JOBS" \
        --cache build/oracle/smem/corpus_cache.json --report build/oracle/smem/corpus_report.json \
        "${ORACLE_CORPUS_DIR:-$ROOT/../shared/corpus/tilelang}" || corpus_status=$?
fi
smem_status=$(( smem_status > corpus_status ? smem_status : corpus_status ))
status=$(( loops_status > smem_status ? loops_status : smem_status ))
exit $(( status > releases_status ? status : releases_status ))
