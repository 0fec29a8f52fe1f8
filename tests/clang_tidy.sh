#!/usr/bin/env bash
# clang-tidy (.clang-tidy at the root) with the compile commands of BUILD_DIR.
#
# By default (what CI runs): the .cc files changed since BASE (default: the
# last 10 commits), the most recently changed first, at most MAX of them
# (default 16), plus the .cc files of the headers that every module includes
# (status, workload, plan, config, topology, plan graph, store), whose
# findings in those headers then show. The whole tree takes far longer than
# CI's budget on two cores; `tests/clang_tidy.sh --all` checks everything.
#
#   tests/clang_tidy.sh [--all] [BUILD_DIR=build/release]
#   BRAID_TIDY_BASE=main~3 BRAID_TIDY_MAX=40 tests/clang_tidy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
all=0
if [[ ${1:-} == --all ]]; then all=1; shift; fi
build=${1:-build/release}
base=${BRAID_TIDY_BASE:-HEAD~10}
max=${BRAID_TIDY_MAX:-16}
always=(core/src/status.cc core/src/workload.cc core/src/plan.cc core/src/overlap_config.cc core/src/topology.cc
  core/src/plan_graph.cc db/src/store_open.cc)
if [[ ! -f $build/compile_commands.json ]]; then
  echo "clang-tidy: no $build/compile_commands.json (configure first)" >&2
  exit 2
fi
if [[ $all == 1 ]]; then
  mapfile -t files < <(git ls-files '*.cc')
else
  files=("${always[@]}")
  # A shallow clone without BASE checks the fixed list only.
  if git rev-parse -q --verify "$base" > /dev/null; then
    # Newest first, each file once, only files that still exist.
    mapfile -t changed < <(git log --format= --name-only --diff-filter=AM "$base..HEAD" -- '*.cc' | awk 'NF && !seen[$0]++')
    n=0
    for f in "${changed[@]}"; do
      [[ -f $f ]] || continue
      [[ " ${files[*]} " == *" $f "* ]] && continue
      ((n < max)) || break
      files+=("$f")
      n=$((n + 1))
    done
  fi
fi
# Files are compiled a few to a unity unit (cmake/BraidUnity.cmake), so the
# database names the units: each file a unit includes gets the unit's
# command. Without unity builds they are compiled with GCC's precompiled
# header (-include cmake_pch.hxx, beside it the .gch clang cannot read):
# clang-tidy gets the same commands without it, and parses its includes itself.
commands=$(mktemp -d)
trap 'rm -rf "$commands"' EXIT
python3 - "$build/compile_commands.json" "$commands/compile_commands.json" <<'PY'
import json, re, sys
entries = json.load(open(sys.argv[1]))
out = []
for e in entries:
    e = dict(e, command=re.sub(r" -include [^ ]*cmake_pch\.hxx| -Winvalid-pch", "", e["command"]))
    out.append(e)
    if re.search(r"/Unity/unity_[0-9]+_cxx\.cxx$", e["file"]):
        for member in re.findall(r'^#include "([^"]+)"$', open(e["file"]).read(), re.M):
            out.append(dict(e, file=member, command=e["command"].replace(e["file"], member)))
json.dump(out, open(sys.argv[2], "w"), indent=1)
PY
build=$commands
# Our code that the build compiles (fuzz targets are built by their own script).
selected=()
for f in "${files[@]}"; do
  [[ $f == tests/fuzz/* ]] && continue
  grep -q "\"file\": \"$PWD/$f\"" "$build/compile_commands.json" && selected+=("$f")
done
echo "clang-tidy: ${#selected[@]} file(s)"
[[ ${#selected[@]} == 0 ]] && exit 0
# pipefail: the verdict is xargs' (non-zero when any clang-tidy found something).
printf '%s\n' "${selected[@]}" | xargs -P "$(nproc)" -n 2 clang-tidy -p "$build" --quiet \
  --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-c99-extensions 2>&1 | { grep -v "warnings generated\|^Suppressed\|^Use -header-filter" || true; }
echo "clang-tidy: clean"
