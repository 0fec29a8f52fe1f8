#!/usr/bin/env python3
"""Where each tuned op's time goes beyond its lower bound (sim):

    python3 bench/efficiency_table.py --braid build/release/cli/braid \
        [--model llama3-70b --model llama3-405b] [--seq 4096 --seq 8192] [--tp 8] [--topology h100-sxm]

For each model and sequence length it runs `braid tune` (into a scratch
store) and prints one row per TP GEMM: the winner, its time, lower bound,
efficiency, overlap ratio, and the gap split two ways.

- The tuner's own split (`results[].gap`): the bound side's busy time beyond
  its alone time ("busy+") and its idle time.
- The GEMM's slowdown split into the cut and the contention. "As cut" is the
  sum of the winner's GEMMs, each run alone on one GPU (`braid run --tp 1`),
  against the whole GEMM alone: what splitting the GEMM into blocks costs by
  itself (small GEMMs fill fewer SMs). "Contention" is the GEMM's busy time in
  the winner's run against the cut GEMMs alone: what the transfers, adds and
  copies beside it cost.

A decomposed plan can only reach its lower bound when both are 1.0; the
table says which one keeps each op below it.
"""
import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile


def run_json(args):
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(args[:3])}: exit {out.returncode}: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--braid", required=True)
    ap.add_argument("--model", action="append")
    ap.add_argument("--seq", action="append", type=int)
    ap.add_argument("--tp", type=int, default=8)
    ap.add_argument("--topology", default="h100-sxm")
    a = ap.parse_args()
    models = a.model or ["llama3-70b", "llama3-405b"]
    seqs = a.seq or [4096, 8192]

    @functools.lru_cache(maxsize=None)
    def gemm_us(m, n, k):
        j = run_json([a.braid, "run", "--op", "ag_gemm", "--m", str(m), "--n", str(n), "--k", str(k), "--tp", "1",
                      "--algo", "serial", "--topology", a.topology, "--iters", "1", "--warmup", "0", "--json",
                      "--no-db"])
        return j["ranks"][0]["metrics"]["compute_ns"]["p50"] / 1e3

    print("| model | seq | op | winner | µs | LB µs | eff | overlap | bound | busy+ µs | idle µs "
          "| GEMM alone µs | as cut µs | cut × | contention × |")
    print("|" + "---|" * 15)
    with tempfile.TemporaryDirectory(prefix="braid-eff-") as scratch:
        for model in models:
            for seq in seqs:
                db = os.path.join(scratch, f"{model}-{seq}.db")
                d = run_json([a.braid, "tune", "--model", model, "--seq", str(seq), "--tp", str(a.tp), "--topology",
                              a.topology, "--json", "--db", db, "--out", db + ".toml"])
                for r in d["results"]:
                    print(row(model, seq, r, gemm_us))


def gemm_rows(w, c):
    """Rows of each GEMM the winner's plan runs on one rank."""
    p, m, alg, chunks = w["tp"], w["m"], c["algorithm"], c["chunks"]
    if alg in ("ring", "direct", "bidir_ring"):
        halves = 2 if alg == "bidir_ring" else 1
        return [m // p // chunks // halves] * (p * chunks * halves)
    if alg == "chunked":
        weights = c["splits"] or [1] * chunks
        return [m * x // sum(weights) for x in weights]
    return [m]  # serial, fused: one GEMM


def row(model, seq, r, gemm_us):
    w, c, g = r["workload"], r["config"], r["gap"]
    p = w["tp"]
    # A rank's GEMM: ag_gemm shards N, the reductions shard K.
    n, k = (w["n"] // p, w["k"]) if w["op"] == "ag_gemm" else (w["n"], w["k"] // p)
    whole = gemm_us(w["m"], n, k)
    cut = sum(gemm_us(x, n, k) for x in gemm_rows(w, c))
    busy = g["compute_slowdown"] * whole
    win = f'{c["algorithm"]} c{c["chunks"]} s{c["streams"]}'
    win += f' sms{c["comm_sms"]}' if c["comm_sms"] else ""
    win += " ce" if c["comm_engine"] == "ce" else ""
    win += f' splits={",".join(map(str, c["splits"]))}' if c["splits"] else ""
    return (f'| {model} | {seq} | {r["op"]} | {win} | {r["time_ns"] / 1e3:.1f} | {r["lower_bound_ns"] / 1e3:.1f} '
            f'| {r["efficiency"]:.3f} | {r["overlap_ratio"]:.2f} | {g["bound"]} | {g["stretched_ns"] / 1e3:.1f} '
            f'| {g["idle_ns"] / 1e3:.1f} | {whole:.1f} | {cut:.1f} | {cut / whole:.2f} | {busy / cut:.2f} |')


if __name__ == "__main__":
    main()
