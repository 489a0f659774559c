#!/usr/bin/env python3
"""What the Python layer adds to each apply: 10^4 calls of `plan(x, y)` on a small matrix against
10^4 calls of the extension's apply with the same addresses (the C++ `apply`, reached through one
nanobind call: no array inspection, no checks).

    python3 bench/python_overhead.py [--calls 10000] [--repeats 11]
        [--method cusparse,dasp] [--library cupy,torch] [--device cuda|cpu]

Every combination of --method and --library (comma-separated lists) prints one JSON line. The two
loops run in turns, `repeats` times, each synchronised once at the end; the matrix is small enough
(64 x 64 stencil, 4 k rows) that the host, not the GPU, bounds the loop. Per call, in
microseconds: python_call_us and extension_apply_us (medians over the repeats),
python_overhead_us (the median of the differences of the loops run in the same turn),
python_overhead_min_us (the difference of the fastest of each), and checked_call_us, a call that
takes every check (the first call of a plan, or one whose arrays differ from the last call's).
Needs a GPU and CuPy and/or PyTorch; --device cpu measures a CPU plan instead (the reference on
an 8 x 8 stencil, 64 rows) with NumPy or torch CPU arrays, without a GPU.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

import tcsparse


def loop_us(call, calls, synchronize):
    """Wall time of `calls` calls, synchronised at the end, per call in microseconds."""
    start = time.perf_counter()
    for _ in range(calls):
        call()
    synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def arrays(library, device, size):
    """(x, y, address of an array, synchronize) in `library` on `device`."""
    x_host = np.ones(size)
    if library == "cupy":
        import cupy
        stream = cupy.cuda.get_current_stream()
        return (cupy.asarray(x_host), cupy.zeros(size), lambda a: a.data.ptr,
                stream.synchronize)
    if library == "torch":
        import torch
        x = torch.from_numpy(x_host).to(device)
        y = torch.zeros(size, dtype=torch.float64, device=device)
        synchronize = torch.cuda.current_stream().synchronize if device == "cuda" else lambda: None
        return x, y, lambda a: a.data_ptr(), synchronize
    return x_host, np.zeros(size), lambda a: a.__array_interface__["data"][0], lambda: None


def measure(A, method, library, device, calls, repeats):
    plan = tcsparse.SpmvPlan(A, method=method if device == "cuda" else "auto",
                             precision="fp64", device=device)
    x, y, address, synchronize = arrays(library, device, A.shape[0])
    if device == "cuda" and library == "cupy":
        import cupy
        stream_handle = cupy.cuda.get_current_stream().ptr
    elif device == "cuda":
        import torch
        stream_handle = torch.cuda.current_stream().cuda_stream
    else:
        stream_handle = 0
    core = plan._plan  # the extension's plan object: apply(x, y, alpha, beta, stream)
    x_address, y_address = address(x), address(y)

    def python_call():
        plan(x, y)

    def extension_apply():
        core.apply(x_address, y_address, 1.0, 0.0, stream_handle)

    def checked_call():
        plan._checked_apply(x, y, 1.0, 0.0, None)

    for call in (python_call, extension_apply, checked_call):  # warm-up
        for _ in range(100):
            call()
    synchronize()
    python, extension, checked = [], [], []
    for _ in range(repeats):
        python.append(loop_us(python_call, calls, synchronize))
        extension.append(loop_us(extension_apply, calls, synchronize))
    for _ in range(max(1, repeats // 4)):
        checked.append(loop_us(checked_call, max(1, calls // 4), synchronize))
    return {
        "method": plan.method, "library": library, "device": plan.device, "calls": calls,
        "repeats": repeats, "rows": A.shape[0], "nnz": A.nnz,
        "python_call_us": round(statistics.median(python), 3),
        "extension_apply_us": round(statistics.median(extension), 3),
        "python_overhead_us": round(statistics.median(p - e for p, e in zip(python, extension)), 3),
        "python_overhead_min_us": round(min(python) - min(extension), 3),
        "checked_call_us": round(statistics.median(checked), 3),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--method", default="cusparse,dasp",
                        help="comma-separated methods (device cuda; a CPU plan is the reference)")
    parser.add_argument("--library", default="cupy,torch",
                        help="comma-separated: cupy, torch (numpy with --device cpu)")
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    args = parser.parse_args(argv)
    if args.device == "cuda" and not tcsparse.cuda_available():
        print("no CUDA GPU (--device cpu measures a CPU plan)", file=sys.stderr)
        return 2
    methods = args.method.split(",") if args.device == "cuda" else ["reference"]
    side = 64 if args.device == "cuda" else 8
    A = tcsparse.generate("stencil2d", nx=side, ny=side, seed=1)
    for library in args.library.split(","):
        for method in methods:
            print(json.dumps(measure(A, method, library, args.device, args.calls, args.repeats)),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
