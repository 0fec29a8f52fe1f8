#!/usr/bin/env bash
# Builds the importer fuzzers with clang's libFuzzer (+ AddressSanitizer and
# UndefinedBehaviorSanitizer) straight from the sources, makes a seed corpus
# of small valid inputs, and runs each target for a while.
#
#   tests/fuzz/run_fuzz.sh [SECONDS_PER_TARGET=60] [WORK_DIR=build/fuzz]
#
# Targets: kineto_fuzz (bytes = a Kineto trace file, JSON or gzip),
# nsys_fuzz (bytes = an Nsight Systems SQLite export), topology_fuzz
# (bytes = a topology TOML file) and presets_fuzz (bytes = a preset file). Exits non-zero when a
# target finds a crash, a sanitizer report, a timeout or a broken invariant;
# the input is left in WORK_DIR/artifacts. Needs clang++ (14+), python3 and
# the -dev packages of simdjson, zlib and sqlite3.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
work=${2:-$root/build/fuzz}
cxx=${BRAID_FUZZ_CXX:-clang++}
shared=${BRAID_SHARED_DIR:-$root/../shared}

mkdir -p "$work"
work=$(cd "$work" && pwd)  # absolute: the script changes directory below
mkdir -p "$work/obj" "$work/artifacts" "$work/corpus/kineto" "$work/corpus/nsys" "$work/corpus/topology" "$work/corpus/presets"
cd "$work"

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cxxflags="-std=c++20 -g -O1 $sanitize -I$root/core/include -I$root/profiler/include -I$root/profiler/src/importers -I$root/presets/include"
sources=(
  "$root/profiler/src/intervals.cc"
  "$root/profiler/src/hta/hta_figures.cc"
  "$root/profiler/src/importers/file_bytes.cc"
  "$root/profiler/src/importers/kineto_json.cc"
  "$root/profiler/src/importers/kineto_importer.cc"
  "$root/profiler/src/importers/nsys_importer.cc"
  "$root/profiler/src/importers/nsys_rows.cc"
  "$root/profiler/src/importers/sqlite_reader.cc"
  "$root/core/src/status.cc"
  "$root/core/src/topology.cc"
  "$root/core/src/toml_reader.cc"
  "$root/core/src/toml_fields.cc"
  "$root/presets/src/topology_toml.cc"
  "$root/core/src/workload.cc"
  "$root/core/src/overlap_config.cc"
  "$root/core/src/row_split.cc"
  "$root/presets/src/preset_file.cc"
  "$root/presets/src/preset_writer.cc"
  "$root/presets/src/preset_table.cc"
)
targets=(kineto_fuzz nsys_fuzz topology_fuzz presets_fuzz)

echo "== building with $cxx"
objects=()
for src in "${sources[@]}"; do
  obj="obj/$(basename "${src%.cc}").o"
  if [[ ! -f $obj || $src -nt $obj || $0 -nt $obj ]]; then
    # shellcheck disable=SC2086
    "$cxx" $cxxflags -fsanitize=fuzzer-no-link -c "$src" -o "$obj" &
  fi
  objects+=("$obj")
done
wait
for target in "${targets[@]}"; do
  # shellcheck disable=SC2086
  "$cxx" $cxxflags -fsanitize=fuzzer -I"$root/tests/fuzz" "$root/tests/fuzz/$target.cc" "${objects[@]}" \
    -lsimdjson -lz -lsqlite3 -o "$target"
done

echo "== seeds"
rm -rf seeds
python3 "$root/tests/fuzz/make_seeds.py" seeds/kineto seeds/nsys "$shared/traces"
mkdir -p seeds/topology
cp "$root"/presets/topologies/*.toml seeds/topology/
mkdir -p seeds/presets
cp "$root"/presets/examples/*.toml seeds/presets/

status=0
summary=()
for target in "${targets[@]}"; do
  name=${target%_fuzz}
  echo "== $target for ${secs}s"
  dict=()
  [[ -f $root/tests/fuzz/$name.dict ]] && dict=(-dict="$root/tests/fuzz/$name.dict")
  set +e
  "./$target" "${dict[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$name-" "corpus/$name" "seeds/$name" > "$name.log" 2>&1
  rc=$?
  set -e
  tail -n 12 "$name.log"
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$name.log" | grep -o '[0-9]*$' || echo '?')
  summary+=("$target: $execs executions in ${secs}s, exit $rc")
  if [[ $rc -ne 0 ]]; then
    status=1
    echo "!! $target failed (exit $rc); inputs in $work/artifacts" >&2
  fi
done

echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
