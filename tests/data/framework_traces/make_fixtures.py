#!/usr/bin/env python3
"""Writes the framework trace fixtures of this folder (README.md says what
each one is and where its names come from). Deterministic: running it again
gives the same files. usage: make_fixtures.py [OUT_DIR] (default: its own)
"""
import json
import os
import sys

# Names as the frameworks' sources give them and Kineto demangles them
# (README.md lists the source files and revisions).
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
GEMM_WGRAD = "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN"
UB_SEND = "kuserbuffers_pushsend(int*, int*, int4*, int4*, int)"
UB_RECV = "kuserbuffers_pushrecv(int, int, int*, int*, int4*, int4*, int, unsigned long)"
UB_RS_OOP = "void userbuffers_fp16_sum_inplace_gpu_rr_rs_oop<4>(int, int, int, int, int, int, int, void**, int, void*, int, int, unsigned long)"
UB_RS = "void userbuffers_fp16_sum_inplace_gpu_rr_rs<4>(int, int, int, int, int, int, void**, int, int, unsigned long)"
UB_AG = "void userbuffers_fp16_sum_inplace_gpu_rw_ag<4>(int, int, int, int, int, int, void**, int, int, unsigned long)"
SYMM_BARRIER = "c10d::symmetric_memory::barrier_kernel(unsigned int**, int, int, int, unsigned long)"
REDUCE_PARTIALS = "reduce_partials_first_dim_kernel"
NCCL_AG = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
NCCL_RS = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
DTOD = "Memcpy DtoD (Device -> Device)"

COMPUTE, COMPUTE2, SEND, RECV, UB_COMM, BACKEND, NCCL = 7, 20, 24, 28, 21, 30, 13
CHUNKS = 4
WORLD = 2
RING_STEPS = WORLD  # TE's ring_exchange: one GEMM chunk per rank of the TP group


def span(events):
    """The first start and last end of `events` (µs)."""
    return (min(e[2] for e in events), max(e[2] + e[3] for e in events))


def k(stream, start, dur, name):
    return ("kernel", stream, start, dur, name)


def copy(stream, start, dur):
    return ("memcpy", stream, start, dur, DTOD)


def te_ring_exchange(fired):
    """TE ring_exchange all-gather (qkv_fprop; CommOverlapP2P, use_ce): one
    GEMM chunk a step (TP size steps) on the compute streams; each step's send (a flag kernel
    and a copy-engine copy on the send stream) and receive (a flag wait on the
    receive stream) run beside the chunk. Not fired: each transfer runs
    between two chunks."""
    ev, t = [], 0.0
    for s in range(RING_STEPS):
        stream = COMPUTE if s % 2 == 0 else COMPUTE2
        if fired or s == RING_STEPS - 1:
            ev.append(k(stream, t, 100, GEMM))
            if s < RING_STEPS - 1:
                ev += [k(SEND, t + 1, 1, UB_SEND), copy(SEND, t + 2, 60), k(RECV, t + 1, 62, UB_RECV)]
            t += 100
        else:
            ev.append(k(stream, t, 100, GEMM))
            ev += [k(SEND, t + 100, 1, UB_SEND), copy(SEND, t + 101, 60), k(RECV, t + 100, 62, UB_RECV)]
            t += 162
    return ev, [], [("transformer_engine._Linear.forward.qkv.gemm",) + span(ev)]


def te_pipeline_rs(fired):
    """TE pipeline reduce-scatter (proj_fprop; CommOverlapBase
    split_overlap_rs, num_splits 4): chunk i's GEMM on compute stream i % 2,
    then its reduce-scatter kernel on the comm stream beside chunk i+1 (the
    last one is the pipeline's tail). Not fired: every reduce-scatter after
    the last chunk."""
    ev = []
    for i in range(CHUNKS):
        ev.append(k(COMPUTE if i % 2 == 0 else COMPUTE2, 100 * i, 100, GEMM))
        start = 100 * i + 100 if fired else 100 * CHUNKS + 70 * i
        ev.append(k(UB_COMM, start, 70, UB_RS_OOP))
    return ev, [], [("transformer_engine._Linear.forward.proj.gemm",) + span(ev)]


def te_bulk(fired):
    """TE bulk overlap (qkv_dgrad + qkv_wgrad; CommOverlapBase bulk_overlap):
    the dgrad GEMM runs beside the all-gather of X for the wgrad, the wgrad
    GEMM beside the dgrad's reduce-scatter, each collective one kernel on the
    comm stream. Not fired: each collective before (after) its GEMM."""
    if fired:
        ev = [k(COMPUTE, 0, 300, GEMM), k(UB_COMM, 5, 200, UB_AG),
              k(COMPUTE, 300, 300, GEMM_WGRAD), k(UB_COMM, 305, 200, UB_RS)]
        split = 300
    else:
        ev = [k(UB_COMM, 0, 200, UB_AG), k(COMPUTE, 200, 300, GEMM),
              k(COMPUTE, 500, 300, GEMM_WGRAD), k(UB_COMM, 800, 200, UB_RS)]
        split = 500
    end = span(ev)[1]
    return ev, [], [("transformer_engine._LayerNormLinear.backward.qkv.dgrad_gemm", 0, split),
                    ("transformer_engine._LayerNormLinear.backward.qkv.wgrad_gemm", split, end)]


def async_tp_ag_matmul(fired):
    """PyTorch async-TP all-gather + matmul (symm_mem::fused_all_gather_matmul,
    _pipelined_all_gather_and_consume): a barrier, then the local shard's
    GEMM while the next shard is copied (copy engine, the backend stream) from
    a peer's symmetric buffer; each shard's GEMM after its copy. Not fired:
    every copy before the first GEMM."""
    ev = [k(BACKEND, 0, 2, SYMM_BARRIER)]
    if fired:
        for s in range(CHUNKS):
            ev.append(k(COMPUTE, 3 + 100 * s, 100, GEMM))
            if s < CHUNKS - 1:
                ev.append(copy(BACKEND, 4 + 100 * s, 50))
        end = 3 + 100 * CHUNKS
    else:
        for s in range(CHUNKS - 1):
            ev.append(copy(BACKEND, 3 + 50 * s, 50))
        base = 3 + 50 * (CHUNKS - 1)
        for s in range(CHUNKS):
            ev.append(k(COMPUTE, base + 100 * s, 100, GEMM))
        end = base + 100 * CHUNKS
    ev.append(k(BACKEND, end, 2, SYMM_BARRIER))
    return ev, [("fused_all_gather_matmul", 0, end + 2)], []


def async_tp_matmul_rs(fired):
    """PyTorch async-TP matmul + reduce-scatter (symm_mem::
    fused_matmul_reduce_scatter, _pipelined_produce_and_all2all): each peer's
    chunk GEMM, then its product copied to the peer's symmetric buffer
    (backend stream) beside the next GEMM; the partials summed at the end.
    Not fired: every copy after the last GEMM."""
    ev = [k(BACKEND, 0, 2, SYMM_BARRIER)]
    for s in range(CHUNKS):
        ev.append(k(COMPUTE, 3 + 100 * s, 100, GEMM))
        ev.append(copy(BACKEND, (103 + 100 * s) if fired else (3 + 100 * CHUNKS + 50 * s), 50))
    end = 3 + 100 * CHUNKS + (50 if fired else 50 * CHUNKS)
    ev.append(k(BACKEND, end, 2, SYMM_BARRIER))
    ev.append(k(COMPUTE, end + 2, 30, REDUCE_PARTIALS))
    return ev, [("fused_matmul_reduce_scatter", 0, end + 32)], []


def nccl(fired):
    """NCCL beside the GEMMs. Fired: a GEMM cut in four chunks whose
    all-gathers run on NCCL's stream beside the chunks (as Braid's own
    `chunked` and hand-written pipelines do). Not fired: one GEMM, then its
    reduce-scatter (Megatron without --tp-comm-overlap)."""
    if fired:
        ev = [k(NCCL, 0, 60, NCCL_AG)]
        for s in range(CHUNKS):
            ev.append(k(COMPUTE, 60 + 100 * s, 100, GEMM))
            if s < CHUNKS - 1:
                ev.append(k(NCCL, 62 + 100 * s, 60, NCCL_AG))
        end = 60 + 100 * CHUNKS
    else:
        ev = [k(COMPUTE, 0, 300, GEMM), k(NCCL, 300, 150, NCCL_RS)]
        end = 450
    # Megatron-LM's NVTX range around the linear (nsys): an all-gather feeds
    # a column-parallel qkv, a reduce-scatter follows a row-parallel fc2.
    label = "megatron.core.transformer.attention.forward.qkv" if fired else \
        "megatron.core.transformer.mlp.forward.linear_fc2"
    return ev, [], [(label, 0, end)]


SCENARIOS = {
    "te_ring_exchange": te_ring_exchange,
    "te_pipeline": te_pipeline_rs,
    "te_bulk": te_bulk,
    "async_tp_ag_matmul": async_tp_ag_matmul,
    "async_tp_matmul_rs": async_tp_matmul_rs,
    "nccl": nccl,
}

T0 = 1_000_000.0  # µs: the step's start in the trace's clock

# The PyTorch op (Kineto cpu_op, record_shapes=True) around each scenario's
# launches, with its Input Dims: one rank's GEMMs of a llama3-8b block at
# TP 2, seq 1024, batch 1 (qkv: 1024 x 3072 x 4096 from a 512-row shard;
# out_proj: 1024 x 4096 x 2048; fc2: 1024 x 4096 x 7168). TE launches its
# GEMMs outside PyTorch's ops: its scenarios have none.
AG_MATMUL = ("symm_mem::fused_all_gather_matmul", [[512, 4096], [[4096, 3072]], [], []])
MATMUL_RS = ("symm_mem::fused_matmul_reduce_scatter", [[1024, 2048], [2048, 4096], [], [], []])
CPU_OPS = {
    "async_tp_ag_matmul": AG_MATMUL,
    "async_tp_ag_matmul_not_fired": AG_MATMUL,
    "async_tp_matmul_rs": MATMUL_RS,
    "async_tp_matmul_rs_not_fired": MATMUL_RS,
    "nccl_not_fired": ("aten::mm", [[1024, 7168], [7168, 4096]]),
}


def kineto(events, gpu_ranges, cpu_op, rank, world, skew):
    """One rank's Kineto trace: a ProfilerStep range, the PyTorch op around
    the launches (when the scenario has one), a cudaLaunchKernel
    (cudaMemcpyAsync) per GPU event with its correlation id, the GPU events,
    and record_function ranges on the GPU timeline (gpu_user_annotation)."""
    out, corr = [], 100
    end = max(s + d for _, _, s, d, _ in events)
    out.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
                "ts": T0 - 50 + skew, "dur": end + 100})
    if cpu_op:
        name, dims = cpu_op
        out.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": T0 - 10 + skew,
                    "dur": end + 2, "args": {"External id": 7, "Sequence number": 42, "Fwd thread id": 0,
                                             "Record function id": 0, "Input Dims": dims,
                                             "Input type": ["c10::BFloat16"] * 2 + [""] * (len(dims) - 2)}})
    for kind, stream, start, dur, name in sorted(events, key=lambda e: e[2]):
        ts = T0 + start + skew
        out.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel" if kind == "kernel"
                    else "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": ts - 8, "dur": 4,
                    "args": {"correlation": corr}})
        ev = {"ph": "X", "cat": "kernel" if kind == "kernel" else "gpu_memcpy", "name": name, "pid": rank,
              "tid": stream, "ts": ts, "dur": dur,
              "args": {"device": rank, "stream": stream, "correlation": corr}}
        if kind == "memcpy":
            ev["args"]["bytes"] = 4 << 20
        out.append(ev)
        corr += 1
    for name, start, stop in gpu_ranges:
        out.append({"ph": "X", "cat": "gpu_user_annotation", "name": name, "pid": rank, "tid": COMPUTE,
                    "ts": T0 + start + skew, "dur": stop - start, "args": {"External id": 1}})
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world},
            "traceEvents": out}


def nsys_sql(events, host_ranges, world):
    """The same step as an Nsight Systems export (the tables Braid reads):
    one process per rank (device = rank), kernels with demangled and short
    names, memcpys (copyKind 8: DtoD), the launch calls and NVTX ranges on
    the host (TE's NVTE_NVTX_ENABLED ranges) around them."""
    strings, rows = {}, {"k": [], "m": [], "r": [], "n": []}

    def sid(s):
        if s not in strings:
            strings[s] = len(strings) + 1
        return strings[s]

    corr = 100
    for rank in range(world):
        pid = (100 + rank) << 24
        tid = pid + 1
        skew = 3000 * rank
        for kind, stream, start, dur, name in sorted(events, key=lambda e: e[2]):
            s = int(T0 * 1000 + start * 1000) + skew
            e = s + int(dur * 1000)
            rows["r"].append(f"({s - 8000}, {s - 4000}, {tid}, {corr}, "
                             f"{sid('cudaLaunchKernel' if kind == 'kernel' else 'cudaMemcpyAsync')})")
            if kind == "kernel":
                short = name.split("(")[0].split("<")[0].replace("void ", "").split("::")[-1]
                rows["k"].append(f"({s}, {e}, {rank}, 1, {stream}, {corr}, {pid}, {sid(name)}, {sid(short)})")
            else:
                rows["m"].append(f"({s}, {e}, {rank}, {stream}, {corr}, {pid}, {4 << 20}, 8, 2, 2)")
            corr += 1
        end = max(s + d for _, _, s, d, _ in events)
        for name, start, stop in host_ranges:
            # Host ranges hold the launch calls (8 µs ahead of their GPU
            # events) of the GPU events in [start, stop).
            rows["n"].append(f"({int((T0 + start - 10) * 1000) + skew}, {int((T0 + stop - 10) * 1000) + skew}, 59, "
                             f"NULL, {tid}, {sid(name)})")
        rows["n"].append(f"({int((T0 - 60) * 1000) + skew}, {int((T0 + end + 60) * 1000) + skew}, 59, NULL, "
                         f"{tid}, {sid('ProfilerStep#1')})")
    quoted = ", ".join("({}, '{}')".format(i, s.replace("'", "''")) for s, i in strings.items())
    sql = [
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);",
        f"INSERT INTO StringIds VALUES {quoted};",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER "
        "NOT NULL, contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
        "demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);",
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES " + ", ".join(rows["k"]) + ";",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER, "
        "correlationId INTEGER, nameId INTEGER NOT NULL);",
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES " + ", ".join(rows["r"]) + ";",
        "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT, "
        "globalTid INTEGER, textId INTEGER);",
        "INSERT INTO NVTX_EVENTS VALUES " + ", ".join(rows["n"]) + ";",
    ]
    if rows["m"]:
        sql += ["CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId "
                "INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER "
                "NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);",
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES " + ", ".join(rows["m"]) + ";"]
    return "\n".join(sql) + "\n"


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    world = WORLD
    for name, make in SCENARIOS.items():
        for fired in (True, False):
            events, gpu_ranges, host_ranges = make(fired)
            case = name + ("" if fired else "_not_fired")
            folder = os.path.join(out_dir, "kineto", case)
            os.makedirs(folder, exist_ok=True)
            for rank in range(world):
                trace = kineto(events, gpu_ranges, CPU_OPS.get(case), rank, world, 3.0 * rank)
                with open(os.path.join(folder, f"rank{rank}.json"), "w") as f:
                    # One event a line: small, and a diff reads event by event.
                    head = {k: v for k, v in trace.items() if k != "traceEvents"}
                    f.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
                    f.write(",\n".join(json.dumps(e) for e in trace["traceEvents"]))
                    f.write("\n]}\n")
            os.makedirs(os.path.join(out_dir, "nsys"), exist_ok=True)
            with open(os.path.join(out_dir, "nsys", case + ".sql"), "w") as f:
                f.write(nsys_sql(events, host_ranges, world))


if __name__ == "__main__":
    main()
