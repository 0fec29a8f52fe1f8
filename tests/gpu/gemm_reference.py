#!/usr/bin/env python3
"""PyTorch's time for GEMM shapes, bf16 and FP8 (E4M3, per-tensor scales),
on the whole GPU: the reference a braid cuda run's GEMM events are held
against when they look slow (tests/gpu/train_probe.sh).

    gemm_reference.py M,N,K [M,N,K ...]

One line per shape and dtype: microseconds per GEMM and TFLOP/s. The GEMMs
are captured 20 at a time in a CUDA graph and the graph replayed between two
CUDA events (the median of 30 replays after warm-up): launched from Python,
even 20 back to back, an H200 measured Python's 17 to 29 us per launch for
any shape up to 2048 x 2048 x 1024, not the GPU's time. FP8 goes through torch._scaled_mm,
cuBLASLt's FP8 matmul with B column-major (the "TN" layout braid uses too).
"""
import statistics
import sys

import torch


def median_us(fn, warmup=3, reps=30, launches=20):
    fn()  # cuBLASLt's workspace and kernel load, outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(launches):
            fn()
    for _ in range(warmup):
        graph.replay()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        graph.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1000.0 / launches)
    return statistics.median(times)


def main(argv):
    if not argv:
        print(__doc__.strip())
        return 2
    torch.manual_seed(0)
    one = torch.ones((), device="cuda", dtype=torch.float32)
    print(f"{'m':>6} {'n':>6} {'k':>6} {'dtype':>9} {'us':>9} {'TFLOP/s':>8}")
    for arg in argv:
        m, n, k = (int(x) for x in arg.split(","))
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * m * n * k
        us = median_us(lambda: torch.matmul(a, b))
        print(f"{m:6d} {n:6d} {k:6d} {'bf16':>9} {us:9.1f} {flops / us / 1e6:8.1f}")
        a8 = a.to(torch.float8_e4m3fn)
        b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()  # column-major k x n
        try:
            us = median_us(lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
            print(f"{m:6d} {n:6d} {k:6d} {'fp8_e4m3':>9} {us:9.1f} {flops / us / 1e6:8.1f}")
        except RuntimeError as e:  # a shape FP8 cannot take: say so, go on
            print(f"{m:6d} {n:6d} {k:6d} {'fp8_e4m3':>9} failed: {str(e).splitlines()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
