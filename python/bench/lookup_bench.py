#!/usr/bin/env python3
"""Lookups per second from Python (braid.PresetTable.lookup) on the table that
bench/presets_bench.cc measures in C++: 1000 gemm_rs entries in one
(gpu, topology, tp, op, dtype) group plus 64 others, exact hits and
nearest-shape misses. Prints the C++ figure beside it when the C++ benchmark
binary is given or found in build/release.

    PYTHONPATH=build/release/python python3 python/bench/lookup_bench.py [--seconds S] [--cxx PATH]
"""

import argparse
import os
import subprocess
import threading
import time

import braid

ENTRY = """
[[preset]]
gpu = "{gpu}"
topology = "{topology}"
tp = 8
op = "gemm_rs"
dtype = "bf16"
m = {m}
n = {n}
k = {k}
algorithm = "{algorithm}"
chunks = 1
streams = 1
comm_sms = 0
comm_engine = "sm"
comm_priority = "high"
time_ns = {time_ns}.0
speedup_vs_serial = 1.0
speedup_vs_te_default = 1.0
overlap_ratio = 0.0
tail_ns = 0.0
backend = "sim"
braid_version = "0.1.0"
date = "2026-11-21"
"""


def shape(i):
    return 1024 * (1 + i % 10), 1024 * (1 + (i // 10) % 10), 8192 * (1 + i // 100)


def table_text():
    parts = ['format = "braid-presets"\nversion = 1\n']
    for i in range(1000):
        m, n, k = shape(i)
        parts.append(ENTRY.format(gpu="h100-sxm", topology="h100-sxm", m=m, n=n, k=k, algorithm="ring",
                                  time_ns=1000 + i))
    for i in range(64):  # other groups, as in the C++ benchmark
        m, n, k = shape(i)
        parts.append(ENTRY.format(gpu="a100-sxm", topology=f"topo-{i}", m=m, n=n, k=k, algorithm="serial",
                                  time_ns=1000))
    return "".join(parts)


def queries(exact):
    out = []
    for i in range(0, 1000, 7):
        m, n, k = shape(i)
        out.append((m if exact else m + 512, n, k))
    return out


def lookups_per_second(table, qs, seconds, expect):
    """Best of three rounds of `seconds` / 3 each."""
    lookup = table.lookup
    r = lookup(op="gemm_rs", m=qs[0][0], n=qs[0][1], k=qs[0][2], tp=8, gpu="h100-sxm", topology="h100-sxm")
    assert r is not None and r.match == expect, r
    best = 0.0
    for _ in range(3):
        done, start, deadline = 0, time.perf_counter(), time.perf_counter() + seconds / 3
        while time.perf_counter() < deadline:
            for m, n, k in qs:
                lookup(op="gemm_rs", m=m, n=n, k=k, tp=8, gpu="h100-sxm", topology="h100-sxm")
            done += len(qs)
        best = max(best, done / (time.perf_counter() - start))
    return best


def threaded_lookups_per_second(table, qs, seconds, threads):
    counts = [0] * threads
    stop = time.perf_counter() + seconds

    def work(slot):
        while time.perf_counter() < stop:
            for m, n, k in qs:
                table.lookup(op="gemm_rs", m=m, n=n, k=k, tp=8, gpu="h100-sxm", topology="h100-sxm")
            counts[slot] += len(qs)

    start = time.perf_counter()
    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


def call_floor(table, seconds):
    """Calls per second of len(table): what any bound call costs, the floor under lookup."""
    n, start, deadline = 0, time.perf_counter(), time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for _ in range(1000):
            len(table)
        n += 1000
    return n / (time.perf_counter() - start)


def cxx_figures(path):
    out = subprocess.run([path, "--benchmark_format=console"], capture_output=True, text=True, timeout=300).stdout
    figures = {}
    for line in out.splitlines():
        cols = line.split()
        if cols and cols[0] in ("BM_LookupExact", "BM_LookupNearest"):
            figures[cols[0]] = float(cols[1]) if cols[2] == "ns" else None
    return figures


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_cxx = os.path.join(here, "..", "..", "build", "release", "bench", "braid_presets_bench")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per figure (default 3)")
    ap.add_argument("--threads", type=int, default=2, help="threads for the threaded figure (default 2)")
    ap.add_argument("--cxx", default=default_cxx, help="bench/braid_presets_bench binary ('' to skip)")
    a = ap.parse_args()

    t0 = time.perf_counter()
    table = braid.PresetTable.parse(table_text(), "bench.toml")
    print(f"table: {len(table)} presets, parsed in {(time.perf_counter() - t0) * 1e3:.1f} ms")
    cxx = cxx_figures(a.cxx) if a.cxx and os.path.exists(a.cxx) else {}
    floor = call_floor(table, a.seconds / 3)
    print(f"floor: len(table)        {floor:12,.0f} calls/s   {1e9 / floor:8.0f} ns per call")
    for name, exact, expect in (("exact", True, "exact"), ("nearest", False, "nearest")):
        qs = queries(exact)
        py = lookups_per_second(table, qs, a.seconds, expect)
        line = f"python: lookup {name:8s} {py:12,.0f} lookups/s {1e9 / py:8.0f} ns per lookup"
        ns = cxx.get("BM_Lookup" + name.capitalize())
        if ns:
            line += f"   (C++ {1e9 / ns:12,.0f} lookups/s {ns:6.0f} ns)"
        print(line)
        th = threaded_lookups_per_second(table, qs, a.seconds / 3, a.threads)
        print(f"python: lookup {name:8s} {th:12,.0f} lookups/s in total from {a.threads} threads")


if __name__ == "__main__":
    main()
