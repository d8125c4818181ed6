#!/usr/bin/env bash
# Idempotent setup of the differential-oracle environment.
#
# Creates .oracle-venv/ in the repository root (if missing) and installs the
# real TileLang (the oracle) into it.  TileLang runs on the CPU here: we only
# build PrimFuncs and run its pre-lower semantic checkers, nothing is compiled.
#
# Environment:
#   ORACLE_VENV       venv location            (default: <repo>/.oracle-venv)
#   ORACLE_PYTHON     interpreter for the venv (default: python3)
#   TILELANG_VERSION  pinned oracle version    (default: 0.1.15)
#   ORACLE_INSTALL_SELF=1  also `pip install -e .` the checkout into the venv
#                     (optional; compare.py calls the main project's CLI instead)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="${ORACLE_VENV:-$ROOT/.oracle-venv}"
PY="${ORACLE_PYTHON:-python3}"
VERSION="${TILELANG_VERSION:-0.1.15}"

if [ ! -x "$VENV/bin/python" ]; then
    echo "[oracle/setup] creating $VENV"
    "$PY" -m venv "$VENV"
fi

have_version() {
    "$VENV/bin/python" - "$VERSION" <<'EOF' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(0 if version("tilelang") == sys.argv[1] else 1)
EOF
}

if have_version; then
    echo "[oracle/setup] tilelang==$VERSION already installed in $VENV"
else
    echo "[oracle/setup] installing tilelang==$VERSION into $VENV (large: torch + TVM)"
    "$VENV/bin/pip" install --quiet "tilelang==$VERSION"
fi

# Smoke test: the three checkers the oracle needs must exist.
"$VENV/bin/python" - <<'EOF'
import tilelang.analysis as a
for name in ("NestedLoopChecker", "ParallelLocalIndexChecker", "FragmentLoopChecker"):
    assert hasattr(a, name), name
print("[oracle/setup] tilelang", __import__("tilelang").__version__, "ok")
EOF

if [ "${ORACLE_INSTALL_SELF:-0}" = "1" ] && [ -f "$ROOT/pyproject.toml" ]; then
    "$VENV/bin/pip" install --quiet -e "$ROOT" || echo "[oracle/setup] warning: pip install -e . failed (ignored)"
fi
