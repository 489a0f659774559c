#!/usr/bin/env python3
"""What the Python layer adds to each apply: 10^4 calls of `plan(x, y)` on a small matrix against
10^4 calls of the extension's apply with the same addresses (the C++ `apply`, reached through one
nanobind call: no array inspection, no checks).

    python3 bench/python_overhead.py [--calls 10000] [--repeats 11]
        [--batch 256] [--method cusparse,dasp] [--library cupy,torch] [--device cuda|cpu]

Every combination of --method and --library (comma-separated lists) prints one JSON line. What is
timed is the host's time a call: the calls are issued in batches of --batch (256, well below the
depth of a CUDA stream's launch queue) and the stream is synchronised after each batch outside
the timing, so a GPU that runs the small kernels (64 x 64 stencil, 4 k rows) slower than the host
issues them never blocks a timed call (a loop synchronised only at its end measures the GPU's
time whenever the GPU is the slower one, and the difference of two such loops is noise). A batch
of plan(x, y) and a batch of the extension's apply run in turns, `repeats` x calls / batch pairs,
so that each difference is taken between neighbours in time (the host's speed drifts by tens of
per cent from process to process on a shared machine). Per call, in microseconds:
python_call_us and extension_apply_us (medians over the batches), python_overhead_us (the median
of the pairs' differences), python_overhead_min_us (the difference of the fastest batch of each),
and checked_call_us, a call that
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


BATCH = 256


def paired_batches_us(first, second, calls, synchronize, batch):
    """The host's time a call of `first` and of `second` (lists, one entry a batch): batches of
    each in turns, each synchronised after it outside the timing."""
    times = ([], [])
    synchronize()
    for done in range(0, calls, batch):
        count = min(batch, calls - done)
        for call, kept in zip((first, second), times):
            start = time.perf_counter()
            for _ in range(count):
                call()
            kept.append((time.perf_counter() - start) / count * 1e6)
            synchronize()
    return times


def loop_us(call, calls, synchronize, batch):
    """The host's time of `calls` calls, per call in microseconds: calls issued in batches of
    `batch`, the stream synchronised between batches outside the timing (module docstring)."""
    elapsed, done = 0.0, 0
    synchronize()
    while done < calls:
        count = min(batch, calls - done)
        start = time.perf_counter()
        for _ in range(count):
            call()
        elapsed += time.perf_counter() - start
        synchronize()
        done += count
    return elapsed / calls * 1e6


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


def measure(A, method, library, device, calls, repeats, batch):
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
        python_batches, extension_batches = paired_batches_us(python_call, extension_apply, calls,
                                                              synchronize, batch)
        python += python_batches
        extension += extension_batches
    for _ in range(max(1, repeats // 4)):
        checked.append(loop_us(checked_call, max(1, calls // 4), synchronize, batch))
    return {
        "method": plan.method, "library": library, "device": plan.device, "calls": calls,
        "batch": batch,
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
    parser.add_argument("--batch", type=int, default=BATCH,
                        help="calls between two synchronisations (untimed)")
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
            print(json.dumps(measure(A, method, library, args.device, args.calls, args.repeats,
                                     args.batch)),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
