#!/usr/bin/env python3
"""Writes small valid seed inputs for the importer fuzzers.

usage: make_seeds.py KINETO_DIR NSYS_DIR [SHARED_TRACES_DIR]

Kineto seeds: hand-written traces (float and integer timestamps, steps,
runtime calls, memcpys, distributedInfo), each also gzipped, plus the first
events of the shared real traces when present. nsys seeds: tiny SQLite
exports with the tables the importer reads (512-byte pages keep them small).
"""
import gzip
import json
import os
import sqlite3
import sys


def kineto_seeds():
    def kernel(name, ts, dur, stream, corr, cat="kernel", **args):
        a = {"device": 0, "stream": stream, "correlation": corr}
        a.update(args)
        return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur, "args": a}

    def runtime(name, ts, corr):
        return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": 1.5,
                "args": {"correlation": corr, "cbid": 211}}

    def step(n, ts):
        return {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": 1, "tid": 1,
                "ts": ts, "dur": 50.0}

    two_steps = {
        "schemaVersion": 1,
        "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2},
        "traceEvents": [
            step(1, 100.0), step(2, 150.0),
            runtime("cudaLaunchKernel", 101.2, 1), runtime("cudaLaunchKernel", 102.5, 2),
            runtime("cudaMemcpyAsync", 103.0, 3), runtime("cudaLaunchKernel", 151.0, 4),
            kernel("void gemm_kernel()", 110.4, 20.2, 7, 1),
            kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 120.5, 15.0, 20, 2),
            kernel("Memcpy HtoD (Pinned -> Device)", 140.0, 5.0, 7, 3, cat="gpu_memcpy", bytes=4096),
            kernel("void late_kernel()", 160.0, 30.0, 7, 4),
            {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 101.2, "cat": "ac2g", "name": "ac2g"},
            {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python"}},
        ],
    }
    ints = {"traceEvents": [
        kernel("void k()", 1000, 10, 7, 1),
        kernel("Stream Wait Event", 1020, 10, 7, 2),
        kernel("Memset (Device)", 1005, 2, 8, 3, cat="gpu_memset", bytes=64),
        {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "ts": 1030, "dur": 1, "args": {"stream": 7}},
    ]}
    return {"two_steps.json": json.dumps(two_steps, indent=1), "ints.json": json.dumps(ints)}


def real_heads(shared, out):
    """The first 40 events of each shared Kineto trace, as a valid trace."""
    kdir = os.path.join(shared, "kineto")
    if not os.path.isdir(kdir):
        return
    for name in sorted(os.listdir(kdir)):
        if not name.endswith(".json.gz"):
            continue
        with gzip.open(os.path.join(kdir, name)) as f:
            doc = json.load(f)
        events = doc["traceEvents"]
        pick = [e for e in events if e.get("cat") in ("kernel", "cuda_runtime", "gpu_memcpy")][:30]
        pick += [e for e in events if str(e.get("name", "")).startswith("ProfilerStep")][:3]
        small = {"distributedInfo": doc.get("distributedInfo", {}), "traceEvents": pick}
        out["head_" + name[:-3]] = json.dumps(small)


NSYS_SCHEMA = """
PRAGMA page_size = 512;
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);
"""

NSYS_OPTIONAL = """
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  value INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  text TEXT, globalTid INTEGER, textId INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT);
CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL, vmId INTEGER NOT NULL,
  processId INTEGER NOT NULL, contextId INTEGER NOT NULL, priority INTEGER NOT NULL, flag INTEGER NOT NULL);
"""


def nsys_seed(path, full):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript(NSYS_SCHEMA + (NSYS_OPTIONAL if full else ""))
    pid = 100 << 24
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [
        (1, "void gemm_kernel<128>(float*)"), (2, "gemm_kernel"), (3, "ncclDevKernel_SendRecv(ncclDevComm*)"),
        (4, "ncclDevKernel_SendRecv"), (5, "cudaLaunchKernel"), (6, "ProfilerStep#1")])
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?)", [
        (0, 100, 0, 7, 11, pid, 1, 2), (50, 150, 0, 13, 12, pid, 3, 4), (10, 20, 1, 7, 21, pid, 1, 2)])
    if full:
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (200, 300, 0, 1, 7, 13, ?, 4096, 1, 1, 2)", (pid,))
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (310, 320, 0, 1, 7, 14, ?, 0, 64, 2)", (pid,))
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, 5, 0)", [
            (-20, -10, pid + 1, 11), (-5, -1, pid + 1, 21)])
        db.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, ?, NULL, ?, ?, ?)", [
            (-30, 400, 59, None, pid + 1, 6), (-25, None, 34, "mark", pid + 1, None)])
        db.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H100')")
        db.execute("INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (13, 0, 0, 100, 1, 4294967295, 2)")
    db.commit()
    db.close()


def main():
    kdir, ndir = sys.argv[1], sys.argv[2]
    os.makedirs(kdir, exist_ok=True)
    os.makedirs(ndir, exist_ok=True)
    seeds = kineto_seeds()
    if len(sys.argv) > 3:
        real_heads(sys.argv[3], seeds)
    for name, text in seeds.items():
        with open(os.path.join(kdir, name), "w") as f:
            f.write(text)
        with open(os.path.join(kdir, name + ".gz"), "wb") as f:
            f.write(gzip.compress(text.encode()))
    nsys_seed(os.path.join(ndir, "full.sqlite"), True)
    nsys_seed(os.path.join(ndir, "minimal.sqlite"), False)


if __name__ == "__main__":
    main()
