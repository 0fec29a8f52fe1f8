#!/usr/bin/env bash
# Checks that the PTX the build produced for a GEMM kernel targets the
# expected architecture and contains every instruction the kernel must use.
# Usage: gemm_ptx_check.sh PTX_FILE TARGET INSTRUCTION...
#   e.g. gemm_ptx_check.sh gemm_sm90.ptx sm_90a wgmma.mma_async setmaxnreg
# An INSTRUCTION starting with % is a special register (%globaltimer),
# required as an operand; one starting with ! must be absent (!ld.global.nc).
# Prints one line per missing instruction and exits 1; exits 0 when all are
# there. (CTest also runs it once with an instruction the kernel does not
# use, expecting failure, so that this check is known to be able to fail.)
set -euo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 PTX_FILE TARGET INSTRUCTION..." >&2
  exit 2
fi
ptx="$1" target="$2"
shift 2
if [[ ! -s "$ptx" ]]; then
  echo "gemm_ptx_check: $ptx is missing or empty" >&2
  exit 1
fi
missing=0
if ! grep -Eq "^\.target[[:space:]]+$target([[:space:],]|$)" "$ptx"; then
  echo "gemm_ptx_check: $ptx does not target $target ($(grep -m1 '^\.target' "$ptx" || echo 'no .target line'))" >&2
  missing=1
fi
# An instruction is a word at the start of a statement (after an optional
# predicate guard), not a mention in a comment or a name.
statement() { echo "^[[:space:]]*(@!?%?[A-Za-z0-9_]+[[:space:]]+)?${1//./\\.}"; }
for insn in "$@"; do
  if [[ "$insn" == %* ]]; then
    # A special register: an operand of a statement, not a comment.
    if ! grep -Eq "^[[:space:]]*[a-z@][^/]*${insn}([^A-Za-z0-9_]|$)" "$ptx"; then
      echo "gemm_ptx_check: $ptx ($target) never reads $insn" >&2
      missing=1
    fi
  elif [[ "$insn" == !* ]]; then
    if grep -Eq "$(statement "${insn#!}")" "$ptx"; then
      echo "gemm_ptx_check: $ptx ($target) has ${insn#!}, which it must not" >&2
      missing=1
    fi
  elif ! grep -Eq "$(statement "$insn")" "$ptx"; then
    echo "gemm_ptx_check: $ptx ($target) has no $insn" >&2
    missing=1
  fi
done
if [[ $missing -eq 0 ]]; then
  echo "gemm_ptx_check: $ptx ($target): all of $* present"
fi
exit $missing
