#!/usr/bin/env bash
# GPU validation of the cuda backend, one command for whoever has a GPU:
#
#   tests/gpu/run.sh [path/to/braid]        (default: $BRAID, ./braid, build/release/cli/braid)
#
# On every GPU it finds (one is enough, through --loopback) it runs --verify
# of every algorithm x op x P in {2,4,8} in loopback and, with at least P
# GPUs, across devices (one process, a thread per GPU) and across processes
# (mpirun -np P, one process per GPU, NCCL bootstrapped through MPI; only
# when mpirun is on PATH and braid was built with MPI); checks that every
# step has CUPTI events and that a ring's communication overlaps its GEMMs
# across devices and processes; prints one summary table. With at least 2
# GPUs the same across devices and processes with --comm-engine ce (modes
# dev-ce, proc-ce): copy-engine copies into the peers' NCCL symmetric windows
# with stream-ordered flags, which needs the GPUs to be CUDA peers (P2P); on
# GPUs that are not, braid's refusal makes the row "skip", not FAIL.
# Every run is bounded (BRAID_RUN_TIMEOUT seconds, default 120: a row that
# hangs says "exit 124" and the table goes on; the first GPU run lost its
# lease to such hangs).
# Exit 0 all passed, 1 something failed, 77 no GPU (skipped).
# FP8 (section fp8): the same --verify rows for ag_gemm and gemm_rs with
# --dtype fp8_e4m3 (cuBLASLt FP8 matmuls with per-tensor scales and bf16
# outputs; ag_gemm moves FP8, gemm_rs sums bf16 partials) in every mode,
# plus fp8_e5m2 ring rows; a GPU without FP8 tensor cores (before compute
# capability 8.9) makes them "skip".
# BRAID_GPU_SECTIONS picks and orders the sections (default
# "gemm core measure ops fp8 train fused hang"; a short lease puts what has
# never run first: gemm (braid_gemm_bench), core (the fused plan on the
# GEMM core, section_core) and measure's kernel log (gemm_kernels.csv) have
# never run on a GPU); BRAID_GPU_BUDGET (seconds, default none) skips the rows that would
# start after it, so a bounded caller still gets the summary: skipped rows
# are counted, never called passed.
# BRAID_MPIRUN (default mpirun) and BRAID_MPIRUN_FLAGS (e.g.
# --allow-run-as-root) shape the mpirun command line.
# The fused kernel (--algo fused): --verify of ag_gemm and gemm_rs x P in
# {2,4,8} in loopback and across GPUs, and its timeout path: with
# BRAID_FUSED_NEVER_SET=1:0 rank 1 never raises flag 0, and the run must end
# in the kernel's "timed out on rank" line (within --timeout), not hang.
# Last, `braid calibrate --measure` (quick grid) measures this GPU, the fused
# kernel's GEMM and transfer halves included (fused_kernel.csv: the GEMM
# core's when a small fused run verifies on it, else the task kernel's;
# BRAID_MEASURE_ENGINE=core|tasks forces one), fits a GPU file to it and
# prints the fitted file's errors per CSV file; it fails without
# fused_kernel.csv rows.
set -u

here="$(cd "$(dirname "$0")" && pwd)"
braid="${1:-${BRAID:-}}"
if [[ -z "$braid" ]]; then
  for c in "$here/braid" "$here/../braid" "./braid" "$here/../../build/release/cli/braid"; do
    [[ -x "$c" ]] && { braid="$c"; break; }
  done
fi
[[ -x "$braid" ]] || { echo "gpu/run.sh: no braid binary (pass its path)"; exit 1; }
command -v python3 >/dev/null || { echo "gpu/run.sh: needs python3 to read braid's JSON"; exit 1; }

probe="$(timeout -k 5 120 "$braid" run --backend cuda --loopback --op gemm_rs --m 256 --n 256 --k 256 --tp 2 --algo serial \
         --iters 1 --warmup 0 --no-db 2>&1)"
if [[ $? -ne 0 ]]; then
  if grep -q "no usable CUDA device\|no CUDA device\|built without CUDA" <<<"$probe"; then
    echo "gpu/run.sh: SKIPPED, no GPU here: $probe"
    exit 77
  fi
  echo "gpu/run.sh: the probe run failed: $probe"
  exit 1
fi
gpus=1
if command -v nvidia-smi >/dev/null; then gpus="$(nvidia-smi -L | grep -c '^GPU')"; fi
echo "gpu/run.sh: $braid on $gpus GPU(s)"

# Reads one `braid run --json` output on stdin; prints one table row.
summarize='
import json, sys
rc, mode, algo, op, p = sys.argv[1:]
text = sys.stdin.read()
status, err, overlap, events = "FAIL", "-", "-", "-"
try:
    j = json.loads(text[text.index("{"):]) if rc == "0" else None
except ValueError:
    j = None
if j:
    v = j.get("verify") or {}
    err = "%.2e" % v.get("max_rel_error", float("nan"))
    ov = (j.get("metrics", {}).get("overlap_ns") or {}).get("p50", 0)
    overlap = "yes" if ov > 0 else "no"
    missing = [n for n in j.get("notes", []) if "no GPU activity record" in n]
    events = "MISSING" if missing else "all"
    ok = v.get("ok") and not missing
    if algo in ("ring", "bidir_ring", "direct") and mode in ("devices", "processes", "dev-ce", "proc-ce") and ov <= 0:
        ok = False
    status = "ok" if ok else "FAIL"
else:
    lines = text.strip().splitlines()
    err = lines[-1][:60] if lines else "exit " + rc
    # GPUs that are not CUDA peers cannot run --comm-engine ce: braid says so (exit 2).
    if rc == "2" and mode.endswith("-ce") and ("cannot map" in text or "different hosts" in text):
        status = "skip"
    # FP8 rows on a GPU without FP8 tensor cores: braid refuses them (exit 2).
    if rc == "2" and op.endswith(("/e4m3", "/e5m2")) and "needs FP8 tensor cores" in text:
        status = "skip"
    # FP8 rows of the GEMM core on a GPU that is not sm_90a: refused (exit 2).
    if rc == "2" and op.endswith("/e4m3") and "FP8 path is sm_90a" in text:
        status = "skip"
print("%-8s %-10s %-8s %-3s %-6s %-10s %-8s %s" % (mode, algo, op, p, events, overlap, status, err))
'

failed=0
rows=()
row_timeout="${BRAID_RUN_TIMEOUT:-120}"
run_start=$(date +%s)
over_budget=0
# True (and counted) when BRAID_GPU_BUDGET has run out: the row is not started.
out_of_time() {
  [[ -z "${BRAID_GPU_BUDGET:-}" ]] && return 1
  (($(date +%s) - run_start < BRAID_GPU_BUDGET)) && return 1
  over_budget=$((over_budget + 1))
  return 0
}
# A run's table row from its output and exit status (summarize): kept in
# rows, printed, and failed set when it says FAIL.
record_row() {  # out rc mode algo label p
  local row
  row="$(printf '%s' "$1" | python3 -c "$summarize" "$2" "$3" "$4" "$5" "$6")"
  rows+=("$row")
  [[ "$row" == *" FAIL "* ]] && failed=1
  echo "$row"
}
# One run; prints a table row and sets failed on a wrong result or missing events.
check() {  # mode algo op p [dtype]
  local mode="$1" algo="$2" op="$3" p="$4" dtype="${5:-}" extra=() launch=() label="$3"
  out_of_time && return
  [[ -n "$dtype" ]] && { extra+=(--dtype "$dtype"); label="$op/${dtype#fp8_}"; }
  [[ "$mode" == loopback ]] && extra+=(--loopback)
  [[ "$mode" == *-ce ]] && extra+=(--comm-engine ce)
  [[ "$algo" != serial ]] && extra+=(--chunks 2)  # serial runs the collective whole
  # shellcheck disable=SC2206
  [[ "$mode" == processes || "$mode" == proc-ce ]] && launch=($mpirun ${BRAID_MPIRUN_FLAGS:-} -np "$p")
  local out rc
  out="$(timeout -k 5 "$row_timeout" "${launch[@]}" "$braid" run --backend cuda "${extra[@]}" --op "$op" --m 2048 --n 1024 --k 1024 --tp "$p" \
          --algo "$algo" --streams 2 --verify --iters 3 --warmup 1 --no-db --json 2>&1)"
  rc=$?
  record_row "$out" "$rc" "$mode" "$algo" "$label" "$p"
}

# Across processes: mpirun on PATH, and a braid built with MPI (the bundle's is not).
mpirun="${BRAID_MPIRUN:-mpirun}"
modes=(loopback devices)
[[ "$gpus" -ge 2 ]] && modes+=(dev-ce)
# shellcheck disable=SC2086  # BRAID_MPIRUN_FLAGS are words
if [[ "$gpus" -lt 2 ]]; then
  echo "gpu/run.sh: processes: skipped (one GPU)"
elif ! command -v "$mpirun" >/dev/null; then
  echo "gpu/run.sh: processes: skipped ($mpirun not found)"
elif ! mpi_probe="$($mpirun ${BRAID_MPIRUN_FLAGS:-} -np 1 "$braid" run --backend sim --op gemm_rs --m 64 --n 64 \
                   --k 64 --tp 1 --algo serial --iters 1 --warmup 0 --no-db 2>&1)"; then
  echo "gpu/run.sh: processes: skipped (braid under $mpirun: $(tail -n 1 <<<"$mpi_probe"))"
else
  modes+=(processes proc-ce)
fi

# Every algorithm x op x P in every mode this machine has.
section_ops() {
  for mode in "${modes[@]}"; do
    for p in 2 4 8; do
      [[ "$mode" != loopback && "$gpus" -lt "$p" ]] && continue
      for algo in serial chunked ring bidir_ring; do
        for op in ag_gemm gemm_rs gemm_ar; do check "$mode" "$algo" "$op" "$p"; done
      done
      # direct: every rank sends to every other one (not gemm_ar).
      for op in ag_gemm gemm_rs; do check "$mode" direct "$op" "$p"; done
    done
  done
}

# FP8: ag_gemm (FP8 all-gathers) and gemm_rs (bf16 partials) with E4M3
# inputs in every algorithm, mode and P; E5M2 (A in E5M2, B in E4M3) on the
# ring. The op column reads ag_gemm/e4m3.
section_fp8() {
  for mode in "${modes[@]}"; do
    for p in 2 4 8; do
      [[ "$mode" != loopback && "$gpus" -lt "$p" ]] && continue
      for algo in serial chunked ring bidir_ring; do
        for op in ag_gemm gemm_rs; do check "$mode" "$algo" "$op" "$p" fp8_e4m3; done
      done
      for op in ag_gemm gemm_rs; do check "$mode" ring "$op" "$p" fp8_e5m2; done
    done
  done
}

# Training steps: a small model's forward and backward (dgrad and wgrad as
# cuBLASLt GEMMs with their transposes, bulk collectives on their own
# stream, external wgrads fed by the ring), every GEMM verified.
# The block is train_block.toml beside this script (in the repository and
# in the GPU bundle).
train_model="$here/train_block.toml"
# algo ub_cfgs: every GEMM as train_ub_cfgs.yaml says (per-op SM margins as
# cuBLASLt SM count targets, a bulk pair's two budgets); untested on a GPU
# until a run of this row.
check_train() {  # mode algo p
  local mode="$1" algo="$2" p="$3" extra=()
  out_of_time && return
  [[ "$mode" == loopback ]] && extra+=(--loopback)
  local how=(--algo "$algo")
  [[ "$algo" == ub_cfgs ]] && how=(--ub-cfgs "$here/train_ub_cfgs.yaml")
  local out rc
  out="$(timeout -k 5 "$row_timeout" "$braid" run --backend cuda "${extra[@]}" --model "$train_model" --seq 2048 \
          --tp "$p" --phase train "${how[@]}" --verify --iters 3 --warmup 1 --no-db --json 2>&1)"
  rc=$?
  record_row "$out" "$rc" "$mode" "$algo" train "$p"
}
section_train() {
  for mode in loopback devices; do
    for p in 2 4 8; do
      [[ "$mode" != loopback && "$gpus" -lt "$p" ]] && continue
      for algo in serial bulk ring bidir_ring ub_cfgs; do check_train "$mode" "$algo" "$p"; done
    done
  done
}

# The fused kernel: ragged shapes on purpose (M/P and N/P not multiples of 64).
section_fused() {
  for mode in loopback devices; do
    for p in 2 4 8; do
      [[ "$mode" == devices && "$gpus" -lt "$p" ]] && continue
      for op in ag_gemm gemm_rs; do
        out_of_time && continue
        extra=()
        [[ "$mode" == loopback ]] && extra+=(--loopback)
        out="$(timeout -k 5 "$row_timeout" "$braid" run --backend cuda "${extra[@]}" --op "$op" --m $((1000 * p / 2)) --n $((520 * p / 2)) \
                --k 1032 --tp "$p" --algo fused --verify --iters 3 --warmup 1 --no-db --json 2>&1)"
        rc=$?
        record_row "$out" "$rc" "$mode" fused "$op" "$p"
      done
    done
  done
}

# One timeout row: a 2-rank loopback run of `op` with BRAID_FUSED_NEVER_SET
# set to `hook` (and the extra flags) must exit 1 within its --timeout with
# `words` in what it printed, not hang.
timeout_row() {
  local label="$1" op="$2" hook="$3" words="$4" start out rc took status row
  shift 4
  start=$(date +%s)
  out="$(BRAID_FUSED_NEVER_SET="$hook" timeout 120 "$braid" run --backend cuda --loopback --op "$op" --m 512 \
          --n 256 --k 256 --tp 2 --algo fused --timeout 10 --iters 1 --warmup 0 --no-db "$@" 2>&1)"
  rc=$?
  took=$(( $(date +%s) - start ))
  status=FAIL
  [[ $rc -eq 1 ]] && grep -q "$words" <<<"$out" && status=ok
  row="$(printf '%-8s %-10s %-8s %-3s %-6s %-10s %-8s %s' loopback "$label" "$op" 2 - - "$status" \
         "exit $rc after ${took}s: $(tail -n1 <<<"$out" | cut -c1-70)")"
  rows+=("$row")
  [[ "$status" == FAIL ]] && failed=1
  echo "$row"
}

# The fused kernel's timeout path: a flag never raised must end in the error.
section_hang() {
  for op in ag_gemm gemm_rs; do
    out_of_time && continue
    timeout_row fused-hang "$op" 1:0 "kernel timed out on rank"
  done
}

# The GEMM core's stamps per group of tiles on a real GPU: a traced P 4
# loopback ag_gemm (M/P 1024 rows: every arrival step has tiles) stored and
# exported; each of 3 iterations × 4 ranks must show 4 tile-group events
# ("<step>/tiles.s<k>.r<rank>") inside its fused step.
core_stamps_row() {
  local dir out rc groups status=ok
  dir="$(mktemp -d "${TMPDIR:-/tmp}/braid-gpu-stamps-XXXXXX")"
  out="$(timeout -k 5 "$row_timeout" "$braid" run --backend cuda --loopback --fused-engine core --op ag_gemm \
          --m 4096 --n 2080 --k 1032 --tp 4 --algo fused --iters 3 --warmup 1 --db "$dir/core.db" 2>&1 &&
        "$braid" export --db "$dir/core.db" --run 1 -o - 2>&1)"
  rc=$?
  groups="$(grep -o '/tiles\.s[0-9]*\.r[0-9]*' <<<"$out" | wc -l)"
  [[ $rc -ne 0 || "$groups" -lt 48 ]] && { status=FAIL; failed=1; }
  row="$(printf '%-8s %-10s %-8s %-3s %-6s %-10s %-8s %s' loopback core-stamps ag_gemm 4 - - "$status" \
         "$groups tile-group events of 48 (exit $rc; store in $dir)")"
  rows+=("$row")
  echo "$row"
}

# The fused plans on the GEMM core (--fused-engine core): --verify of ag_gemm
# (pulls by SMs and by copy engines) and gemm_rs at P 2, 4, 8 in loopback
# and across GPUs, both in FP8 E4M3 at P 4 in loopback, its timeout path (rank 1 never raises arrival step 1's
# flag: the run must end in the core's "timed out" line), then 8192^3
# ag_gemm makespans in loopback beside the task kernel, ring, chunked and
# serial (no --verify: the host reference would take minutes).
section_core() {
  local mode p algo out rc row ms variant op engine
  for mode in loopback devices; do
    for p in 2 4 8; do
      [[ "$mode" == devices && "$gpus" -lt "$p" ]] && continue
      # ag_gemm with pulls by SMs and by copy engines; gemm_rs (M/P whole 128-row tiles).
      for variant in ag_gemm/sm ag_gemm/ce gemm_rs/sm; do
        out_of_time && continue
        op="${variant%/*}"
        engine="${variant#*/}"
        extra=()
        [[ "$mode" == loopback ]] && extra+=(--loopback)
        out="$(timeout -k 5 "$row_timeout" "$braid" run --backend cuda "${extra[@]}" --fused-engine core --op "$op" \
                --comm-engine "$engine" --m $((1024 * p)) --n $((520 * p)) --k 1032 --tp "$p" --algo fused --verify \
                --iters 3 --warmup 1 --no-db --json 2>&1)"
        rc=$?
        record_row "$out" "$rc" "$mode" "core-$engine" "$op" "$p"
      done
    done
  done
  # FP8 E4M3 on the core's sm_90a path: ag_gemm (pulls by SMs) and gemm_rs
  # at P 4 in loopback; K = 1088 (a multiple of 16 bytes whole and per rank,
  # a ragged last k-block of the 128-deep FP8 tile).
  for variant in ag_gemm/sm gemm_rs/sm; do
    out_of_time && continue
    op="${variant%/*}"
    engine="${variant#*/}"
    out="$(timeout -k 5 "$row_timeout" "$braid" run --backend cuda --loopback --fused-engine core --op "$op" \
            --comm-engine "$engine" --dtype fp8_e4m3 --m 4096 --n 2080 --k 1088 --tp 4 --algo fused --verify \
            --iters 3 --warmup 1 --no-db --json 2>&1)"
    rc=$?
    record_row "$out" "$rc" loopback "core-$engine" "$op/e4m3" 4
  done
  out_of_time || timeout_row core-hang ag_gemm 1:1 "the GEMM core's ag_gemm timed out on rank 1" --fused-engine core
  out_of_time || core_stamps_row
  for p in 2 4 8; do
    for algo in core core-ce tasks ring chunked serial; do
      out_of_time && continue
      extra=(--algo "$algo")
      [[ "$algo" == core ]] && extra=(--algo fused --fused-engine core)
      [[ "$algo" == core-ce ]] && extra=(--algo fused --fused-engine core --comm-engine ce)
      [[ "$algo" == tasks ]] && extra=(--algo fused)
      out="$(timeout -k 5 "$row_timeout" "$braid" run --backend cuda --loopback --op ag_gemm --m 8192 --n 8192 \
              --k 8192 --tp "$p" "${extra[@]}" --iters 5 --warmup 2 --no-db --json 2>&1)"
      rc=$?
      ms="$(printf '%s' "$out" | python3 -c 'import json,sys
t=sys.stdin.read()
try: print("%.3f ms" % (json.loads(t[t.index("{"):])["metrics"]["makespan_ns"]["p50"] / 1e6))
except Exception: print("-")')"
      status=ok
      [[ $rc -ne 0 ]] && { status=FAIL; failed=1; }
      row="$(printf '%-8s %-10s %-8s %-3s %-6s %-10s %-8s %s' loopback "$algo" 8192^3 "$p" - - "$status" \
             "makespan $ms (exit $rc)")"
      rows+=("$row")
      echo "$row"
    done
  done
}

# calibrate --measure on device 0: the quick grid (BRAID_MEASURE=full for the
# whole one, a few minutes); prints the fitted file's errors per CSV file
# (launch_gaps.csv's graph rows and fused_kernel.csv's two halves among them)
# and keeps the CSVs and the file in a folder it names.
section_measure() {
  out_of_time && return
  echo
  local measure_flags=(--quick) measure_dir fused_csv fused_points engine="${BRAID_MEASURE_ENGINE:-auto}" probe
  [[ "${BRAID_MEASURE:-quick}" == full ]] && measure_flags=()
  # The fused kernel whose halves it times (BRAID_MEASURE_ENGINE core, tasks
  # or auto): auto takes the GEMM core when a small fused ag_gemm verifies
  # on it, else the task kernel, so a broken core costs the rest of the
  # measurement (the kernel log among it) nothing.
  if [[ "$engine" == auto ]]; then
    engine=tasks
    probe="$(timeout -k 5 "$row_timeout" "$braid" run --backend cuda --loopback --fused-engine core --op ag_gemm \
             --m 2048 --n 1040 --k 1032 --tp 2 --algo fused --verify --iters 1 --warmup 0 --no-db --json 2>&1)" &&
      printf '%s' "$probe" | python3 -c 'import json,sys
t=sys.stdin.read()
sys.exit(0 if json.loads(t[t.index("{"):])["verify"]["ok"] else 1)' 2>/dev/null && engine=core
  fi
  measure_flags+=(--fused-engine "$engine")
  measure_dir="$(mktemp -d "${TMPDIR:-/tmp}/braid-gpu-measure-XXXXXX")"
  echo "calibrate --measure ${measure_flags[*]} (CSVs and GPU file in $measure_dir)"
  if "$braid" calibrate --measure "${measure_flags[@]}" --gpu-out "$measure_dir/gpu.toml" --csv-dir "$measure_dir/csv"; then
    fused_csv="$measure_dir/csv/fused_kernel.csv"
    fused_points=0
    [[ -f "$fused_csv" ]] && fused_points=$(( $(wc -l <"$fused_csv") - 1 ))
    # cuBLASLt's kernel choice per shape (issue 54 point 1): CUPTI may be
    # held by another profiler, so a missing log is a skip, not a failure.
    local kernels_csv="$measure_dir/csv/gemm_kernels.csv" kernel_rows=0
    [[ -f "$kernels_csv" ]] && kernel_rows=$(( $(wc -l <"$kernels_csv") - 1 ))
    if [[ "$kernel_rows" -gt 0 ]]; then
      rows+=("measure  kernels    -        -   -      -          ok       $kernel_rows kernels in $kernels_csv")
    else
      rows+=("measure  kernels    -        -   -      -          skip     no gemm_kernels.csv (see the note above)")
    fi
    echo "${rows[-1]}"
    if [[ "$fused_points" -gt 0 ]]; then
      rows+=("measure  calibrate  -        -   -      -          ok       $measure_dir/gpu.toml ($fused_points fused points, $engine engine)")
    else
      rows+=("measure  calibrate  -        -   -      -          FAIL     no fused_kernel.csv rows in $measure_dir/csv")
      failed=1
    fi
  else
    rows+=("measure  calibrate  -        -   -      -          FAIL     see above")
    failed=1
  fi
  echo "${rows[-1]}"
}

# The GEMM core (kernels/cuda/gemm, issue 56) against cuBLASLt:
# braid_gemm_bench beside braid (the bundle), in the build tree beside
# cli/, or $BRAID_GEMM_BENCH. It checks every product against cuBLASLt
# (exit 1 past its tolerance) and prints each shape's rate; a wait that
# never completes traps in the kernel (4 s), and the row is bounded anyway.
section_gemm() {
  out_of_time && return
  local bench="${BRAID_GEMM_BENCH:-}" c out rc status row
  if [[ -z "$bench" ]]; then
    for c in "$(dirname "$braid")/braid_gemm_bench" "$(dirname "$braid")/../kernels/cuda/gemm/braid_gemm_bench"; do
      [[ -x "$c" ]] && { bench="$c"; break; }
    done
  fi
  if [[ -z "$bench" ]]; then
    row="$(printf '%-8s %-10s %-8s %-3s %-6s %-10s %-8s %s' device gemm-core - 1 - - skip "no braid_gemm_bench")"
  else
    # Twice a row's time: on sm_90a it times every shape with both tiles.
    out="$(timeout -k 5 $((2 * row_timeout)) "$bench" 2>&1)"
    rc=$?
    echo "$out"
    status=ok
    [[ $rc -ne 0 ]] && { status=FAIL; failed=1; }
    row="$(printf '%-8s %-10s %-8s %-3s %-6s %-10s %-8s %s' device gemm-core - 1 - - "$status" \
           "exit $rc: $(tail -n1 <<<"$out" | cut -c1-70)")"
  fi
  rows+=("$row")
  echo "$row"
}

echo "mode     algo       op       P   events overlap    result   max_rel_error"
for section in ${BRAID_GPU_SECTIONS:-gemm core measure ops fp8 train fused hang}; do
  case "$section" in
    gemm | ops | fp8 | train | fused | hang | core | measure) "section_$section" ;;
    *) echo "gpu/run.sh: unknown section '$section' (gemm ops fp8 train fused hang core measure)"; exit 1 ;;
  esac
done

echo
echo "summary: ${#rows[@]} runs, $(printf '%s\n' "${rows[@]}" | grep -c ' ok ') passed," \
  "$(printf '%s\n' "${rows[@]}" | grep -c ' skip ') skipped (GPUs not peers: no --comm-engine ce; no FP8 tensor cores)," \
  "$over_budget not started (BRAID_GPU_BUDGET) on $gpus GPU(s)"
exit "$failed"
