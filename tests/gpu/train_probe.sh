#!/usr/bin/env bash
# Why the small block's FP8 training GEMMs were slow on the H200 (5 to 8.8 ms
# per iteration against 0.23 to 0.54 ms predicted; presets/measured/h200):
# one lease call that gathers what tells the causes apart.
#
#   tests/gpu/train_probe.sh BUNDLE.tar.gz OUT_DIR [SECONDS]
#
#   1. env:    as lease.sh (lease_setup.sh);
#   2. runs:   training steps of tests/gpu/train_block.toml at P 2, 4 and 8,
#              bf16 beside fp8_e4m3, serial and ring (10 timed iterations),
#              stored in probe.db, each run's Chrome trace exported: the
#              GEMM events by name and length, bf16 against FP8; then
#              qkv's fprop as a forward op (ag_gemm, serial) in both dtypes;
#   3. torch:  gemm_reference.py on the block's per-rank GEMM shapes: what
#              cuBLASLt gives the same shapes, bf16 and FP8, on the whole GPU;
#   4. ncu:    one FP8 serial step at P 2 under Nsight Compute, the kernels
#              cuBLASLt chose and their times (last: it may not coexist with
#              braid's own CUPTI collection).
# Everything lands in OUT_DIR/probe-results.tar.gz, packed after each phase.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tests/gpu/lease_setup.sh
. "$here/lease_setup.sh"
lease_open probe probe-results 300 "$@"
mkdir -p "$res/runs"

# --- 1. env -----------------------------------------------------------------
lease_record_machine
head -n 20 "$res/env.txt"
pack

# --- 2. runs ----------------------------------------------------------------
say "runs"
db="$res/probe.db"
for p in 2 4 8; do
  for dtype in bf16 fp8_e4m3; do
    for algo in serial ring; do
      ((p > 2)) && [[ $algo == serial ]] && continue
      name="train_p${p}_${algo}_${dtype}"
      if (($(elapsed) > budget / 2)); then
        echo "$name: skipped (budget)"
        continue
      fi
      BRAID_WRAP_TIMEOUT=60 "$B" run --backend cuda --loopback --model "$here/train_block.toml" --seq 2048 --tp "$p" \
        --phase train --dtype "$dtype" --algo "$algo" --iters 10 --warmup 3 --db "$db" --json \
        >"$res/runs/$name.json" 2>"$res/runs/$name.err"
      rc=$?
      id="$(python3 -c 'import json,sys; t=open(sys.argv[1]).read(); print(json.loads(t[t.index("{"):]).get("run") or "")' \
        "$res/runs/$name.json" 2>/dev/null)"
      echo "$name: exit $rc run ${id:-none} $(tail -c 200 "$res/runs/$name.err" | tr '\n' ' ')"
      [[ -n "$id" ]] && "$B" export --db "$db" --run "$id" -o "$res/runs/$name.trace.json.gz" >/dev/null 2>&1
    done
  done
  pack
done

# The same kind of GEMM as a forward op (qkv's fprop at P 2, all-gather
# then GEMM): is it the training path, or small GEMMs on one shared GPU?
for dtype in bf16 fp8_e4m3; do
  "$B" run --backend cuda --loopback --op ag_gemm --m 2048 --n 2048 --k 1024 --tp 2 --algo serial --dtype "$dtype" \
    --iters 10 --warmup 3 --db "$db" --json >"$res/runs/qkv_fprop_p2_serial_$dtype.json" 2>&1
  echo "qkv_fprop_p2_serial_$dtype: exit $?"
done
pack

# --- 3. torch ---------------------------------------------------------------
say "torch"
# The block's per-rank GEMMs (hidden 1024, 16 heads of 64 and 8 KV heads,
# gated ffn 2048, 2048 tokens; TP P with sequence parallelism): fprop, dgrad
# and wgrad of qkv, out_proj, fc1, fc2 at P 2 and 4.
shapes=""
for p in 2 4; do
  for g in "2048 $((2048 / p)) 1024" "2048 1024 $((1024 / p))" "2048 $((4096 / p)) 1024" "2048 1024 $((2048 / p))"; do
    read -r m n k <<<"$g"
    shapes="$shapes $m,$n,$k $m,$k,$n $k,$n,$m"
  done
done
# And the attention stand-in's GEMMs (braid/compute_stand_in.h).
shapes="$shapes 2048,2048,512 2048,2048,1024"
# shellcheck disable=SC2086  # one word per shape
timeout -k 5 120 python3 "$here/gemm_reference.py" $shapes 2>&1 | tee "$res/gemm_reference.txt"
pack

# --- 4. ncu -----------------------------------------------------------------
# shellcheck disable=SC2012  # the path has no odd characters
ncu="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -n 1)"
left=$((budget - $(elapsed) - 10))
if [[ -n "$ncu" ]] && ((left > 30)); then
  say "ncu ($ncu, ${left}s)"
  timeout -k 5 "$left" "$ncu" --clock-control none --target-processes all --metrics gpu__time_duration.sum \
    --print-summary per-kernel "$bin" run --backend cuda --loopback --model "$here/train_block.toml" --seq 2048 \
    --tp 2 --phase train --dtype fp8_e4m3 --algo serial --iters 1 --warmup 0 --no-db >"$res/ncu.txt" 2>&1
  echo "ncu: exit $?"
  grep -E 'gemm|Gemm|sm90|cutlass|Kernel|kernel' "$res/ncu.txt" | cut -c1-200 | head -n 40
else
  echo "ncu: not run (${ncu:-not found}, ${left}s left)"
fi
pack
say "done"
