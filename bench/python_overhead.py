#!/usr/bin/env python3
"""What the Python layer adds to each apply: 10^4 calls of `plan(x, y)` on a small matrix against
10^4 calls of the extension's apply with the same device addresses (the C++ `apply`, reached
through one nanobind call: no array inspection, no checks).

    python3 bench/python_overhead.py [--calls 10000] [--method cusparse] [--library cupy|torch]

Both loops enqueue on the same stream and synchronise once at the end; the matrix is small
enough (64 x 64 stencil, 4 k rows) that the host, not the GPU, bounds the loop. Prints
microseconds per call of each loop and their difference, the Python overhead. Needs a GPU and
CuPy (or PyTorch with --library torch).
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

import tcsparse


def per_call_us(call, calls, synchronize, repeats=5):
    """Median over `repeats` of the wall time of `calls` calls, synchronised at the end."""
    for _ in range(100):
        call()
    synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        synchronize()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--method", default="cusparse")
    parser.add_argument("--library", choices=["cupy", "torch"], default="cupy")
    args = parser.parse_args(argv)
    if not tcsparse.cuda_available():
        print("no CUDA GPU", file=sys.stderr)
        return 2

    A = tcsparse.generate("stencil2d", nx=64, ny=64, seed=1)
    plan = tcsparse.SpmvPlan(A, method=args.method, precision="fp64")
    x_host = np.ones(A.shape[1])
    if args.library == "cupy":
        import cupy
        x, y = cupy.asarray(x_host), cupy.zeros(A.shape[0])
        stream = cupy.cuda.get_current_stream()
        address = lambda a: a.data.ptr  # noqa: E731
        stream_handle, synchronize = stream.ptr, stream.synchronize
    else:
        import torch
        x, y = torch.from_numpy(x_host).cuda(), torch.zeros(A.shape[0], device="cuda",
                                                            dtype=torch.float64)
        stream = torch.cuda.current_stream()
        address = lambda a: a.data_ptr()  # noqa: E731
        stream_handle, synchronize = stream.cuda_stream, stream.synchronize

    core = plan._plan  # the extension's plan object: apply(x, y, alpha, beta, stream)
    x_address, y_address = address(x), address(y)
    python_us = per_call_us(lambda: plan(x, y), args.calls, synchronize)
    extension_us = per_call_us(lambda: core.apply(x_address, y_address, 1.0, 0.0, stream_handle),
                               args.calls, synchronize)
    print(json.dumps({
        "method": plan.method, "library": args.library, "calls": args.calls,
        "rows": A.shape[0], "nnz": A.nnz,
        "python_call_us": round(python_us, 3), "extension_apply_us": round(extension_us, 3),
        "python_overhead_us": round(python_us - extension_us, 3),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
