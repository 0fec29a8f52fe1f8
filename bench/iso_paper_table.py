#!/usr/bin/env python3
"""ISO on the sim beside what its paper reports (issue 54 point 2).

The ISO paper (Xiao and Su, arXiv:2409.11155) reports that splitting one
prefill request into two sequence chunks, the second's compute overlapping
the first's all-reduces, cuts prefill time by about 35 % on RTX 4090s and
about 15 % on A800s, for "30b/70b models". Its public abstract and
summaries give no model names, sequence lengths, TP degree, GPUs per node,
PCIe generation or A800 form factor; docs/simulator.md ("ISO beside its
paper") says what is known and what is assumed.

So this script does not fit one setup: for every setup the paper's figures
could come from (llama-30b and llama3-70b; every TP degree whose bf16
weights fit the GPU's memory and whose heads split evenly; prompt lengths
512 to 16384 tokens) it runs one transformer block's prefill on the sim,
serial (sequence parallelism off: all-reduces, as ISO's baseline) and iso
with two even parts, and prints the gain, then each GPU's range beside the
paper's figure.

  python3 bench/iso_paper_table.py [--braid build/release/cli/braid] [--markdown]
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (topology, GPU memory in GB (NVIDIA's product pages: GeForce RTX 4090
# 24 GB, A800 80 GB), the paper's gain): the A800 both as SXM boards on
# NVSwitch and as PCIe cards bridged in pairs, since the paper names neither.
SETUPS = [("rtx4090-pcie", 24, -0.35), ("a800-sxm", 80, -0.15), ("a800-pcie-nvlink-pairs", 80, -0.15)]
MODELS = ["llama-30b", "llama3-70b"]
SEQS = [512, 1024, 2048, 4096, 8192, 16384]
TPS = [2, 4, 8]
# Room left for activations, KV cache and the CUDA context: weights may take
# at most this share of a GPU's memory (an assumption, not the paper's).
WEIGHT_SHARE = 0.85


def model_fields(braid, name):
    """hidden, heads, kv_heads, head_dim, ffn, gated, layers from `braid list models`."""
    out = subprocess.run([braid, "list", "models"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == name:
            # llama-30b    hidden 6656, heads 52 (kv 52) x 128, ffn 17920 (gated), 60 layers
            f = line.replace(",", " ").replace("(", " ").replace(")", " ").split()
            return {"hidden": int(f[f.index("hidden") + 1]), "heads": int(f[f.index("heads") + 1]),
                    "kv": int(f[f.index("kv") + 1]), "head_dim": int(f[f.index("x") + 1]),
                    "ffn": int(f[f.index("ffn") + 1]), "gated": "gated" in f, "layers": int(f[f.index("layers") - 1])}
    raise SystemExit(f"iso_paper_table: braid lists no model {name}")


def weight_gb_per_gpu(m, tp):
    """bf16 weights of the transformer blocks (embeddings and head left out) on one of tp GPUs."""
    attn = m["hidden"] * m["heads"] * m["head_dim"] * 2 + m["hidden"] * m["kv"] * m["head_dim"] * 2
    mlp = m["hidden"] * m["ffn"] * (3 if m["gated"] else 2)
    return m["layers"] * (attn + mlp) * 2 / tp / 1e9


def makespan(braid, topo, model, seq, tp, algo):
    cmd = [braid, "run", "--backend", "sim", "--topology", topo, "--model", model, "--seq", str(seq), "--batch", "1",
           "--tp", str(tp), "--sequence-parallel", "off", "--algo", algo, "--no-db", "--json", "--iters", "1",
           "--warmup", "0"]
    if algo == "iso":
        cmd += ["--chunks", "2"]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    d = json.loads(p.stdout)
    return d["metrics"]["makespan_ns"]["p50"], d.get("error_band")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--braid", default=os.path.join(ROOT, "build/release/cli/braid"))
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    fields = {model: model_fields(a.braid, model) for model in MODELS}
    rows = []
    for topo, mem_gb, paper in SETUPS:
        for model in MODELS:
            m = fields[model]
            for tp in TPS:
                if m["heads"] % tp or m["kv"] % tp or weight_gb_per_gpu(m, tp) > WEIGHT_SHARE * mem_gb:
                    continue
                for seq in SEQS:
                    rows.append((topo, model, tp, seq))
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        serial = list(ex.map(lambda r: makespan(a.braid, r[0], r[1], r[3], r[2], "serial"), rows))
        iso = list(ex.map(lambda r: makespan(a.braid, r[0], r[1], r[3], r[2], "iso"), rows))
    if a.markdown:
        print("| topology | model | TP | prompt | serial (ms) | iso, 2 parts (ms) | gain | band |")
        print("|---|---|---|---|---|---|---|---|")
    gains = {}
    for (topo, model, tp, seq), (s, _), (i, band) in zip(rows, serial, iso):
        g = (i - s) / s
        gains.setdefault(topo, []).append((g, model, tp, seq))
        if a.markdown:
            print(f"| {topo} | {model} | {tp} | {seq} | {s / 1e6:.2f} | {i / 1e6:.2f} | {100 * g:+.1f} % | ±{100 * band:.0f} % |")
        else:
            print(f"{topo:22s} {model:11s} tp {tp} seq {seq:6d}  serial {s / 1e6:8.2f} ms  iso {i / 1e6:8.2f} ms"
                  f"  {100 * g:+6.1f} %  (band ±{100 * band:.0f} %)")
    print()
    for topo, _, paper in SETUPS:
        g = sorted(gains.get(topo, []))
        if not g:
            continue
        best, worst = g[0], g[-1]
        print(f"{topo}: paper {100 * paper:+.0f} %; sim {100 * best[0]:+.1f} % ({best[1]} tp {best[2]} seq {best[3]})"
              f" to {100 * worst[0]:+.1f} % ({worst[1]} tp {worst[2]} seq {worst[3]}) over {len(g)} setups")


if __name__ == "__main__":
    sys.exit(main())
