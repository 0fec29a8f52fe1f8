#!/usr/bin/env bash
# Builds the GPU bundle: braid (built with BRAID_STATIC_DEPS: libstdc++,
# libgcc, SQLite, OpenBLAS and zlib inside it), a launcher that finds the
# CUDA libraries on the target, and the GPU validation script; with
# GEMM_BENCH, also braid_gemm_bench (the GEMM core against cuBLASLt, issue 56)
# behind the same launcher.
# Usage: make_bundle.sh BRAID_BINARY RUN_SH OUT_DIR [GEMM_BENCH]
#
# Dynamic and NOT shipped: glibc, and the CUDA libraries (cudart, cuBLASLt,
# NCCL, CUPTI), which the launcher looks for in $BRAID_CUDA_LIBS,
# $CUDA_HOME/lib64, /usr/local/cuda/lib64 and the nvidia-* Python wheels
# PyTorch installs. Dynamic and shipped in lib/: simdjson only (Debian has no
# static libsimdjson). braid needing any other shared library is an error:
# it was not built with BRAID_STATIC_DEPS.
set -euo pipefail
braid="$1" run_sh="$2" out="$3" gemm_bench="${4:-}"
name="braid-gpu-bundle"
dir="$out/$name"
rm -rf "$dir" "$out/$name.tar.gz"
mkdir -p "$dir/bin" "$dir/lib"
cp "$braid" "$dir/bin/braid.bin"
strip --strip-unneeded "$dir/bin/braid.bin"

# braid's own dynamic dependencies (ELF NEEDED; ldd would add theirs: NCCL
# and simdjson need libstdc++.so.6 and libgcc_s, which every machine with
# NCCL has).
bad=""
for soname in $(readelf -d "$braid" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  case "$soname" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;
    libcudart.so*|libcublasLt.so*|libnccl.so*|libcupti.so*) ;;
    libsimdjson.so*)
      path="$(ldd "$braid" | awk -v s="$soname" '$1 == s { print $3 }')"
      cp -L "$path" "$dir/lib/$soname"
      strip --strip-unneeded "$dir/lib/$soname" ;;
    *) bad="$bad $soname" ;;
  esac
done
if [[ -n "$bad" ]]; then
  echo "gpu-bundle: $braid needs$bad dynamically; build it with -DBRAID_STATIC_DEPS=ON" >&2
  exit 1
fi

cat > "$dir/braid" <<'LAUNCH'
#!/usr/bin/env bash
# Runs the bundled braid with its own libraries first, then the CUDA libraries
# of this machine: $BRAID_CUDA_LIBS, $CUDA_HOME, /usr/local/cuda, or the
# nvidia-* wheels of the python3 on PATH (PyTorch's).
here="$(cd "$(dirname "$0")" && pwd)"
paths="$here/lib"
for d in ${BRAID_CUDA_LIBS:-} ${CUDA_HOME:+$CUDA_HOME/lib64} /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64; do
  [[ -d "$d" ]] && paths="$paths:$d"
done
if command -v python3 >/dev/null; then
  site="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)"
  for d in "$site"/nvidia/*/lib "$site"/nvidia/cu*/lib; do [[ -d "$d" ]] && paths="$paths:$d"; done
fi
export LD_LIBRARY_PATH="$paths${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$here/bin/$(basename "$0").bin" "$@"
LAUNCH
chmod +x "$dir/braid"
if [[ -n "$gemm_bench" ]]; then
  cp "$gemm_bench" "$dir/bin/braid_gemm_bench.bin"
  strip --strip-unneeded "$dir/bin/braid_gemm_bench.bin"
  cp "$dir/braid" "$dir/braid_gemm_bench"  # the launcher runs bin/<its own name>.bin
fi
cp "$run_sh" "$dir/run-gpu-tests.sh"
chmod +x "$dir/run-gpu-tests.sh"
cp "$(dirname "$run_sh")/train_block.toml" "$dir/train_block.toml"  # run.sh's training rows
cp "$(dirname "$run_sh")/train_ub_cfgs.yaml" "$dir/train_ub_cfgs.yaml"  # and its ub_cfgs rows
cat > "$dir/README.txt" <<'TXT'
Braid GPU bundle (x86-64 Linux, glibc 2.36 or newer; built on Debian 12).
Needs on the target: an NVIDIA driver and the CUDA 13 libraries cudart,
cuBLASLt, NCCL 2.28+ and CUPTI (a CUDA toolkit, or PyTorch's nvidia-* wheels);
point BRAID_CUDA_LIBS at their folders if they are elsewhere.
Everything else braid needs is inside it (libsimdjson beside it in lib/).
This braid is built without MPI: one process drives every local GPU (or all
ranks on one GPU with --loopback). One process per GPU under mpirun needs a
braid built from source where MPI is installed.

  ./run-gpu-tests.sh            validate this build on every GPU found
  ./braid run --backend cuda --loopback --op gemm_rs --m 4096 --n 4096 --k 4096 --tp 4 --algo ring --verify
  ./braid_gemm_bench            the GEMM core against cuBLASLt (8192^3, llama3-70b TP8 shapes)
TXT
tar -C "$out" -czf "$out/$name.tar.gz" "$name"
echo "gpu-bundle: $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1), unpacked $(du -sh "$dir" | cut -f1))"
