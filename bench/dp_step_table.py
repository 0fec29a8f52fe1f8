#!/usr/bin/env python3
"""The data-parallel side of a training step on the sim, as a markdown table.

For each model, topology and DP size (TP 8 inside a node or an NVL72 rack):
the step with the DP collectives serial (after the backward), bucketed at
Megatron-LM's default bucket (--overlap-grad-reduce), decomposed into the
wgrad and fprop GEMMs (CommFuse), and as `braid tune --dp` tunes it (bucket,
the DP group's NCCL CTAs, decomposed layers, prefetch), each with its DP
exposed time, DP efficiency (the step without DP communication over the step)
and MFU. Every figure is the sim's; nothing here ran on a GPU.

usage: bench/dp_step_table.py BRAID [--zero 1] [--seq 8192]
"""
import json
import re
import subprocess
import sys
import tempfile

GRID = [  # model, topology, dp
    ("llama3-70b", "h100-sxm-2node-ib", 2),
    ("llama3-70b", "h100-sxm-4node-ib", 4),
    ("llama3-70b", "h100-sxm-16node-ib", 16),
    ("llama3-70b", "gb200-nvl72", 4),
    ("llama3-70b", "gb200-nvl72", 8),
    ("llama3-405b", "h100-sxm-2node-ib", 2),
    ("llama3-405b", "h100-sxm-4node-ib", 4),
    ("llama3-405b", "h100-sxm-16node-ib", 16),
    ("llama3-405b", "gb200-nvl72", 4),
    ("llama3-405b", "gb200-nvl72", 8),
]


def braid(exe, args):
    out = subprocess.run([exe] + args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    exe = sys.argv[1]
    zero = sys.argv[sys.argv.index("--zero") + 1] if "--zero" in sys.argv else "1"
    seq = sys.argv[sys.argv.index("--seq") + 1] if "--seq" in sys.argv else "8192"
    print(f"seq {seq}, batch 1 a DP rank, TP 8, zero {zero}, bf16; step ms / DP exposed ms / DP efficiency / MFU\n")
    print("| model | topology | DP | serial | bucketed (Megatron default) | decomposed | tuned | tuned DP setup | gain vs Megatron |")
    print("|---|---|---|---|---|---|---|---|---|")
    for model, topo, dp in GRID:
        base = ["run", "--model", model, "--seq", seq, "--tp", "8", "--phase", "train", "--algo", "ring",
                "--topology", topo, "--dp", str(dp), "--zero", zero, "--no-db", "--json"]
        cells = []
        for sched in ("serial", "bucketed", "decomposed"):
            s = braid(exe, base + ["--dp-schedule", sched])["train_step"]
            eff = (s["step_ns"] - s["dp_exposed_ns"]) / s["step_ns"]
            cells.append(f"{s['step_ns'] / 1e6:.1f} / {s['dp_exposed_ns'] / 1e6:.1f} / {eff:.3f} / {s['mfu']:.3f}")
        with tempfile.TemporaryDirectory() as d:
            t = braid(exe, ["tune", "--model", model, "--seq", seq, "--tp", "8", "--phase", "train", "--topology",
                            topo, "--dp", str(dp), "--zero", zero, "--db", d + "/t.db", "--out", d + "/t.toml",
                            "--no-progress", "--json"])["train_step"]
        tuned, megatron = t["tuned"], t["tuned_tp_megatron_dp"]
        eff = (tuned["step_ns"] - tuned["dp_exposed_ns"]) / tuned["step_ns"]
        cells.append(f"{tuned['step_ns'] / 1e6:.1f} / {tuned['dp_exposed_ns'] / 1e6:.1f} / {eff:.3f} / {tuned['mfu']:.3f}")
        gain = megatron["step_ns"] / tuned["step_ns"]
        setup = re.sub(r"^dp=\d+ zero=\S+ ", "", t["tuned_setup"])
        print(f"| {model} | {topo} | {dp} | " + " | ".join(cells) + f" | {setup} | {gain:.3f}x |")
    print("\nserial/bucketed/decomposed: the block's TP GEMMs ring; tuned: the TP GEMMs tuned too, and its gain "
          "is over Megatron's DP defaults on that same tuned block.")


if __name__ == "__main__":
    main()
