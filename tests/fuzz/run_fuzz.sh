#!/usr/bin/env bash
# Builds the importer fuzzers with clang's libFuzzer (+ AddressSanitizer and
# UndefinedBehaviorSanitizer) straight from the sources, makes a seed corpus
# of small valid inputs, and runs each target for a while.
#
#   tests/fuzz/run_fuzz.sh [SECONDS_PER_TARGET=60] [WORK_DIR=build/fuzz]
#
# Targets: kineto_fuzz (bytes = a Kineto trace file, JSON or gzip),
# kineto_job_fuzz (bytes = a job of rank files separated by "@@rank@@" lines),
# nsys_fuzz (bytes = an Nsight Systems SQLite export), topology_fuzz
# (bytes = a topology TOML file), presets_fuzz (bytes = a preset file),
# run_record_fuzz (bytes = a stored run's config and notes JSON),
# measured_fuzz (bytes = a board's measurement CSV for calibrate --fit) and
# ub_cfgs_fuzz (bytes = a TransformerEngine ub_cfgs YAML, read with yaml-cpp).
# Exits non-zero when a target finds a crash, a sanitizer report, a timeout or a broken invariant;
# the input is left in WORK_DIR/artifacts. Needs clang++ (14+), python3 and
# the -dev packages of simdjson, libdeflate, zlib, sqlite3 and yaml-cpp (and
# ISA-L's, libisal-dev, for the inflating reader).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
work=${2:-$root/build/fuzz}
cxx=${BRAID_FUZZ_CXX:-clang++}
shared=${BRAID_SHARED_DIR:-$root/../shared}

mkdir -p "$work"
work=$(cd "$work" && pwd)  # absolute: the script changes directory below
mkdir -p "$work/obj" "$work/artifacts" "$work/corpus/kineto" "$work/corpus/kineto_job" "$work/corpus/nsys" "$work/corpus/topology" "$work/corpus/presets" "$work/corpus/run_record" "$work/corpus/measured" "$work/corpus/ub_cfgs"
cd "$work"

# The git revision header CMake writes when building (cmake/BraidGitRevision.cmake).
mkdir -p "$work/gen"
echo '#define BRAID_GIT_REVISION "fuzz"' > "$work/gen/braid_git_revision.h"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# ISA-L (libisal-dev) where it is installed, as the CMake build does.
isal_flags="" isal_lib=""
if [[ -f /usr/include/isa-l/igzip_lib.h ]]; then isal_flags="-DBRAID_HAVE_ISAL" isal_lib="-lisal"; fi
cxxflags="-std=c++20 -g -O1 $sanitize $isal_flags -I$root/core/include -I$root/profiler/include -I$root/profiler/src/importers -I$root/presets/include -I$root/catalog/include -I$root/db/include -I$root/db/src -I$root/kernels/include -I$root/tuner/include -I$root/pipeline/include -I$root/db/codec/include -I$root/cli -I$root/kernels/sim/include -I$work/gen"
sources=(
  "$root/profiler/src/intervals.cc"
  "$root/profiler/src/hta/hta_figures.cc"
  "$root/profiler/src/comm_kernels.cc"
  "$root/profiler/src/gemm_overlap.cc"
  "$root/profiler/src/gemm_keys.cc"
  "$root/profiler/src/importers/file_bytes.cc"
  "$root/profiler/src/importers/gzip_window.cc"
  "$root/profiler/src/importers/kineto_json.cc"
  "$root/profiler/src/importers/kineto_importer.cc"
  "$root/profiler/src/importers/trace_dir.cc"
  "$root/profiler/src/importers/nsys_importer.cc"
  "$root/profiler/src/importers/nsys_rows.cc"
  "$root/profiler/src/importers/sqlite_reader.cc"
  "$root/core/src/status.cc"
  "$root/core/src/status_context.cc"
  "$root/core/src/backend_kind.cc"
  "$root/core/src/safe_write.cc"
  "$root/core/src/safe_read.cc"
  "$root/core/src/topology.cc"
  "$root/core/src/toml_reader.cc"
  "$root/core/src/toml_scanner.cc"
  "$root/core/src/toml_fields.cc"
  "$root/core/src/toml_quote.cc"
  "$root/catalog/src/topology_toml.cc"
  "$root/catalog/src/error_band_table.cc"
  "$root/core/src/workload.cc"
  "$root/core/src/layer_workload.cc"
  "$root/core/src/overlap_config.cc"
  "$root/core/src/comm_sms_effect.cc"
  "$root/presets/src/te_options.cc"
  "$root/presets/src/te_block.cc"
  "$root/presets/src/te_yaml.cc"
  "$root/core/src/row_split.cc"
  "$root/presets/src/preset_file.cc"
  "$root/presets/src/dp_preset_file.cc"
  "$root/core/src/data_parallel.cc"
  "$root/core/src/dp_schedule.cc"
  "$root/presets/src/preset_writer.cc"
  "$root/presets/src/preset_table.cc"
  "$root/profiler/src/metrics.cc"
  "$root/profiler/src/run_figures.cc"
  "$root/profiler/src/bound_gap.cc"
  "$root/core/src/version.cc"
  "$root/core/src/plan.cc"
  "$root/db/src/sqlite_check.cc"
  "$root/db/src/statement.cc"
  "$root/db/src/schema.cc"
  "$root/db/src/store_open.cc"
  "$root/db/src/run_writer.cc"
  "$root/db/src/run_reader.cc"
  "$root/db/src/sessions.cc"
  "$root/db/src/metric_rows.cc"
  "$root/db/codec/src/stored_config.cc"
  "$root/db/codec/src/stored_notes.cc"
  "$root/db/codec/src/stored_trial.cc"
  "$root/db/codec/src/notes_keys.cc"
  "$root/db/codec/src/note_records.cc"
  "$root/db/codec/src/session_options.cc"
  "$root/pipeline/src/run_record.cc"
  "$root/pipeline/src/run_json.cc"
  "$root/cli/run_report.cc"
  "$root/kernels/sim/src/measured_csv.cc"
  "$root/kernels/sim/src/sim_measured.cc"
  "$root/kernels/sim/src/kernel_tile_name.cc"
)
targets=(kineto_fuzz kineto_job_fuzz nsys_fuzz topology_fuzz presets_fuzz run_record_fuzz measured_fuzz ub_cfgs_fuzz)

echo "== building with $cxx"
# Compiles, links and runs as jobs, as many at once as there are cores
# (xargs -P): the pieces are independent, and CI's time is mostly waiting.
jobs=$(nproc)
export cxx cxxflags root isal_lib secs work
objects=() stale=()
for src in "${sources[@]}"; do
  obj="obj/$(basename "${src%.cc}").o"
  if [[ ! -f $obj || $src -nt $obj || $0 -nt $obj ]]; then stale+=("$src"); fi
  objects+=("$obj")
done
export objects_list="${objects[*]}"
compile_one() {
  local obj="obj/$(basename "${1%.cc}").o"
  # shellcheck disable=SC2086
  "$cxx" $cxxflags -fsanitize=fuzzer-no-link -c "$1" -o "$obj" || { rm -f "$obj"; return 1; }
}
link_one() {
  # shellcheck disable=SC2086
  "$cxx" $cxxflags -fsanitize=fuzzer -I"$root/tests/fuzz" "$root/tests/fuzz/$1.cc" $objects_list \
    -lsimdjson -ldeflate -lz -lsqlite3 -lyaml-cpp $isal_lib -o "$1"
}
export -f compile_one link_one
if (( ${#stale[@]} > 0 )); then
  printf '%s\0' "${stale[@]}" | xargs -0 -P "$jobs" -n 1 bash -c 'compile_one "$1"' _
fi
printf '%s\0' "${targets[@]}" | xargs -0 -P "$jobs" -n 1 bash -c 'link_one "$1"' _

echo "== seeds"
rm -rf seeds
python3 "$root/tests/fuzz/make_seeds.py" seeds/kineto seeds/nsys "$shared/traces"
# The frameworks' patterns (tests/data/framework_traces): TE userbuffers,
# PyTorch symmetric memory and NCCL kernels, GPU annotations, NVTX ranges.
for dir in "$root"/tests/data/framework_traces/kineto/*/; do
  cp "$dir/rank0.json" "seeds/kineto/framework_$(basename "$dir").json"
done
for sql in "$root"/tests/data/framework_traces/nsys/*.sql; do
  python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[2]).executescript(open(sys.argv[1]).read())' \
    "$sql" "seeds/nsys/framework_$(basename "${sql%.sql}").sqlite"
done
# Jobs: each framework pattern's ranks as one input, read from the folder
# (first byte 1) and from the files listed (0), on several threads.
mkdir -p seeds/kineto_job
for dir in "$root"/tests/data/framework_traces/kineto/*/; do
  for how in 0 1 2; do
    python3 -c 'import sys, glob
how = int(sys.argv[2])
ranks = [open(f, "rb").read() for f in sorted(glob.glob(sys.argv[1] + "/rank*.json"))]
sys.stdout.buffer.write(bytes([how]) + b"\n@@rank@@\n".join(ranks))' "$dir" "$how" \
      > "seeds/kineto_job/$(basename "$dir")_$how"
  done
done
mkdir -p seeds/topology
cp "$root"/catalog/topologies/*.toml seeds/topology/
mkdir -p seeds/presets
cp "$root"/presets/examples/*.toml seeds/presets/
printf 'format = "braid-presets"\nversion = 5\n[[dp_preset]]\ngpu = "h100-sxm"\ntopology = "t"\nmodel = "m"\ntokens = 8192\ntp = 8\ndp = 4\nzero = "1"\ndtype = "bf16"\nschedule = "decomposed"\nbucket_params = 40000000\ndecomposed_layers = 2\ndecomposition = "direct"\ndecomposition_chunks = 2\nprefetch = 1\ncomm_sms = 8\nstep_ns = 1.0\nspeedup_vs_megatron = 1.0\nbackend = "sim"\nbraid_version = "0.1.0"\ndate = "2026-11-29"\n' \
  > seeds/presets/dp
mkdir -p seeds/run_record
printf '%s\n%s' '{"algorithm":"ring","chunks":2,"splits":[],"streams":1,"comm_sms":0,"comm_engine":"sm","comm_priority":"high"}' \
  '{"compute_dtype":"bf16","notes":["a"],"verify":{"ok":true,"max_rel_error":0.0,"worst_rank":0},"lower_bound":{"compute_alone_ns":1,"comm_alone_ns":2,"lower_bound_ns":2},"layer":{"describe":"x","ops":[]},"hta":[{"rank":0,"overlap_pct":1}],"error_band":0.12,"error_band_assumed":false}' \
  > seeds/run_record/measured
printf '%s\n%s' '{}' '{"hta":[{"rank":1,"overlap_pct":2.5,"idle_pct":1,"compute_pct":3}],"link_emulation":{"gbps":1,"latency_us":2}}' > seeds/run_record/imported

mkdir -p seeds/ub_cfgs
cp "$root"/bench/megatron_bridge/*.yaml seeds/ub_cfgs/
printf 'qkv_fprop: {method: ring_exchange, use_ce: 0, num_sm: 4}\nqkv_dgrad: {method: pipeline, num_splits: 2}\n' \
  > seeds/ub_cfgs/flow

mkdir -p seeds/measured
cp "$shared"/calibration/h100-measured/*.csv seeds/measured/ 2>/dev/null || true
printf 'm,n,k,comm_sms,gemm_ms,bytes,transfer_ms\n4096,4096,4096,8,0.3,16777216,0.2\n' > seeds/measured/fused
printf 'm,n,k,comm_sms,gemm_ms,bytes,transfer_ms,engine\n4096,4096,4096,8,0.3,16777216,0.2,core\n4096,4096,4096,16,0.3,16777216,0.1,core\n' > seeds/measured/fused_core
printf 'm,n,k,time_ms\n1024,8192,3584,0.09\n' > seeds/measured/fp8
printf 'm,n,k,dtype,kernel,grid_ctas,cluster_ctas,max_active_clusters,block_threads,registers,shared_bytes\n512,7168,8192,bf16,nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NNT,112,2,66,384,168,201728\n512,7168,8192,fp8_e4m3,sm90_xmma_gemm_tilesize128x128x128_cluster2x1x1,128,2,66,384,168,201728\n' > seeds/measured/kernels

# One target's run; its exit code goes to NAME.rc, its output to NAME.log.
run_target() {
  local target=$1 name=${1%_fuzz}
  local dict=()
  [[ -f $root/tests/fuzz/$name.dict ]] && dict=(-dict="$root/tests/fuzz/$name.dict")
  [[ $name == kineto_job ]] && dict=(-dict="$root/tests/fuzz/kineto.dict")  # the same keys, across files
  local rc=0
  "./$target" "${dict[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$name-" "corpus/$name" "seeds/$name" > "$name.log" 2>&1 || rc=$?
  echo "$rc" > "$name.rc"
}
export -f run_target
echo "== each target for ${secs}s, $jobs at a time"
for target in "${targets[@]}"; do rm -f "${target%_fuzz}.rc"; done
printf '%s\0' "${targets[@]}" | xargs -0 -P "$jobs" -n 1 bash -c 'run_target "$1"' _

status=0
summary=()
for target in "${targets[@]}"; do
  name=${target%_fuzz}
  echo "== $target"
  tail -n 12 "$name.log"
  rc=$(cat "$name.rc" 2>/dev/null || echo 'no exit code')
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$name.log" | grep -o '[0-9]*$' || echo '?')
  summary+=("$target: $execs executions in ${secs}s, exit $rc")
  if [[ $rc != 0 ]]; then
    status=1
    echo "!! $target failed (exit $rc); inputs in $work/artifacts" >&2
  fi
done

echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
