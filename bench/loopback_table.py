#!/usr/bin/env python3
"""The sim's loopback predictions against the measured cuda loopback runs.

For every run JSON under presets/measured/{h100,h200}/loopback (the fused
kernel's runs left out: their kernel ran at 0.5 % of cuBLASLt's rate, not a
model question), runs `braid run --backend sim --loopback --json` with the
run's workload and config, and prints measured and sim makespan (p50) and
the error, per run and summed (mean |error|, 90th percentile, worst, count
within 10 %), for all runs, the fitting runs and the held-out runs.

Held out (chosen by name before any fitting for issue 54 point 3): in each
folder's name-sorted list of non-fused runs, every 4th from the 4th
(indices 3, 7, 11, ...).

Then the training steps and one-GEMM runs of <gpu>/train_probe/after (the
block of tests/gpu/train_block.toml, seq 2048), in a table of their own: the
bf16 training steps fitted loopback_rank_launch_us and loopback_launch_us,
their FP8 twins (and the one-GEMM runs) are held out.

  python3 bench/loopback_table.py [--braid build/release/cli/braid] [--markdown]
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def runs(gpu):
    files = sorted(glob.glob(os.path.join(ROOT, "presets/measured", gpu, "loopback", "*.json")))
    out = []
    for f in files:
        d = json.load(open(f))
        if d["config"]["algorithm"] == "fused":
            continue
        out.append((f, d))
    return [(f, d, i % 4 == 3) for i, (f, d) in enumerate(out)]


TOPOLOGY = {}  # --topology GPU=FILE: a topology file in place of GPU-sxm


def sim_makespan(braid, gpu, d, workload_args):
    """The sim's p50 makespan of run JSON `d` in loopback: its config, its
    dtype and `workload_args` (how the run named its workload)."""
    w, c = d["workload"], d["config"]
    cmd = [braid, "run", "--backend", "sim", "--loopback", "--topology", TOPOLOGY.get(gpu, gpu + "-sxm"), "--no-db", "--json",
           "--iters", "1", "--warmup", "0", "--algo", c["algorithm"], "--chunks", str(c["chunks"]), "--streams",
           str(c["streams"])] + workload_args
    if w.get("dtype", "bf16") != "bf16":
        cmd += ["--dtype", w["dtype"]]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["metrics"]["makespan_ns"]["p50"]


def op_args(w, tp):
    return ["--op", w["op"], "--m", str(w["m"]), "--n", str(w["n"]), "--k", str(w["k"]), "--tp", str(tp)]


def sim(braid, gpu, d):
    # The folder names the GPU: the H200's runs were launched with the
    # h100-sxm topology (their JSON says so) on an H200.
    return sim_makespan(braid, gpu, d, op_args(d["workload"], d["workload"]["tp"]))


def probe_runs(gpu):
    return sorted(glob.glob(os.path.join(ROOT, "presets/measured", gpu, "train_probe", "after", "*.json")))


def sim_probe(braid, gpu, d):
    # A training step names its block by model ("gpu-check": the block file
    # the GPU bundle carries); one GEMM names its shape.
    w, tp = d["workload"], len(d["ranks"])
    if "ops" not in w:
        return sim_makespan(braid, gpu, d, op_args(w, tp))
    return sim_makespan(braid, gpu, d, ["--tp", str(tp), "--model", os.path.join(ROOT, "tests/gpu/train_block.toml"),
                                        "--seq", str(w["m"] // w.get("batch", 1)), "--phase", "train"])


def print_row(name, measured, predicted, markdown):
    e = (predicted - measured) / measured
    if markdown:
        print(f"| {name} | {measured / 1e3:,.0f} | {predicted / 1e3:,.0f} ({100 * e:+.1f} %) |")
    else:
        print(f"{name:40s} {measured / 1e3:9.0f} {predicted / 1e3:9.0f} {100 * e:+7.1f} %")
    return e


def summary(errs):
    if not errs:
        return "-"
    a = sorted(abs(e) for e in errs)
    p90 = a[max(0, math.ceil(0.9 * len(a)) - 1)]
    within = sum(1 for e in a if e <= 0.10)
    return f"mean {100 * sum(a) / len(a):.1f} % / p90 {100 * p90:.1f} % / worst {100 * a[-1]:.1f} % / within 10 %: {within} of {len(a)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--braid", default=os.path.join(ROOT, "build/release/cli/braid"))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--gpu", action="append", default=None)
    ap.add_argument("--topology", action="append", default=[], help="GPU=FILE, e.g. h100=/tmp/t.toml")
    a = ap.parse_args()
    for t in a.topology:
        g, f = t.split("=", 1)
        TOPOLOGY[g] = f
    for gpu in a.gpu or ["h100", "h200"]:
        rows = runs(gpu)
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            preds = list(ex.map(lambda r: sim(a.braid, gpu, r[1]), rows))
        fit, held, every = [], [], []
        print(f"\n{gpu} loopback (* held out)")
        if a.markdown:
            print(f"| run (cuda `--loopback`, {gpu.upper()}) | measured (µs) | sim (µs) |")
            print("|---|---|---|")
        for (f, d, h), p in zip(rows, preds):
            name = os.path.basename(f)[:-5].replace("_", " ") + (" *" if h else "")
            e = print_row(name, d["metrics"]["makespan_ns"]["p50"], p, a.markdown)
            (held if h else fit).append(e)
            every.append(e)
        print("all:      " + summary(every))
        print("fit:      " + summary(fit))
        print("held out: " + summary(held))
        probes = probe_runs(gpu)
        if not probes:
            continue
        docs = [json.load(open(f)) for f in probes]
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            preds = list(ex.map(lambda d: sim_probe(a.braid, gpu, d), docs))
        print(f"\n{gpu} training steps and one GEMM (train_probe/after; * held out)")
        errs, fit, held = [], [], []
        for f, d, p in zip(probes, docs, preds):
            is_fit = "ops" in d["workload"] and d["workload"].get("dtype", "bf16") == "bf16"
            name = os.path.basename(f)[:-5].replace("_", " ") + ("" if is_fit else " *")
            e = print_row(name, d["metrics"]["makespan_ns"]["p50"], p, a.markdown)
            errs.append(e)
            (fit if is_fit else held).append(e)
        print("all:      " + summary(errs))
        print("fit:      " + summary(fit))
        print("held out: " + summary(held))


if __name__ == "__main__":
    sys.exit(main())
