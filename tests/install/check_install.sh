#!/usr/bin/env bash
# Installs the presets component as an application would get it and builds
# two consumers against the install tree:
#   1. a presets-only build (BRAID_ONLY_PRESETS) with every other dependency
#      hidden (CMAKE_DISABLE_FIND_PACKAGE_*), installed to a prefix;
#   2. the installed CMake targets file names none of sqlite, openblas,
#      Qt, cuda;
#   3. tests/install/consumer (find_package(braid COMPONENTS presets)) and
#      its C program (pkg-config braid-presets) built and run on
#      presets/examples/example.toml;
#   4. the catalog component added to the prefix, and the consumer with
#      WITH_CATALOG (find_package(braid COMPONENTS catalog), braid::models).
# Usage: check_install.sh [WORK_DIR]  (default: a temporary folder, removed
# afterwards; a given one is kept and reused, so reruns are incremental).
# Honors CC and CXX. Exits non-zero with one line naming the failed step.
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
if [[ $# -ge 1 ]]; then
  work=$1
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
build=$work/build prefix=$work/prefix consumer=$work/consumer log=$work/log
rm -rf "$prefix" "$consumer" "$consumer-catalog"
: > "$log"
example=$src/presets/examples/example.toml

fail() {
  tail -n 30 "$log" >&2
  echo "check_install: FAILED: $*" >&2
  exit 1
}
step() {  # step DESCRIPTION COMMAND...: runs COMMAND, its output to the log
  local what=$1
  shift
  echo "== $what" >> "$log"
  "$@" >> "$log" 2>&1 || fail "$what (log: $log)"
}

hidden=()
for p in SQLite3 BLAS CLI11 simdjson ZLIB nlohmann_json Qt6 MPI CUDAToolkit Python3 pybind11 GTest benchmark; do
  hidden+=("-DCMAKE_DISABLE_FIND_PACKAGE_$p=ON")
done
# No build type (no -O2): this checks the install tree, not the code, and
# compiles in half the time.
step "configure a presets-only build with other dependencies hidden" \
  cmake --no-warn-unused-cli -S "$src" -B "$build" -DCMAKE_BUILD_TYPE= -DBRAID_ONLY_PRESETS=ON \
  -DBRAID_BUILD_TESTS=OFF -DBRAID_BUILD_BENCH=OFF "${hidden[@]}"
step "build braid_presets" cmake --build "$build" -j 2 --target braid_presets braid_te braid_version
step "install the presets component" cmake --install "$build" --component presets --prefix "$prefix"

cmakedir=$prefix/lib/cmake/braid
for f in braidConfig.cmake braidConfigVersion.cmake braid-presets-targets.cmake; do
  [[ -f $cmakedir/$f ]] || fail "$cmakedir/$f was not installed"
done
for f in include/braid_presets.h include/braid/presets.h include/braid/status.h lib/libbraid_presets.a \
  lib/libbraid_core.a lib/pkgconfig/braid-presets.pc; do
  [[ -f $prefix/$f ]] || fail "$prefix/$f was not installed"
done
[[ -e $cmakedir/braid-catalog-targets.cmake ]] && fail "the presets component installed the catalog targets"
if bad=$(grep -il -e sqlite -e openblas -e qt6 -e cuda "$cmakedir"/braid-presets-targets*.cmake); then
  fail "the installed presets targets name a dependency beyond the standard library: $bad"
fi

step "configure the CMake consumer (find_package(braid COMPONENTS presets))" \
  cmake -S "$src/tests/install/consumer" -B "$consumer" -DCMAKE_PREFIX_PATH="$prefix"
step "build the CMake consumer" cmake --build "$consumer"
out=$("$consumer/preset_lookup" "$example" 2>&1) || fail "the CMake consumer failed: $out"
want="gemm_rs M=4096 N=8192 K=28672 bf16 P=8: ring chunks=2 streams=2"
[[ $out == "$want"* ]] || fail "the CMake consumer printed '$out', expected '$want...'"
echo "cmake consumer: $out"

flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs braid-presets) ||
  fail "pkg-config knows no braid-presets under $prefix/lib/pkgconfig"
# shellcheck disable=SC2086  # flags are words
step "build the C consumer with: $flags" \
  "${CC:-cc}" -std=c11 -Wall -Wextra -Wpedantic -Werror "$src/tests/install/consumer/preset_lookup.c" \
  -o "$work/preset_lookup_c" $flags
out=$("$work/preset_lookup_c" "$example" 2>&1) || fail "the C consumer failed: $out"
want="gemm_rs: ring chunks=2 streams=2 match=1"
[[ $out == "$want" ]] || fail "the C consumer printed '$out', expected '$want'"
echo "c consumer (pkg-config): $out"

step "build the catalog libraries" cmake --build "$build" -j 2 --target braid_topology braid_gpu braid_models
step "install the catalog component" cmake --install "$build" --component catalog --prefix "$prefix"
step "configure the consumer with WITH_CATALOG (find_package(braid COMPONENTS catalog))" \
  cmake -S "$src/tests/install/consumer" -B "$consumer-catalog" -DCMAKE_PREFIX_PATH="$prefix" \
  -DWITH_CATALOG=ON
step "build the consumer with WITH_CATALOG" cmake --build "$consumer-catalog"
out=$("$consumer-catalog/model_names" 2>&1) || fail "the catalog consumer failed: $out"
want="llama3-70b hidden=8192"
[[ $out == *"$want" ]] || fail "the catalog consumer printed '$out', expected '...$want'"
echo "cmake consumer (catalog): ${out//$'\n'/; }"
echo "check_install: OK"
