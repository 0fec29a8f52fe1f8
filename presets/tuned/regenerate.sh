#!/usr/bin/env bash
# Regenerates the shipped presets: `braid tune` on the sim backend
# (exhaustive; figures simulated and marked so), batch 1, seq 4096 and 8192:
#   forward (prefill): every TP GEMM of llama3-8b, llama3-70b, llama3-405b and
#     gpt3-175b on H100 SXM TP 2/4/8 and A100 SXM TP 4/8;
#   training steps (--phase train): TE's twelve GEMMs (fprop, dgrad, wgrad of
#     qkv, proj, fc1, fc2) of llama3-8b, llama3-70b and llama3-405b on
#     H100 SXM, H200 SXM, B200 SXM and A100 SXM at TP 2/4/8;
#   FP8 (fp8_e4m3, TE's default comm dtypes: all-gathers FP8, reduce-scatters
#     bf16): the same llama3 prefills and training steps on H100 SXM, H200 SXM
#     and B200 SXM (A100 has no FP8).
# A training step's fprop GEMMs are its prefill's (same shapes, same key), so
# both tunes agree on them.
#
#   presets/tuned/regenerate.sh [path/to/braid]
#
# Each topology gets one file (h100-sxm.toml, h200-sxm.toml, b200-sxm.toml,
# a100-sxm.toml) that a runtime loads whole, tuned for Braid's own runtime
# (--runtime braid: every plan), and one in te/ tuned for TransformerEngine
# (--runtime te: only what ub_cfgs expresses), which `braid presets export-te`
# writes exactly. Trials go to a scratch store that is deleted
# afterwards.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
braid="${1:-$here/../../build/release/cli/braid}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

runtime=braid
dir="$here"
tune() {  # topology tp model seq phase [dtype]
  "$braid" tune --backend sim --model "$3" --seq "$4" --batch 1 --tp "$2" --topology "$1" --phase "$5" \
    --dtype "${6:-bf16}" --runtime "$runtime" --db "$scratch/trials.db" --out "$dir/$1.toml.new" \
    --no-progress >/dev/null
}

mkdir -p "$here/te"
for runtime in braid te; do
dir="$here"
if [ "$runtime" = te ]; then dir="$here/te"; fi
for topo in h100-sxm h200-sxm b200-sxm a100-sxm; do
  rm -f "$dir/$topo.toml.new"
  case "$topo" in
    h100-sxm) forward_tps="2 4 8" ;;
    a100-sxm) forward_tps="4 8" ;;
    *) forward_tps="" ;;
  esac
  for model in llama3-8b llama3-70b llama3-405b gpt3-175b; do
    for seq in 4096 8192; do
      for tp in $forward_tps; do
        tune "$topo" "$tp" "$model" "$seq" prefill
      done
    done
  done
  for model in llama3-8b llama3-70b llama3-405b; do
    for seq in 4096 8192; do
      for tp in 2 4 8; do
        tune "$topo" "$tp" "$model" "$seq" train
      done
    done
  done
  if [ "$topo" != a100-sxm ]; then
    for model in llama3-8b llama3-70b llama3-405b; do
      for seq in 4096 8192; do
        for tp in 2 4 8; do
          tune "$topo" "$tp" "$model" "$seq" prefill fp8_e4m3
          tune "$topo" "$tp" "$model" "$seq" train fp8_e4m3
        done
      done
    done
  fi
  mv "$dir/$topo.toml.new" "$dir/$topo.toml"
  echo "$dir/$topo.toml: $(grep -c '^\[\[preset\]\]' "$dir/$topo.toml") presets"
done
done
