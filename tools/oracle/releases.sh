#!/usr/bin/env bash
# Install TileLang releases side by side, for `tools/tilelang_versions.py` (the `make oracle` step
# that checks tilecheck/tilelang/versions_data.py against the releases themselves).
#
#   bash tools/oracle/releases.sh 0.1.5 0.1.9 0.1.12 0.1.13 0.1.14
#
# Each release gets a venv in $TILELANG_RELEASES_DIR/<version> (default build/tilelang-releases)
# with `tilelang==<version>` only; its other dependencies (torch, numpy, ...) come from the oracle
# venv ($ORACLE_VENV, which must exist) through a .pth file, which keeps each install small. The
# releases differ in what else they need on a machine without a GPU, measured here:
#   - 0.1.9 needs an apache-tvm-ffi older than the oracle's (0.1.4);
#   - 0.1.12 needs apache-tvm-ffi 0.1.11 and z3-solver 4.15.4;
#   - up to 0.1.5 the libraries link libcuda.so.1: a stub exporting the symbols they name is built
#     in $TILELANG_RELEASES_DIR/stubs (put it on LD_LIBRARY_PATH when measuring), and Cython is needed.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DIR="${TILELANG_RELEASES_DIR:-$ROOT/build/tilelang-releases}"
VENV="${ORACLE_VENV:-$ROOT/.oracle-venv}"
DEPS="$("$VENV/bin/python" -c 'import site; print(site.getsitepackages()[0])')"
mkdir -p "$DIR"
for version in "$@"; do
    target="$DIR/$version"
    python3 -m venv "$target"
    "$target/bin/pip" install --quiet --no-deps "tilelang==$version"
    echo "$DEPS" > "$("$target/bin/python" -c 'import site; print(site.getsitepackages()[0])')/zz_oracle_deps.pth"
    case "$version" in
        0.1.9) "$target/bin/pip" install --quiet --no-deps apache-tvm-ffi==0.1.4 ;;
        0.1.12) "$target/bin/pip" install --quiet --no-deps apache-tvm-ffi==0.1.11 z3-solver==4.15.4.0 ;;
        0.1.[0-5]*) "$target/bin/pip" install --quiet Cython
            lib="$target/lib/python3"*/site-packages/tilelang/lib
            mkdir -p "$DIR/stubs"
            nm -D --undefined-only $lib/*.so | awk '{print $2}' | grep '^cu[A-Z]' | sed 's/@.*//' | sort -u \
                | awk '{print "int " $1 "(void) { return 100; }"}' > "$DIR/stubs/cuda.c"
            cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$DIR/stubs/libcuda.so.1" "$DIR/stubs/cuda.c" ;;
    esac
    LD_LIBRARY_PATH="$DIR/stubs" "$target/bin/python" -c "import tilelang.language" >/dev/null 2>&1 \
        && echo "[releases] tilelang $version: installed in $target" \
        || echo "[releases] tilelang $version: installed in $target, but it does not import here"
done
