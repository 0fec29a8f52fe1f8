#!/usr/bin/env bash
# braid_gemm_bench where no GPU is visible: exactly one line, saying so, and
# exit status 2. Usage: gemm_bench_no_gpu.sh BRAID_GEMM_BENCH
out="$(CUDA_VISIBLE_DEVICES= "$1" 2>&1)"
rc=$?
echo "$out"
if [[ $rc -ne 2 ]]; then echo "expected exit status 2, got $rc" >&2; exit 1; fi
if [[ $(wc -l <<< "$out") -ne 1 ]]; then echo "expected one line" >&2; exit 1; fi
if [[ "$out" != "braid_gemm_bench: no CUDA GPU here"* ]]; then echo "unexpected message" >&2; exit 1; fi
