#!/usr/bin/env bash
# Repeats the loopback rows that hung on a GPU under two builds, so a fix is
# judged against its own control on the same machine in the same call:
#
#   tests/gpu/hang_rows.sh BEFORE.tar.gz AFTER.tar.gz OUT_DIR SECONDS [LOOPS]
#
# The rows: chunked ag_gemm at P 2 (FP8) and P 4 (bf16), bidir_ring gemm_rs
# at P 4 with one comm lane: each hung at iteration 0's first transfer step
# on an H200 (2026-11-28). Each build gets SECONDS/2 in blocks of SECONDS/8,
# alternated (before, after, before, ...), with LOOPS (default 4) processes
# at a time cycling through the rows; every run has --timeout 5, so a stall
# ends in the watchdog's line (exit 1) instead of hanging. Writes
# OUT_DIR/hang_rows.txt (one line per run: build, row, exit, ms, last line)
# and prints, per build and row, runs and stalls.
set -u
before="${1:?usage: hang_rows.sh BEFORE.tar.gz AFTER.tar.gz OUT_DIR SECONDS [LOOPS]}"
after="${2:?}" out="${3:?}" seconds="${4:?}" loops="${5:-4}"
work=/tmp/braid-hang-rows
rm -rf "$work"
mkdir -p "$work/before" "$work/after" "$out"
if ! tar -C "$work/before" -xzf "$before" || ! tar -C "$work/after" -xzf "$after"; then
  echo "hang_rows: cannot unpack the bundles"
  exit 1
fi
log="$out/hang_rows.txt"
: >"$log"
rows=("--dtype fp8_e4m3 --op ag_gemm --tp 2 --algo chunked --chunks 2"
  "--op ag_gemm --tp 4 --algo chunked --chunks 2"
  "--op gemm_rs --tp 4 --algo bidir_ring --chunks 2")
one() {  # build row-index
  local bin="$work/$1/braid-gpu-bundle/braid" s o rc
  s=$(date +%s%N)
  # shellcheck disable=SC2086  # the row's flags are words
  o="$(timeout -k 5 40 "$bin" run --backend cuda --loopback ${rows[$2]} --m 2048 --n 1024 --k 1024 --streams 2 \
       --verify --iters 3 --warmup 1 --timeout 5 --no-db 2>&1)"
  rc=$?
  printf '%s\trow%d\texit %d\t%dms\t%s\n' "$1" "$2" "$rc" $((($(date +%s%N) - s) / 1000000)) \
    "$(tail -n 1 <<<"$o" | cut -c1-400)" >>"$log"
}
block() {  # build seconds
  local until=$(($(date +%s) + $2)) l
  for ((l = 0; l < loops; l++)); do
    (i=$l; while (($(date +%s) < until)); do one "$1" $((i % 3)); i=$((i + 1)); done) &
  done
  wait
}
for ((b = 0; b < 4; b++)); do
  block before $((seconds / 8))
  block after $((seconds / 8))
done
awk -F'\t' '{ runs[$1" "$2]++; if ($3 != "exit 0") bad[$1" "$2]++ }
  END { for (k in runs) printf "%-12s runs %4d  not ok %3d\n", k, runs[k], bad[k] + 0 }' "$log" | sort
