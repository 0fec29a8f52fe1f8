#!/usr/bin/env bash
# clang-tidy (.clang-tidy at the root) on the C++ files changed since BASE
# (default: the last 10 commits), with the compile commands of BUILD_DIR.
# The whole tree takes longer than CI's budget on two cores, so CI checks
# what changed; `tests/clang_tidy.sh --all` checks everything.
#
#   tests/clang_tidy.sh [--all] [BUILD_DIR=build/release]
set -euo pipefail
cd "$(dirname "$0")/.."
all=0
if [[ ${1:-} == --all ]]; then all=1; shift; fi
build=${1:-build/release}
base=${BRAID_TIDY_BASE:-HEAD~10}
if [[ ! -f $build/compile_commands.json ]]; then
  echo "clang-tidy: no $build/compile_commands.json (configure first)" >&2
  exit 2
fi
if [[ $all == 1 ]] || ! git rev-parse -q --verify "$base" > /dev/null; then
  mapfile -t files < <(git ls-files '*.cc')
else
  mapfile -t files < <(git diff --name-only --diff-filter=AM "$base" -- '*.cc')
fi
# Our code that the build compiles (fuzz targets are built by their own script).
selected=()
for f in "${files[@]}"; do
  [[ $f == tests/fuzz/* ]] && continue
  grep -q "\"file\": \"$PWD/$f\"" "$build/compile_commands.json" && selected+=("$f")
done
echo "clang-tidy: ${#selected[@]} file(s)"
[[ ${#selected[@]} == 0 ]] && exit 0
# pipefail: the verdict is xargs' (non-zero when any clang-tidy found something).
printf '%s\n' "${selected[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet \
  --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-c99-extensions 2>&1 | { grep -v "warnings generated\|^Suppressed\|^Use -header-filter" || true; }
echo "clang-tidy: clean"
