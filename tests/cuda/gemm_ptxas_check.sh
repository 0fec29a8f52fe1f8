#!/usr/bin/env bash
# Assembles a GEMM kernel's PTX (the build's) with the toolkit's ptxas and
# checks what ptxas reports for every kernel in it: no stack frame (an
# accumulator array demoted to local memory: every wgmma or mma would read
# it from memory), no spills, and no "Potential Performance Loss" (C7515:
# wgmma serialized because other instructions write its accumulators
# mid-pipeline). Each costs most of the kernel's speed and shows on no host
# test: the fused core's wide tile had both until its loops over the
# accumulator halves were unrolled.
# Usage: gemm_ptxas_check.sh PTXAS PTX_FILE ARCH MIN_KERNELS
# Prints one line per kernel; exits 1 on any finding or fewer kernels than
# MIN_KERNELS, 0 otherwise.
set -euo pipefail
if [[ $# -ne 4 ]]; then
  echo "usage: $0 PTXAS PTX_FILE ARCH MIN_KERNELS" >&2
  exit 2
fi
ptxas="$1" ptx="$2" arch="$3" min="$4"
if ! out="$("$ptxas" -arch="$arch" -v "$ptx" -o /dev/null 2>&1)"; then
  printf 'gemm_ptxas_check: ptxas failed on %s:\n%s\n' "$ptx" "$out" >&2
  exit 1
fi
bad=0
kernels=0
entry=""
while IFS= read -r line; do
  if [[ "$line" =~ Compiling\ entry\ function\ \'([^\']+)\' ]]; then
    entry="${BASH_REMATCH[1]}"
    kernels=$((kernels + 1))
  elif [[ "$line" =~ ([0-9]+)\ bytes\ stack\ frame,\ ([0-9]+)\ bytes\ spill\ stores,\ ([0-9]+)\ bytes\ spill\ loads ]]; then
    if [[ "${BASH_REMATCH[1]}" != 0 || "${BASH_REMATCH[2]}" != 0 || "${BASH_REMATCH[3]}" != 0 ]]; then
      echo "gemm_ptxas_check: $entry ($arch): $line" >&2
      bad=1
    else
      echo "gemm_ptxas_check: $entry ($arch): no stack, no spills"
    fi
  elif [[ "$line" == *"Potential Performance Loss"* ]]; then
    echo "gemm_ptxas_check: $line" >&2
    bad=1
  fi
done <<<"$out"
if [[ $kernels -lt $min ]]; then
  echo "gemm_ptxas_check: $ptx ($arch): $kernels kernels, expected at least $min" >&2
  bad=1
fi
exit $bad
