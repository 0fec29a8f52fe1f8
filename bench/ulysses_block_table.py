#!/usr/bin/env python3
"""A Ulysses block beside a tensor-parallel one on the sim, as a markdown table.

For each model, topology, degree P and sequence length (prefill, batch 1,
bf16): the Ulysses block (`--sp ulysses`, weights replicated) with its
all-to-alls plain (a2a) and decomposed (a2a_direct, the best of 1, 2 and 4
sub-chunks), and the tensor-parallel block (Megatron's sequence parallelism)
at its best of direct, ring and bidir_ring, each with the block's lower bound.
Every figure is the sim's; nothing here ran on a GPU, and a Ulysses block's
replicated weights (memory) are not weighed.

usage: bench/ulysses_block_table.py BRAID
"""
import json
import subprocess
import sys

GRID = [  # model, topology, P
    ("llama3-70b", "h100-sxm", 8),
    ("llama3-405b", "h100-sxm", 8),
    ("gpt3-175b", "h100-sxm-2node-ib", 16),
    ("gpt3-175b", "gb200-nvl72", 16),
]
SEQS = ["32K", "128K"]


def makespan(exe, args):
    out = subprocess.run([exe, "run"] + args + ["--no-db", "--json"], check=True, capture_output=True,
                         text=True).stdout
    j = json.loads(out)
    return j["metrics"]["makespan_ns"]["p50"] / 1e6, j["lower_bound"]["lower_bound_ns"] / 1e6


def best(exe, base, variants):
    runs = [(makespan(exe, base + v.split())[0], v) for v in variants]
    return min(runs)


def main():
    exe = sys.argv[1]
    print("| model | topology | P | seq | Ulysses a2a | Ulysses a2a_direct (best) | gain | Ulysses bound |"
          " TP best | TP bound | Ulysses over TP |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for model, topo, p in GRID:
        for seq in SEQS:
            base = ["--model", model, "--seq", seq, "--tp", str(p), "--topology", topo]
            ul = base + ["--sp", "ulysses"]
            plain, bound = makespan(exe, ul + ["--algo", "a2a"])
            direct, how = best(exe, ul, ["--algo a2a_direct", "--algo a2a_direct --chunks 2",
                                         "--algo a2a_direct --chunks 4"])
            tp, tp_how = best(exe, base, ["--algo direct", "--algo ring", "--algo bidir_ring"])
            tp_bound = makespan(exe, base + ["--algo", "serial"])[1]
            print(f"| {model} | {topo} | {p} | {seq} | {plain:.2f} | {direct:.2f} ({how.replace('--algo ', '')}) |"
                  f" {plain / direct:.3f}x | {bound:.2f} | {tp:.2f} ({tp_how.replace('--algo ', '')}) |"
                  f" {tp_bound:.2f} | {tp / direct:.2f}x |")


if __name__ == "__main__":
    main()
