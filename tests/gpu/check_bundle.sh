#!/usr/bin/env bash
# Checks a built GPU bundle (cmake --build build/release --target gpu-bundle):
#   tests/gpu/check_bundle.sh path/to/braid-gpu-bundle.tar.gz
# - the tarball is under 50 MB;
# - braid needs only glibc, the CUDA libraries and the bundled libsimdjson
#   (its ELF NEEDED entries; libsimdjson resolves inside the bundle);
# - the unpacked bundle runs --version and a sim run, and --backend cuda
#   without a GPU exits 1 with one line (skipped where a GPU is present);
# - braid_gemm_bench is in it and, without a GPU, exits 2 with one line.
# Exit 0 passed, 1 failed, 77 no bundle built (skipped: CI does not build it).
set -u
tarball="${1:?usage: check_bundle.sh BUNDLE.tar.gz}"
if [[ ! -f "$tarball" ]]; then
  echo "check_bundle.sh: SKIPPED, no bundle at $tarball (cmake --build <build> --target gpu-bundle makes it)"
  exit 77
fi
failed=0
fail() { echo "FAIL: $*"; failed=1; }

bytes="$(stat -c %s "$tarball")"
echo "bundle: $tarball, $((bytes / 1024 / 1024)) MiB ($bytes bytes)"
((bytes < 50 * 1024 * 1024)) || fail "the tarball is not under 50 MB"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xzf "$tarball" || { echo "FAIL: cannot unpack"; exit 1; }
dir="$tmp/braid-gpu-bundle"
bin="$dir/bin/braid.bin"

needed="$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
echo "NEEDED: $needed"
for lib in $needed; do
  case "$lib" in
    libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux-x86-64.so.*) ;;
    libcudart.so.*|libcublasLt.so.*|libnccl.so.*|libcupti.so.*) ;;
    libsimdjson.so.*) [[ -f "$dir/lib/$lib" ]] || fail "$lib is not in the bundle's lib/" ;;
    *) fail "braid needs $lib dynamically" ;;
  esac
done
simdjson="$(realpath "$(ldd "$bin" | awk '/libsimdjson/ { print $3 }')")"
[[ "$simdjson" == "$(realpath "$dir")/lib/"* ]] || fail "libsimdjson resolves to '$simdjson', not the bundle's"
# Everything the loader maps (ldd: NEEDED of NEEDED too): glibc, CUDA's
# libraries, the libstdc++ and libgcc_s that NCCL and simdjson need, the bundle's simdjson.
for lib in $(ldd "$bin" | awk '{ print $1 }'); do
  case "$(basename "$lib")" in
    linux-vdso.so.*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libutil.so.*|ld-linux-x86-64.so.*) ;;
    libcudart.so.*|libcublasLt.so.*|libnccl.so.*|libcupti.so.*|libstdc++.so.*|libgcc_s.so.*|libsimdjson.so.*) ;;
    *) fail "the loader maps $lib" ;;
  esac
done

[[ -f "$dir/train_block.toml" ]] || fail "train_block.toml (run-gpu-tests.sh's training block) is not in the bundle"
[[ -f "$dir/train_ub_cfgs.yaml" ]] || fail "train_ub_cfgs.yaml (run-gpu-tests.sh's ub_cfgs rows) is not in the bundle"
"$dir/braid" --version || fail "--version"
"$dir/braid" run --backend sim --op gemm_rs --m 256 --n 256 --k 256 --tp 2 --algo ring --no-db >/dev/null ||
  fail "a sim run"
if [[ ! -e /dev/nvidia0 ]]; then
  err="$("$dir/braid" run --backend cuda --op gemm_rs --m 256 --n 256 --k 256 --tp 2 --algo ring --no-db 2>&1 >/dev/null)"
  rc=$?
  echo "cuda without a GPU: exit $rc: $err"
  [[ "$rc" -eq 1 ]] || fail "--backend cuda without a GPU exits $rc, not 1"
  [[ "$(wc -l <<<"$err")" -eq 1 ]] || fail "--backend cuda without a GPU printed more than one line"
fi
[[ -x "$dir/braid_gemm_bench" && -f "$dir/bin/braid_gemm_bench.bin" ]] || fail "braid_gemm_bench is not in the bundle"
if [[ ! -e /dev/nvidia0 ]]; then
  err="$("$dir/braid_gemm_bench" 2>&1)"
  rc=$?
  echo "braid_gemm_bench without a GPU: exit $rc: $err"
  [[ "$rc" -eq 2 ]] || fail "braid_gemm_bench without a GPU exits $rc, not 2"
  [[ "$(wc -l <<<"$err")" -eq 1 ]] || fail "braid_gemm_bench without a GPU printed more than one line"
fi
[[ "$failed" -eq 0 ]] && echo "check_bundle.sh: passed"
exit "$failed"
