#!/usr/bin/env bash
# The test suite under load (issue: the suite must not depend on the machine's speed): starts
# two busy processes per core (as `stress --cpu`), runs the given command (default: `.ci/run`,
# the CI entry point), and stops exactly the processes it started, by their ids.
#   tools/stress_run.sh                      # .ci/run under load
#   tools/stress_run.sh make test            # any command
#   BUSY=4 tools/stress_run.sh .venv/bin/python -m pytest tests/server -q
set -euo pipefail
cd "$(dirname "$0")/.."
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
busy=${BUSY:-$((2 * cores))}
pids=()
stop_load() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_load EXIT
for _ in $(seq "$busy"); do
  ( while :; do :; done ) &
  pids+=("$!")
done
echo "stress_run: $busy busy processes on $cores cores; running: ${*:-.ci/run}" >&2
if [ "$#" -eq 0 ]; then set -- .ci/run; fi
"$@"
