#!/usr/bin/env bash
# One GPU lease, one call: everything the first real GPU run needs, with every
# output in one folder (packed as OUT_DIR/gpu-results.tar.gz after each phase,
# so a call stopped at its time limit still brings back what it finished):
#
#   tests/gpu/lease.sh BUNDLE.tar.gz OUT_DIR [SECONDS]
#
# Phases, each under a time cap so that one hang cannot eat the lease
# (SECONDS, default 400, is the whole script's budget):
#   0. cpu:      with BRAID_SIM_BENCH_DIR (a folder of braid_sim_bench*
#                binaries and the libbenchmark they need), each bench twice,
#                alternated, on this machine's CPU (sim_bench.txt);
#   1. env:      nvidia-smi, the driver, nvcc, PyTorch's CUDA and NCCL, and
#                where the bundle's CUDA libraries resolve (ldd);
#   2. probe:    one small loopback run, printed whole;
#   3. run.sh:   tests/gpu/run.sh through the bundle (every row of its table,
#                the fused timeout path, calibrate --measure --quick, whose
#                CSVs and fitted GPU file land in measure/), sections in the
#                order BRAID_GPU_SECTIONS gives (default: what has never
#                run first: the GEMM core against cuBLASLt, the fused plans
#                on the core (bf16 and FP8), measure (its kernel log and the
#                512x7168x8192 held row, issue 54 point 1; the fused halves
#                of the GEMM core when it verifies, issue 56 point 5); then FP8, the
#                forward ops, training, the task kernel, the timeout path),
#                rows started within half of SECONDS;
#   4. loopback: braid run --backend cuda --loopback --json for the configs the
#                simulator is held against, FP8 (E4M3) beside bf16 first
#                (serial and ring gemm_rs and ag_gemm at 8192^3, P 4;
#                llama3-70b's four TP GEMMs at seq 8192, P 8), then the other
#                bf16 algorithms at P 4 and P 2, until 80 % of SECONDS; stored
#                in loopback.db; FP8 training steps of a small block
#                (--verify) among the FP8 runs;
#   5. export:   the Chrome traces of the loopback ring, serial and chunked
#                runs at P 4 (and gemm_rs chunked at P 2) (braid export);
#   6. repeat:   the row that hung before (bidir_ring gemm_rs P 4 with one
#                comm lane, --timeout 5) again and again until SECONDS - 10,
#                each exit and last line in bidir_repeat.txt.
# Every braid invocation goes through a wrapper that bounds it (timeout) and
# keeps its arguments, exit code, stdout and stderr under logs/NNN/.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tests/gpu/lease_setup.sh
. "$here/lease_setup.sh"
lease_open lease gpu-results 400 "$@"
mkdir -p "$res/loopback"

# --- 0. cpu ---------------------------------------------------------------
if [[ -n "${BRAID_SIM_BENCH_DIR:-}" && -d "$BRAID_SIM_BENCH_DIR" ]]; then
  say "cpu: sim bench"
  for round in 1 2; do
    for b in "$BRAID_SIM_BENCH_DIR"/braid_sim_bench*; do
      echo "== $(basename "$b") round $round: $(grep -m1 'model name' /proc/cpuinfo)"
      LD_LIBRARY_PATH="$BRAID_SIM_BENCH_DIR" timeout 60 "$b" 2>&1
    done
  done >"$res/sim_bench.txt"
  grep -E '^==|evaluations per' "$res/sim_bench.txt"
fi

# --- 1. env ---------------------------------------------------------------
lease_record_machine
pack

# --- 2. probe -------------------------------------------------------------
say "probe"
"$B" run --backend cuda --loopback --op gemm_rs --m 1024 --n 1024 --k 1024 --tp 2 --algo ring --streams 2 \
  --verify --iters 3 --warmup 1 --no-db 2>&1 | tee "$res/probe.txt"
pack

# --- 3. run.sh ------------------------------------------------------------
say "run.sh"
# What has never run on a GPU goes first; run.sh stops starting rows at its
# share (its summary still prints), the timeout is only a backstop.
share=$((budget / 2 - $(elapsed)))
TMPDIR="$work/tmp" BRAID_GPU_SECTIONS="${BRAID_GPU_SECTIONS:-gemm core measure fp8 ops train fused hang}" BRAID_GPU_BUDGET=$share \
  timeout -k 5 $((share + 160)) bash "$here/run.sh" "$B" 2>&1 |
  tee "$res/run_sh.txt"
say "run.sh: exit ${PIPESTATUS[0]}"
m="$(ls -d "$work"/tmp/braid-gpu-measure-* 2>/dev/null | head -n 1)"
[[ -n "$m" ]] && cp -r "$m" "$res/measure"
pack

# --- 4. loopback configs ----------------------------------------------------
say "loopback configs"
db="$res/loopback.db"
loop() {  # name, then run flags
  local name="$1"
  shift
  if (($(elapsed) > budget * 4 / 5)); then
    echo "$name: skipped (lease budget)" | tee -a "$res/loopback/skipped.txt"
    return
  fi
  "$B" run --backend cuda --loopback --iters 10 --warmup 3 --db "$db" --json "$@" \
    >"$res/loopback/$name.json" 2>"$res/loopback/$name.err"
  echo "$name: exit $? $(tail -c 200 "$res/loopback/$name.err" | tr '\n' ' ')"
}
algo_flags() {
  case "$1" in
    serial) echo "--algo serial" ;;
    chunked) echo "--algo chunked --chunks 4 --streams 2" ;;
    ring | bidir_ring | direct) echo "--algo $1 --streams 2" ;;
    fused) echo "--algo fused" ;;
  esac
}
# FP8 training steps first: forward and backward of run.sh's small block,
# every GEMM verified, with the timings kept.
for p in 2 4; do
  for algo in ring bulk; do
    loop "train_p${p}_${algo}_fp8_e4m3" --model "$here/train_block.toml" --seq 2048 --tp "$p" --phase train \
      --dtype fp8_e4m3 --algo "$algo" --verify
  done
done
# Then FP8 beside bf16 (8192^3 at P 4; llama3-70b at seq 8192, sequence
# parallel, P 8: core/src/layer_workload.cc's shapes), then the other bf16
# algorithms: what a short lease drops comes last.
for dtype in fp8_e4m3 bf16; do
  for op in gemm_rs ag_gemm; do
    for algo in serial ring; do
      # shellcheck disable=SC2046  # algo_flags prints words
      loop "8192_${op}_p4_${algo}_${dtype}" --op "$op" --m 8192 --n 8192 --k 8192 --tp 4 --dtype "$dtype" $(algo_flags "$algo")
    done
  done
  for g in "qkv ag_gemm 10240 8192" "out_proj gemm_rs 8192 8192" "fc1 ag_gemm 57344 8192" "fc2 gemm_rs 8192 28672"; do
    read -r name op n k <<<"$g"
    for algo in serial ring direct; do
      # shellcheck disable=SC2046
      loop "llama3-70b_${name}_p8_${algo}_${dtype}" --op "$op" --m 8192 --n "$n" --k "$k" --tp 8 --dtype "$dtype" $(algo_flags "$algo")
    done
  done
  pack
done
for p in 4 2; do
  for op in gemm_rs ag_gemm; do
    for algo in chunked bidir_ring; do
      # shellcheck disable=SC2046
      loop "8192_${op}_p${p}_${algo}_bf16" --op "$op" --m 8192 --n 8192 --k 8192 --tp "$p" $(algo_flags "$algo")
    done
  done
done
pack

# --- 5. export ------------------------------------------------------------
# The Chrome traces of the ring run the sim matches and of the serial and
# ag_gemm chunked runs it misses (issue 54 point 3: which rank's GEMM and
# copies ran when, that the stored metrics alone cannot tell).
say "export"
for name in 8192_gemm_rs_p4_ring_bf16 8192_gemm_rs_p4_serial_bf16 8192_ag_gemm_p4_serial_bf16 \
  8192_ag_gemm_p4_chunked_bf16 8192_gemm_rs_p2_chunked_bf16; do
  run_id="$(python3 - "$res/loopback/$name.json" <<'PY'
import json, sys
try:
    t = open(sys.argv[1]).read()
    print(json.loads(t[t.index("{"):]).get("run") or "")
except Exception:
    print("")
PY
  )"
  if [[ -n "$run_id" ]]; then
    "$B" export --db "$db" --run "$run_id" -o "$res/loopback_${name%_bf16}.trace.json.gz"
  else
    echo "export: no run id in $name.json"
  fi
done
pack

# --- 6. repeat --------------------------------------------------------------
say "repeat: bidir_ring gemm_rs P 4, one comm lane"
n=0
while (($(elapsed) < budget - 10)); do
  n=$((n + 1))
  o="$(BRAID_WRAP_TIMEOUT=40 "$B" run --backend cuda --loopback --op gemm_rs --m 2048 --n 1024 --k 1024 --tp 4 \
       --algo bidir_ring --streams 2 --chunks 2 --verify --iters 3 --warmup 1 --timeout 5 --no-db 2>&1)"
  echo "$n: exit $? $(tail -n 1 <<<"$o" | cut -c1-600)" >>"$res/bidir_repeat.txt"
done
[[ -f "$res/bidir_repeat.txt" ]] && awk '{ print $2, $3 }' "$res/bidir_repeat.txt" | sort | uniq -c
pack
say "done"
# The last lines of the reply: run.sh's summary and the loopback exits.
grep -E '^summary:|FAIL' "$res/run_sh.txt" | tail -n 20
