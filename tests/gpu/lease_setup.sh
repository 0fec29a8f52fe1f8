# The lease drivers' shared parts (lease.sh, train_probe.sh), sourced:
#
#   lease_open NAME RESULTS DEFAULT_SECONDS BUNDLE.tar.gz OUT_DIR [SECONDS]
#     the driver's arguments; a fresh /tmp/braid-NAME/ with res/ (what comes
#     back, packed by `pack` into OUT_DIR/RESULTS.tar.gz), the bundle
#     unpacked there ($bin), and `elapsed` and `say` for the phases;
#   lease_record_machine
#     the machine (res/env.txt), where braid's CUDA libraries resolve
#     (res/ldd.txt; a library the launcher's folders miss is looked for once
#     and named in BRAID_CUDA_LIBS), and the wrapper every braid call goes
#     through ($B): bounded by a timeout, its arguments, exit code, time,
#     stdout and stderr kept under res/logs/NNN/.
# shellcheck shell=bash disable=SC2034  # the variables set here are the driver's

lease_open() {
  lease_name="$1" lease_results="$2"
  local default_budget="$3" usage="${0##*/} BUNDLE.tar.gz OUT_DIR [SECONDS]"
  shift 3
  bundle="${1:?usage: $usage}"
  out="${2:?usage: $usage}"
  budget="${3:-$default_budget}"
  start=$(date +%s)
  work="/tmp/braid-$lease_name"
  rm -rf "$work"
  mkdir -p "$work/res/logs" "$work/tmp" "$out"
  res="$work/res"
  tar -C "$work" -xzf "$bundle" || { echo "$lease_name: cannot unpack $bundle"; exit 1; }
  bin="$work/braid-gpu-bundle/braid"
}
elapsed() { echo $(($(date +%s) - start)); }
say() { echo "[$lease_name $(elapsed)s] $*"; }
pack() {
  tar -C "$work" -czf "$out/$lease_results.tar.gz.tmp" res && mv "$out/$lease_results.tar.gz.tmp" "$out/$lease_results.tar.gz"
}

lease_record_machine() {
  {
    date -u
    nvidia-smi
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv
    command -v nvcc && nvcc --version
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
    uname -a
    grep PRETTY /etc/os-release
    nproc
  } >"$res/env.txt" 2>&1
  # Where the launcher's library path resolves braid's CUDA libraries.
  site="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)"
  libpath="$work/braid-gpu-bundle/lib"
  for d in /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64 "$site"/nvidia/*/lib "$site"/nvidia/cu*/lib; do
    [[ -d "$d" ]] && libpath="$libpath:$d"
  done
  LD_LIBRARY_PATH="$libpath" ldd "$work/braid-gpu-bundle/bin/braid.bin" >"$res/ldd.txt" 2>&1
  # A library the launcher's folders miss: look for it once, and point BRAID_CUDA_LIBS at it.
  extra=""
  for lib in $(awk '/not found/ { print $1 }' "$res/ldd.txt"); do
    found="$(find / -xdev -name "$lib" 2>/dev/null | head -n 1)"
    [[ -n "$found" ]] && extra="$extra $(dirname "$found")"
    echo "missing $lib -> ${found:-nowhere}" >>"$res/ldd.txt"
  done
  [[ -n "$extra" ]] && export BRAID_CUDA_LIBS="$extra"
  for l in libnccl.so.2 libcublasLt.so.13 libcudart.so.13 libcupti.so.13; do
    p="$(LD_LIBRARY_PATH="$libpath${extra:+:${extra// /:}}" ldd "$work/braid-gpu-bundle/bin/braid.bin" | awk -v l=$l '$1 == l { print $3 }')"
    [[ -n "$p" ]] && echo "$l -> $(readlink -f "$p")" >>"$res/ldd.txt"
  done
  cat "$res/env.txt" "$res/ldd.txt"

  # The wrapper: bounded, logged braid calls (run.sh and the phases below use it).
  cat >"$work/braid" <<EOF
#!/usr/bin/env bash
n=\$(( \$(ls "$res/logs" | wc -l) + 1 ))
d="$res/logs/\$(printf %03d \$n)"
mkdir -p "\$d"
printf '%s\n' "\$*" >"\$d/args"
t=\${BRAID_WRAP_TIMEOUT:-90}
[[ "\$1" == calibrate ]] && t=150
[[ "\$*" == *" --m 8192 "* ]] && t=45
[[ -n "\${BRAID_FUSED_NEVER_SET:-}" ]] && t=45
s=\$(date +%s%N)
timeout -k 5 \$t "$bin" "\$@" >"\$d/out" 2>"\$d/err"
rc=\$?
echo "\$rc \$(( (\$(date +%s%N) - s) / 1000000 ))ms" >"\$d/rc"
cat "\$d/err" >&2
cat "\$d/out"
exit \$rc
EOF
  chmod +x "$work/braid"
  B="$work/braid"
}
