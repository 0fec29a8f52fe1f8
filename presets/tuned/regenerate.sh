#!/usr/bin/env bash
# Regenerates the shipped presets: `braid tune` on the sim backend
# (exhaustive; figures simulated and marked so) for every TP GEMM of
# llama3-8b, llama3-70b, llama3-405b and gpt3-175b, prefill, batch 1,
# seq 4096 and 8192, on H100 SXM TP 2/4/8 and A100 SXM TP 4/8.
#
#   presets/tuned/regenerate.sh [path/to/braid]
#
# Each topology gets one file (h100-sxm.toml, a100-sxm.toml) that a runtime
# loads whole. Trials go to a scratch store that is deleted afterwards.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
braid="${1:-$here/../../build/release/cli/braid}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

tune() {  # topology tp model seq
  "$braid" tune --backend sim --model "$3" --seq "$4" --batch 1 --tp "$2" --topology "$1" \
    --db "$scratch/trials.db" --out "$here/$1.toml.new" --no-progress >/dev/null
}

for topo in h100-sxm a100-sxm; do
  rm -f "$here/$topo.toml.new"
  if [ "$topo" = h100-sxm ]; then tps="2 4 8"; else tps="4 8"; fi
  for model in llama3-8b llama3-70b llama3-405b gpt3-175b; do
    for seq in 4096 8192; do
      for tp in $tps; do
        tune "$topo" "$tp" "$model" "$seq"
      done
    done
  done
  mv "$here/$topo.toml.new" "$here/$topo.toml"
  echo "$here/$topo.toml: $(grep -c '^\[\[preset\]\]' "$here/$topo.toml") presets"
done
