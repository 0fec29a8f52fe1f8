#!/usr/bin/env bash
# tests/gpu/run.sh's own logic, without a GPU: a stand-in braid that answers
# like a passing cuda run (JSON with verify ok and overlap), the fused
# timeout line, and calibrate's CSV folder. Checks that BRAID_GPU_SECTIONS
# orders the sections, that BRAID_GPU_BUDGET stops starting rows and the
# summary counts them, that a FAIL row makes exit 1, that the fp8 section
# runs its rows with --dtype (and skips them where FP8 is refused), that the
# gemm section takes braid_gemm_bench's verdict, and that an unknown section
# is refused.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# run.sh keeps calibrate's folder under TMPDIR (braid-gpu-measure-*): here
# it goes with the rest, not into /tmp at every test run.
export TMPDIR="$tmp"
fake="$tmp/braid"
cat >"$fake" <<'FAKE'
#!/usr/bin/env bash
if [[ "$1" == calibrate ]]; then
  [[ -n "${FAKE_CALIBRATE_LOG:-}" ]] && echo "$*" >>"$FAKE_CALIBRATE_LOG"
  for ((i = 1; i <= $#; i++)); do [[ "${!i}" == --csv-dir ]] && { j=$((i + 1)); dir="${!j}"; }; done
  mkdir -p "$dir" && printf 'op,ms\nfused,1\n' >"$dir/fused_kernel.csv"
  # CUPTI's kernel log, unless the test says CUPTI was not there.
  [[ -z "${FAKE_NO_KERNEL_LOG:-}" ]] && printf 'm,kernel\n64,nvjet\n128,nvjet\n' >"$dir/gemm_kernels.csv"
  exit 0
fi
# export: the stamps row's trace, 48 tile groups (3 iterations × 4 ranks × 4 arrival steps).
if [[ "$1" == export ]]; then
  for ((i = 0; i < 48; i++)); do printf '{"name":"fused/tiles.s%d.r%d"}\n' $((i % 4)) $((i % 4)); done
  exit 0
fi
if [[ -n "${BRAID_FUSED_NEVER_SET:-}" && " $* " == *" --fused-engine core "* ]]; then
  echo "braid run: rank 1 step 0 'fused', iteration 0: the GEMM core's ag_gemm timed out on rank 1 waiting for ..."
  exit 1
fi
if [[ -n "${BRAID_FUSED_NEVER_SET:-}" ]]; then echo "braid run: the fused kernel timed out on rank 1"; echo "kernel timed out on rank 1"; exit 1; fi
# The ub_cfgs rows name a file that is there (beside run.sh, as in the bundle).
for ((i = 1; i <= $#; i++)); do
  [[ "${!i}" == --ub-cfgs ]] && { j=$((i + 1)); [[ -f "${!j}" ]] || { echo "braid run: no ub_cfgs file ${!j}"; exit 2; }; }
done
[[ -n "${FAKE_FAIL_ALGO:-}" && " $* " == *" --algo $FAKE_FAIL_ALGO "* ]] && ok=false || ok=true
# FAKE_NO_FP8: a GPU before compute capability 8.9 refuses FP8 (exit 2).
if [[ -n "${FAKE_NO_FP8:-}" && " $* " == *" --dtype fp8_"* ]]; then
  echo "braid run: fp8_e4m3 needs FP8 tensor cores (compute capability 8.9 or newer); NVIDIA A100 is 8.0"
  exit 2
fi
# Every FP8 row names its dtype; an FP8 row without one would run bf16.
[[ -n "${FAKE_FP8_LOG:-}" ]] && echo "$*" >>"$FAKE_FP8_LOG"
sleep "${FAKE_SLEEP:-0}"
echo "{\"verify\":{\"ok\":$ok,\"max_rel_error\":0.001},\"metrics\":{\"overlap_ns\":{\"p50\":5},\"makespan_ns\":{\"p50\":1500000}},\"notes\":[]}"
FAKE
chmod +x "$fake"
failed=0
fail() { echo "FAIL: $*"; failed=1; }

out="$(BRAID_GPU_SECTIONS="hang fused train" bash "$here/run.sh" "$fake" 2>&1)"
rc=$?
[[ $rc -eq 0 ]] || fail "all passing: exit $rc"
order="$(awk '$1 == "loopback" { print $2 }' <<<"$out" | uniq | tr '\n' ' ')"
[[ "$order" == "fused-hang fused serial bulk ring bidir_ring ub_cfgs serial bulk ring bidir_ring ub_cfgs serial bulk ring bidir_ring ub_cfgs " ]] ||
  fail "sections out of order: $order"
grep -q "^summary: 23 runs, 23 passed, 0 skipped .*, 0 not started" <<<"$out" || fail "summary: $(tail -n1 <<<"$out")"
grep -q "calibrate" <<<"$out" && fail "the measure section ran without being asked for"

# The budget counts from run.sh's start, its probe run included: rows of
# 1 s against 3 s leave room for a loaded machine (0.6 s against 1 s did not).
out="$(FAKE_SLEEP=1 BRAID_GPU_SECTIONS="train ops" BRAID_GPU_BUDGET=3 bash "$here/run.sh" "$fake" 2>&1)"
started="$(grep -c '^loopback ' <<<"$out")"
grep -q "^summary: $started runs, $started passed, .*, $((15 + 42 - started)) not started (BRAID_GPU_BUDGET)" <<<"$out" ||
  fail "budget: $(tail -n1 <<<"$out")"
((started >= 1 && started <= 4)) || fail "budget 3 s with 1 s rows (the probe counts) started $started rows"

out="$(FAKE_FAIL_ALGO=bulk BRAID_GPU_SECTIONS="train measure" bash "$here/run.sh" "$fake" 2>&1)"
rc=$?
[[ $rc -eq 1 ]] || fail "a failing row: exit $rc"
[[ "$(grep -c ' FAIL ' <<<"$out")" -eq 3 ]] || fail "three bulk rows should FAIL: $out"
grep -q "^measure  calibrate .* ok .*fused points, core engine)" <<<"$out" || fail "measure row missing: $out"
# The measure times the GEMM core when a small fused run verifies on it,
# else the task kernel; BRAID_MEASURE_ENGINE forces one.
for want in "core:" "tasks:fused" "tasks:fused:tasks" "core:bulk:core"; do
  IFS=: read -r engine failing forced <<<"$want"
  rm -f "$tmp/calibrate.log"
  FAKE_CALIBRATE_LOG="$tmp/calibrate.log" FAKE_FAIL_ALGO="$failing" BRAID_MEASURE_ENGINE="${forced:-auto}" \
    BRAID_GPU_SECTIONS="measure" bash "$here/run.sh" "$fake" >/dev/null 2>&1
  grep -q -- "--fused-engine $engine " "$tmp/calibrate.log" 2>/dev/null ||
    fail "measure with ${failing:-nothing} failing, forced ${forced:-auto}: not --fused-engine $engine: $(cat "$tmp/calibrate.log" 2>&1)"
done
grep -q "^measure  kernels .* ok .*2 kernels in" <<<"$out" || fail "kernel log row missing"
# Without CUPTI's kernel log (another profiler held it) the row is a skip, not a failure.
out="$(FAKE_NO_KERNEL_LOG=1 BRAID_GPU_SECTIONS="measure" bash "$here/run.sh" "$fake" 2>&1)" ||
  fail "measure without a kernel log: exit $?: $out"
grep -q "^measure  kernels .* skip .*no gemm_kernels.csv" <<<"$out" || fail "kernel log skip row missing: $out"

# The core section: --verify of three variants at P 2, 4, 8 in loopback (one
# GPU here) and of two in FP8 at P 4, the core's timeout row, its stamps row,
# and 8192^3 makespans of six plans at each P.
out="$(BRAID_GPU_SECTIONS="core" bash "$here/run.sh" "$fake" 2>&1)"
rc=$?
[[ $rc -eq 0 ]] || fail "core rows: exit $rc: $out"
grep -q "^summary: 31 runs, 31 passed" <<<"$out" || fail "core summary: $(tail -n1 <<<"$out")"
grep -Eq "^loopback +core-sm +gemm_rs/e4m3 +4 .* ok " <<<"$out" || fail "core fp8 row: $out"
grep -Eq "^loopback +core-stamps +ag_gemm +4 .* ok +48 tile-group events of 48" <<<"$out" || fail "core stamps row: $out"
grep -Eq "^loopback +core-ce +ag_gemm +8 .* ok " <<<"$out" || fail "core ce verify row: $out"
grep -Eq "^loopback +core-hang +ag_gemm +2 .* ok " <<<"$out" || fail "core timeout row: $out"
grep -Eq "^loopback +core +8192\^3 +8 .* ok .*makespan 1.500 ms" <<<"$out" || fail "core makespan row: $out"

# FP8 rows: one GPU here (no nvidia-smi), so loopback only: P 2, 4, 8 x
# (4 algorithms x 2 ops in E4M3 + 2 E5M2 ring rows).
out="$(FAKE_FP8_LOG="$tmp/fp8.log" BRAID_GPU_SECTIONS="fp8" bash "$here/run.sh" "$fake" 2>&1)"
rc=$?
[[ $rc -eq 0 ]] || fail "fp8 rows: exit $rc"
grep -q "^summary: 30 runs, 30 passed" <<<"$out" || fail "fp8 summary: $(tail -n1 <<<"$out")"
[[ "$(grep -c -- '--dtype fp8_e4m3' "$tmp/fp8.log")" -eq 24 ]] || fail "fp8: 24 E4M3 runs expected: $(cat "$tmp/fp8.log")"
[[ "$(grep -c -- '--dtype fp8_e5m2 .*--algo ring' "$tmp/fp8.log")" -eq 6 ]] || fail "fp8: 6 E5M2 ring runs expected"
grep -q "^loopback bidir_ring gemm_rs/e4m3 8 " <<<"$out" || fail "fp8 row label: $out"
out="$(FAKE_NO_FP8=1 BRAID_GPU_SECTIONS="fp8" bash "$here/run.sh" "$fake" 2>&1)"
rc=$?
[[ $rc -eq 0 ]] && grep -q "^summary: 30 runs, 0 passed, 30 skipped" <<<"$out" ||
  fail "fp8 on a GPU without FP8: exit $rc, $(tail -n1 <<<"$out")"

out="$(BRAID_GPU_SECTIONS="nonsense ops" bash "$here/run.sh" "$fake" 2>&1)"
rc=$?
[[ $rc -eq 1 ]] && grep -q "unknown section 'nonsense'" <<<"$out" || fail "unknown section: exit $rc"

# The gemm section: braid_gemm_bench beside braid (the bundle's layout); its
# exit code makes the row (1, a product off cuBLASLt's: FAIL and exit 1);
# none there: a skip row, never a pass.
out="$(BRAID_GPU_SECTIONS="gemm" bash "$here/run.sh" "$fake" 2>&1)"
grep -Eq '^device +gemm-core .* skip +no braid_gemm_bench' <<<"$out" || fail "gemm without a bench: $out"
grep -q "^summary: 1 runs, 0 passed, 1 skipped" <<<"$out" || fail "gemm skip summary: $(tail -n1 <<<"$out")"
printf '#!/usr/bin/env bash\necho "8192x8192x8192: 640 TFLOP/s, 91 %% of cuBLASLt"\nexit "${FAKE_BENCH_RC:-0}"\n' \
  >"$tmp/braid_gemm_bench"
chmod +x "$tmp/braid_gemm_bench"
out="$(BRAID_GPU_SECTIONS="gemm" bash "$here/run.sh" "$fake" 2>&1)"
rc=$?
[[ $rc -eq 0 ]] && grep -Eq '^device +gemm-core .* ok +exit 0: 8192x8192x8192' <<<"$out" || fail "gemm passing: exit $rc: $out"
out="$(FAKE_BENCH_RC=1 BRAID_GPU_SECTIONS="gemm" bash "$here/run.sh" "$fake" 2>&1)"
rc=$?
[[ $rc -eq 1 ]] && grep -Eq '^device +gemm-core .* FAIL +exit 1' <<<"$out" || fail "gemm failing: exit $rc: $out"
rm "$tmp/braid_gemm_bench"

# hang_rows.sh: two stand-in bundles, the "before" one stalling on chunked
# ag_gemm at P 4 (exit 1, the watchdog's line); the counts must say so.
for b in before after; do
  mkdir -p "$tmp/$b/braid-gpu-bundle"
  {
    echo '#!/usr/bin/env bash'
    [[ $b == before ]] && echo '[[ " $* " == *" --tp 4 --algo chunked "* ]] && { echo "rank 2 step 0 not finished"; exit 1; }'
    echo 'echo "{\"verify\":{\"ok\":true}}"'
  } >"$tmp/$b/braid-gpu-bundle/braid"
  chmod +x "$tmp/$b/braid-gpu-bundle/braid"
  tar -C "$tmp/$b" -czf "$tmp/$b.tar.gz" braid-gpu-bundle
done
out="$(bash "$here/hang_rows.sh" "$tmp/before.tar.gz" "$tmp/after.tar.gz" "$tmp/hang" 8 2 2>&1)"
grep -Eq '^before row1 +runs +[0-9]+ +not ok +[1-9]' <<<"$out" || fail "hang_rows: the stalling row is not counted: $out"
grep -Eq '^after +row1 +runs +[1-9][0-9]* +not ok +0$' <<<"$out" || fail "hang_rows: the fixed build: $out"
grep -Eq '^before row0 +runs +[1-9][0-9]* +not ok +0$' <<<"$out" || fail "hang_rows: a passing row: $out"
grep -q "rank 2 step 0 not finished" "$tmp/hang/hang_rows.txt" || fail "hang_rows: the stall's last line is not kept"

[[ $failed -eq 0 ]] && echo "run_sh_test: passed"
exit "$failed"
