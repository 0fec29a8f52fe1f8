#!/usr/bin/env bash
# The whole test suite: build and test the release and asan (Address + UB
# sanitizer) presets, the cpu backend's tests under ThreadSanitizer, and a
# short libFuzzer run of every parser of outside files; style first
# (clang-format) and clang-tidy on what changed (tests/clang_tidy.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
export OPENBLAS_NUM_THREADS=1
# Each phase's wall time, so that what makes CI long is on record.
phase_start=$SECONDS
took() { echo "-- $1: $((SECONDS - phase_start)) s"; phase_start=$SECONDS; }
echo "== clang-format (every tracked C, C++ and CUDA file)"
git ls-files -z '*.c' '*.cc' '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh' | xargs -0 clang-format --dry-run -Werror
took "clang-format"
for preset in release asan; do
  echo "== $preset"
  cmake --preset "$preset" > /dev/null
  cmake --build --preset "$preset" -j "$jobs"
  took "$preset build"
  ctest --preset "$preset" -j "$jobs"
  took "$preset tests"
  if [[ $preset == release ]]; then
    echo "== clang-tidy (files changed in the last 10 commits, at most 16, and the core headers' files)"
    bash tests/clang_tidy.sh build/release
    took "clang-tidy"
  fi
done
echo "== tsan (cpu backend, cuda orchestration on the fakes, the Kineto import's workers, the viewer's loader threads)"
cmake --preset tsan > /dev/null
cmake --build build/tsan -j "$jobs" --target braid_cpu_tests braid_cuda_tests braid_importers_tests braid_gui_model_tests
took "tsan build"
ctest --preset tsan -j "$jobs"
took "tsan tests"
echo "== fuzz (importers, topology files)"
bash tests/fuzz/run_fuzz.sh "${BRAID_FUZZ_SECONDS:-20}" build/fuzz
took "fuzz"
