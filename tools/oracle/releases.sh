#!/usr/bin/env bash
# Install TileLang releases side by side, for `tools/tilelang_versions.py` (the `make oracle` step
# that checks tilecheck/tilelang/versions_data.py against the releases themselves).
#
#   bash tools/oracle/releases.sh 0.1.0 0.1.1 ... 0.1.14
#
# Each release gets a venv in $TILELANG_RELEASES_DIR/<version> (default build/tilelang-releases)
# with `tilelang==<version>` only; its other dependencies (torch, numpy, ...) come from the oracle
# venv ($ORACLE_VENV, which must exist) through a .pth file, which keeps each install small. The
# releases differ in what else they need to import on a machine without a GPU, measured here:
#   - 0.1.0-0.1.2 link CUDA 12's libnvrtc.so.12 and libcudart.so.12 (nvidia-cuda-*-cu12 wheels);
#     0.1.1 and 0.1.2 also libtinfo.so.5 (a stub is built: LLVM only asks it about colours);
#   - 0.1.0-0.1.5 need Cython on PATH at the first import (they compile their JIT adapter), and
#     0.1.0-0.1.4 `attrs` and `decorator`;
#   - up to 0.1.7 the libraries link libcuda.so.1: a stub exporting the symbols they name
#     (each returning CUDA_ERROR_NO_DEVICE) is built in the release's `stubs/`;
#   - 0.1.7 needs apache-tvm-ffi 0.1.1 and CUDA 12's nvrtc/cudart; 0.1.8 and 0.1.9 tvm-ffi 0.1.4;
#     0.1.8 and 0.1.10-0.1.12 z3-solver 4.15.4 (`libz3.so.4.15` beside the package), with
#     tvm-ffi 0.1.10 (0.1.10) or 0.1.11 (0.1.11, 0.1.12): the oracle's newer tvm-ffi aborts them.
# The stubs and CUDA 12 libraries are preloaded by a .pth file of the venv, so its `bin/python`
# imports the release with no LD_LIBRARY_PATH.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DIR="${TILELANG_RELEASES_DIR:-$ROOT/build/tilelang-releases}"
VENV="${ORACLE_VENV:-$ROOT/.oracle-venv}"
DEPS="$("$VENV/bin/python" -c 'import site; print(site.getsitepackages()[0])')"
CU12="nvidia-cuda-nvrtc-cu12 nvidia-cuda-runtime-cu12"
mkdir -p "$DIR"

# stub SONAME SYMBOL-PATTERN RETURN: a library exporting the undefined symbols of the release's
# libraries that match the pattern (with their symbol versions), each returning RETURN.
stub() {
    local soname="$1" pattern="$2" value="$3" symbols versions node
    symbols="$(nm -D --undefined-only "$lib"/*.so | awk '{print $2}' | grep -E "$pattern" | sort -u || true)"
    [ -n "$symbols" ] || return 0
    sed 's/@.*//' <<<"$symbols" | sort -u | awk -v v="$value" '{print "int " $1 "(void) { return " v "; }"}' \
        > "$stubs/${soname%%.so*}.c"
    versions="$(grep '@' <<<"$symbols" | sed 's/.*@//' | sort -u || true)"
    local flags=(-shared -fPIC "-Wl,-soname,$soname")
    if [ -n "$versions" ]; then
        for node in $versions; do
            echo "$node { global: $(grep "@$node\$" <<<"$symbols" | sed 's/@.*//' | paste -sd';'); local: *; };"
        done > "$stubs/${soname%%.so*}.map"
        flags+=("-Wl,--version-script=$stubs/${soname%%.so*}.map")
    fi
    cc "${flags[@]}" -o "$stubs/$soname" "$stubs/${soname%%.so*}.c"
}

for version in "$@"; do
    target="$DIR/$version"
    python3 -m venv "$target"
    site="$("$target/bin/python" -c 'import site; print(site.getsitepackages()[0])')"
    rm -f "$site/zz_tilelang_libs.pth"  # a previous run's (rewritten below)
    "$target/bin/pip" install --quiet --no-deps "tilelang==$version"
    echo "$DEPS" > "$site/zz_oracle_deps.pth"
    extra=""
    case "$version" in
        0.1.0 | 0.1.1 | 0.1.2) extra="Cython attrs decorator $CU12" ;;
        0.1.3 | 0.1.4) extra="Cython attrs decorator" ;;
        0.1.5) extra="Cython" ;;
        0.1.7) extra="apache-tvm-ffi==0.1.1 $CU12" ;;
        0.1.8) extra="apache-tvm-ffi==0.1.4 z3-solver==4.15.4.0" ;;
        0.1.9) extra="apache-tvm-ffi==0.1.4" ;;
        0.1.10) extra="apache-tvm-ffi==0.1.10 z3-solver==4.15.4.0" ;;
        0.1.11 | 0.1.12) extra="apache-tvm-ffi==0.1.11 z3-solver==4.15.4.0" ;;
    esac
    # --ignore-installed: the oracle's own (newer) copies would otherwise count as installed
    [ -z "$extra" ] || "$target/bin/pip" install --quiet --no-deps --ignore-installed $extra
    lib="$site/tilelang/lib"
    stubs="$target/stubs"
    rm -rf "$stubs" && mkdir -p "$stubs"
    needed="$(readelf -d "$lib"/*.so)"  # (not piped into `grep -q`: pipefail and SIGPIPE)
    if grep -q 'NEEDED.*\[libcuda\.so\.1\]' <<<"$needed"; then
        stub libcuda.so.1 '^cu[A-Z]' 100
    fi
    if grep -q 'NEEDED.*\[libtinfo\.so\.5\]' <<<"$needed"; then
        stub libtinfo.so.5 '@NCURSES' -1
    fi
    cat > "$site/zz_tilelang_libs.pth" <<EOF
import ctypes, glob; [ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL) for ctypes, glob in [(ctypes, glob)] for path in sorted(glob.glob("$stubs/lib*.so*")) + glob.glob("$site/nvidia/cuda_runtime/lib/libcudart.so.12") + glob.glob("$site/nvidia/cuda_nvrtc/lib/libnvrtc.so.12")]
EOF
    # PATH: the first import of 0.1.0-0.1.5 runs `cython` to build their JIT adapter (then cached)
    PATH="$target/bin:$PATH" "$target/bin/python" -c "import tilelang.language" >/dev/null 2>&1 \
        && echo "[releases] tilelang $version: installed in $target" \
        || echo "[releases] tilelang $version: installed in $target, but it does not import here"
done
