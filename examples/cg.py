#!/usr/bin/env python3
"""Conjugate gradient on the GPU with a tcsparse SpMV plan and CuPy arrays, compared with a
tcsparse plan of method "cusparse" and with cupyx.scipy.sparse.linalg.cg on the same matrix.

    python examples/cg.py MATRIX [--precision fp64|fp32] [--tol 1e-8] [--max-iter 2000]
                          [--method auto] [--check-every 10] [--repeats 3] [--no-graph]

MATRIX: a Matrix Market / .smtx file of a symmetric positive definite matrix (e.g. a SuiteSparse
SPD matrix) or poisson3d:N (the 7-point 3D Laplacian on an N x N x N grid). b = A @ ones, so the
exact solution is all ones; x starts at zero.

Printed for each solver: iterations, final relative residual ||b - A x|| / ||b|| (recomputed),
build time (tcsparse: the plan; cupyx: uploading the CSR matrix), time per iteration (CUDA events
around whole solves, median of --repeats after a warm-up solve), and the break-even iteration
counts: (build - build_other) / (per_iteration_other - per_iteration).

Our loop keeps CG's scalars on the GPU and reads the residual history back every --check-every
iterations; the iterations of each such interval run as one launch of a CUDA graph captured once
(the loop launches ~8 small kernels an iteration, and launching them from Python costs more than
they run on a large GPU), or with --no-graph one kernel launch at a time. cupyx's cg checks the
residual norm on the host after every iteration (a synchronisation per iteration) and calls A @ p
through cuSPARSE without a persistent plan.

Exit codes: 0 converged, 1 error or no convergence, 2 no CuPy or no GPU.
"""
import argparse
import inspect
import math
import sys
import time

EXIT_NO_DEVICE = 2


class ArgumentParser(argparse.ArgumentParser):
    """Exit code 1 for bad arguments (argparse's own 2 means "no GPU" here)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def parse_arguments(argv):
    parser = ArgumentParser(prog="cg.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("matrix", help="an SPD matrix file (.mtx, .mtx.gz, .smtx) or poisson3d:N")
    parser.add_argument("--precision", choices=["fp64", "fp32"], default="fp64")
    parser.add_argument("--tol", type=float, default=1e-8, help="relative residual (default 1e-8)")
    parser.add_argument("--max-iter", type=int, default=2000)
    parser.add_argument("--method", default="auto", help="a tcsparse method (default auto)")
    parser.add_argument("--check-every", type=int, default=10,
                        help="read the residual back every N iterations (default 10)")
    parser.add_argument("--no-graph", action="store_true",
                        help="launch every kernel from Python instead of one CUDA graph launch "
                             "per check interval")
    parser.add_argument("--repeats", type=int, default=3, help="timed solves (default 3)")
    args = parser.parse_args(argv)
    if not 0.0 <= args.tol <= 1.0:
        parser.error(f"--tol {args.tol}: expected a number in [0, 1]")
    for name in ("max_iter", "check_every", "repeats"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    return args


def require_gpu():
    """Imports CuPy and tcsparse; exits 2 with a clear message without CuPy or a GPU."""
    try:
        import cupy
        import cupyx.scipy.sparse
        import cupyx.scipy.sparse.linalg  # noqa: F401
    except ImportError as error:
        print(f"cg.py: needs CuPy and an NVIDIA GPU; CuPy is not importable ({error}). "
              "Install it with e.g. pip install cupy-cuda12x", file=sys.stderr)
        sys.exit(EXIT_NO_DEVICE)
    try:
        devices = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError as error:
        devices, reason = 0, str(error)
    else:
        reason = "the CUDA runtime reports 0 devices"
    if devices == 0:
        print(f"cg.py: no CUDA device found ({reason}): this example needs an NVIDIA GPU",
              file=sys.stderr)
        sys.exit(EXIT_NO_DEVICE)
    try:
        import tcsparse
    except ImportError as error:
        print(f"cg.py: the tcsparse package is not importable ({error}); install it with "
              "pip install . in the repository", file=sys.stderr)
        sys.exit(1)
    return cupy, tcsparse


def load(tcsparse, source):
    prefix = "poisson3d:"
    if source.startswith(prefix):
        size = source[len(prefix):]
        if not size.isdigit() or int(size) < 1:
            raise ValueError(f"'{source}': expected poisson3d:N with N >= 1 (grid N^3)")
        n = int(size)
        return tcsparse.poisson_3d(n, n, n)
    return tcsparse.read_matrix(source)


def require_symmetric(A):
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"the matrix is {A.shape[0]} x {A.shape[1]}: CG needs a square SPD matrix")
    if (A != A.T).nnz != 0:
        raise ValueError("the matrix is not symmetric: CG needs a symmetric positive definite "
                         "matrix")
    if A.shape[0] == 0:
        raise ValueError("the matrix is empty: nothing to solve")


# Vectors are allocated in chunks of this many values (zeros past n), so that a dot product is
# a reduction along the rows of a (chunks, kDotChunk) view: one partial sum a chunk, many
# blocks at once, then a sum of the partials. (CuPy runs a ReductionKernel down to a single value
# in one thread block: on 10^6 values that took ~0.4 ms, more than the SpMV.)
kDotChunk = 4096


class Kernels:
    """CG's small kernels. Dot products accumulate in double (also for fp32 vectors). Every output
    is passed in (the ReductionKernels' out=, the ElementwiseKernels' output arguments): nothing
    allocates device memory, so the calls can be captured in a CUDA graph."""

    def __init__(self, cp):
        self.chunk_dots = cp.ReductionKernel(
            "T u, T v", "float64 z", "(double)u * (double)v", "a + b", "z = a", "0", "cg_dot",
            reduce_type="double")  # a, b: the names of the two operands of a reduction step
        self.sum_partials = cp.ReductionKernel(
            "float64 x", "float64 z", "x", "a + b", "z = a", "0", "cg_sum_partials")
        # alpha = rr / p.Ap, 0 when p.Ap is not positive (the breakdown check reads p.Ap back)
        self.alpha = cp.ElementwiseKernel(
            "float64 rr, float64 pAp", "float64 alpha",
            "alpha = (pAp > 0.0 && isfinite(pAp)) ? rr / pAp : 0.0", "cg_alpha")
        self.beta = cp.ElementwiseKernel(
            "float64 rr_new, float64 rr_old", "float64 beta",
            "beta = rr_old > 0.0 ? rr_new / rr_old : 0.0", "cg_beta")
        self.update_x_r = cp.ElementwiseKernel(
            "float64 alpha, T p, T Ap", "T x, T r",
            "x = x + (T)alpha * p; r = r - (T)alpha * Ap", "cg_update_x_r")
        self.update_p = cp.ElementwiseKernel(
            "T r, float64 beta", "T p", "p = r + (T)beta * p", "cg_update_p")

    def dot(self, u, v, partials, out):
        """out = u . v of two chunk-padded vectors, no synchronisation, no allocation. partials: a
        float64 buffer of len(u) // kDotChunk values; out: a 0-d float64 array."""
        self.chunk_dots(u.reshape(-1, kDotChunk), v.reshape(-1, kDotChunk), axis=1, out=partials)
        # The sum of the partials as a reduction along axis 1 of a (1, chunks) view, not as a
        # full reduction: CuPy may hand a full reduction of one input to CUB's two-pass kernel,
        # which allocates a work area (not allowed in a graph capture); cupy.sum may do the same.
        self.sum_partials(partials.reshape(1, -1), axis=1, out=out.reshape(1))


def element(array, index):
    """array[index] as a 0-d view (NumPy's array[index] is a copy, a scalar)."""
    return array[index, ...]


class CapturedIterations:
    """A CUDA graph of `count` CG iterations and the fixed buffers it writes: rr and p.Ap of each
    iteration. It reads the rr it starts from in ConjugateGradient.rr_carry."""

    def __init__(self, graph, rr, pAp):
        self.graph, self.rr, self.pAp = graph, rr, pAp


class ConjugateGradient:
    """CG with a tcsparse plan for A @ p; every operation on CuPy's current stream.

    With graph capture (CuPy's Stream.begin_capture), each full interval of check_every iterations
    runs as one launch of a CUDA graph captured once (the first time an interval starts after
    another has run eagerly: every kernel is compiled and loaded by then); the graph writes rr and
    p.Ap of its iterations into fixed buffers, copied into the history after each launch. The
    remainder of max_iterations (a shorter last interval) runs eagerly, one kernel launch at a
    time, as everything does with use_graph=False or without capture support."""

    def __init__(self, cp, kernels, plan, dtype, max_iterations):
        self.cp, self.k, self.plan = cp, kernels, plan
        n = self.n = plan.shape[0]
        # Chunk-padded vectors (Kernels.dot); the zeros past n stay zero through every update,
        # and the plan sees the first n values only.
        padded = -(-n // kDotChunk) * kDotChunk
        self.x, self.r, self.p, self.Ap, self.b = (cp.zeros(padded, dtype=dtype) for _ in range(5))
        self.p_rows, self.Ap_rows = self.p[:n], self.Ap[:n]  # the plan's views
        self.partials = cp.zeros(padded // kDotChunk, dtype=cp.float64)  # Kernels.dot's
        # b = A @ ones: the exact solution is ones (also in a plan's own row order, where the
        # plan applies P A P^T: a permutation of ones is ones).
        plan(cp.ones(n, dtype=dtype), self.b[:n])
        bb = cp.zeros((), dtype=cp.float64)
        self.k.dot(self.b, self.b, self.partials, bb)
        self.b_norm = float(cp.sqrt(bb))
        if not self.b_norm > 0.0 or not math.isfinite(self.b_norm):
            raise ValueError(f"b = A @ ones has norm {self.b_norm}: not a usable right-hand side")
        self.rr_history = cp.zeros(max_iterations + 1, dtype=cp.float64)
        self.pAp_history = cp.zeros(max_iterations, dtype=cp.float64)
        self.alpha = cp.zeros((), dtype=cp.float64)
        self.beta = cp.zeros((), dtype=cp.float64)
        self.rr_carry = cp.zeros((), dtype=cp.float64)  # a graph's starting rr
        self.captured = {}  # check_every -> CapturedIterations

    def enqueue_iterations(self, count, rr_in, rr_out, pAp_out):
        """Enqueues `count` CG iterations: iteration j starts from rr (rr_in, then rr_out[j - 1])
        and writes p.Ap into pAp_out[j] and its new rr into rr_out[j]. Fixed buffers and views
        only: nothing allocates, so this can be captured in a CUDA graph."""
        k = self.k
        rr = rr_in
        for j in range(count):
            pAp, rr_new = element(pAp_out, j), element(rr_out, j)
            self.plan(self.p_rows, self.Ap_rows)
            k.dot(self.p, self.Ap, self.partials, pAp)
            k.alpha(rr, pAp, self.alpha)
            k.update_x_r(self.alpha, self.p, self.Ap, self.x, self.r)
            k.dot(self.r, self.r, self.partials, rr_new)
            k.beta(rr_new, rr, self.beta)
            k.update_p(self.r, self.beta, self.p)
            rr = rr_new

    def capture(self, stream, count):
        """Captures `count` iterations (enqueue_iterations) on `stream` into a CUDA graph that
        starts from rr_carry and writes into buffers of its own."""
        cp = self.cp
        rr, pAp = cp.zeros(count, dtype=cp.float64), cp.zeros(count, dtype=cp.float64)
        stream.begin_capture()
        try:
            self.enqueue_iterations(count, self.rr_carry, rr, pAp)
        except BaseException:
            try:
                stream.end_capture()  # leaves the stream out of capture mode
            except Exception:
                pass
            raise
        return CapturedIterations(stream.end_capture(), rr, pAp)

    def solve(self, tolerance, max_iterations, check_every, use_graph=True):
        cp, k = self.cp, self.k
        stream = cp.cuda.get_current_stream()
        use_graph = use_graph and hasattr(stream, "begin_capture")
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        self.x.fill(0)
        self.r[...] = self.b
        self.p[...] = self.b
        k.dot(self.r, self.r, self.partials, element(self.rr_history, 0))
        threshold = (tolerance * self.b_norm) ** 2
        checked, iterations, converged, run, launches = 0, max_iterations, False, 0, 0
        while run < max_iterations:
            count = min(check_every, max_iterations - run)
            as_graph = use_graph and count == check_every  # a shorter last interval: eager
            captured = self.captured.get(count) if as_graph else None
            if as_graph and captured is None and run > 0:  # every kernel compiled and loaded
                captured = self.captured[count] = self.capture(stream, count)
            if captured is None:
                self.enqueue_iterations(count, element(self.rr_history, run),
                                        self.rr_history[run + 1:run + 1 + count],
                                        self.pAp_history[run:run + count])
            else:
                self.rr_carry[...] = element(self.rr_history, run)
                captured.graph.launch(stream)
                self.rr_history[run + 1:run + 1 + count] = captured.rr
                self.pAp_history[run:run + count] = captured.pAp
                launches += 1
            run += count
            history = self.rr_history[checked:run + 1].get()  # waits for the stream
            for offset, value in enumerate(history):
                if not math.isfinite(value):
                    raise RuntimeError(f"CG broke down: the residual is not finite at "
                                       f"iteration {checked + offset}")
                if value <= threshold:
                    converged, iterations = True, checked + offset
                    break
            if converged:
                break
            # p.Ap of iterations max(checked - 1, 0) .. run - 1 (rr of 0 .. run is known)
            if (self.pAp_history[max(checked - 1, 0):run].get() <= 0).any():
                raise RuntimeError("CG broke down: p^T A p <= 0, the matrix is not positive "
                                   "definite")
            checked = run + 1
        stop.record()
        stop.synchronize()
        ms = cp.cuda.get_elapsed_time(start, stop)
        rr_final = float(self.rr_history[iterations])
        return dict(iterations=iterations, iterations_run=run, converged=converged, ms=ms,
                    recurrence_residual=rr_final ** 0.5 / self.b_norm, graph=use_graph,
                    graph_launches=launches, graph_iterations=launches * check_every)

    def true_residual_and_error(self):
        n = self.n
        self.plan(self.x[:n], self.Ap[:n])
        residual = float(self.cp.linalg.norm((self.b[:n] - self.Ap[:n]).astype(self.cp.float64)))
        error = float(self.cp.abs(self.x[:n].astype(self.cp.float64) - 1.0).max())
        return residual / self.b_norm, error


def median_solve(solves):
    per_iteration = sorted(solves, key=lambda s: s["ms"] / max(s["iterations_run"], 1))
    return per_iteration[len(per_iteration) // 2]


def measure_tcsparse(cp, tcsparse, kernels, A, method, args):
    cp.cuda.Device().synchronize()
    begin = time.perf_counter()
    plan = tcsparse.SpmvPlan(A, method=method)  # A is in the precision already
    cp.cuda.Device().synchronize()
    build_ms = (time.perf_counter() - begin) * 1e3
    dtype = cp.float64 if args.precision == "fp64" else cp.float32
    cg = ConjugateGradient(cp, kernels, plan, dtype, args.max_iter)
    use_graph = not args.no_graph
    cg.solve(args.tol, args.max_iter, args.check_every, use_graph)  # warm-up (captures the graph)
    solve = median_solve([cg.solve(args.tol, args.max_iter, args.check_every, use_graph)
                          for _ in range(args.repeats)])
    residual, error = cg.true_residual_and_error()
    return dict(name=f"tcsparse {plan.method}", build_ms=build_ms, residual=residual,
                error=error, ms_per_iteration=solve["ms"] / max(solve["iterations_run"], 1),
                loop=loop_description(solve, args), **solve)


def loop_description(solve, args):
    """How a solve launched its iterations: CUDA graph launches or one launch a kernel."""
    if not solve["graph"]:
        why = "--no-graph" if args.no_graph else "this CuPy has no CUDA graph capture"
        return f"eager, one launch a kernel ({why})"
    text = (f"CUDA graph of {args.check_every} iterations, {solve['graph_launches']} "
            f"launch{'es' if solve['graph_launches'] != 1 else ''}")
    eager = solve["iterations_run"] - solve["graph_iterations"]
    return text + (f" (+ {eager} iterations launched eagerly)" if eager else "")


def cupyx_cg_tolerance_keyword(cg):
    """CuPy renamed cg's relative tolerance from tol to rtol (following SciPy)."""
    return "rtol" if "rtol" in inspect.signature(cg).parameters else "tol"


def measure_cupyx(cp, A, args):
    import cupyx.scipy.sparse
    import cupyx.scipy.sparse.linalg
    import scipy.sparse
    dtype = cp.float64 if args.precision == "fp64" else cp.float32
    cp.cuda.Device().synchronize()
    begin = time.perf_counter()
    # the upload is cupyx's whole "build"
    A_gpu = cupyx.scipy.sparse.csr_matrix(scipy.sparse.csr_matrix(A.astype(dtype, copy=False)))
    cp.cuda.Device().synchronize()
    build_ms = (time.perf_counter() - begin) * 1e3
    n = A.shape[0]
    b = A_gpu @ cp.ones(n, dtype=dtype)
    b_norm = float(cp.linalg.norm(b.astype(cp.float64)))
    cg = cupyx.scipy.sparse.linalg.cg
    tolerance = {cupyx_cg_tolerance_keyword(cg): args.tol}

    def solve():
        iterations = [0]

        def count(_):
            iterations[0] += 1
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        x, info = cg(A_gpu, b, x0=cp.zeros(n, dtype=dtype), maxiter=args.max_iter,
                     callback=count, **tolerance)
        stop.record()
        stop.synchronize()
        return dict(x=x, iterations=iterations[0], iterations_run=iterations[0],
                    converged=info == 0, ms=cp.cuda.get_elapsed_time(start, stop))

    solve()  # warm-up
    result = median_solve([solve() for _ in range(args.repeats)])
    x = result.pop("x")
    residual = float(cp.linalg.norm((b - A_gpu @ x).astype(cp.float64))) / b_norm
    error = float(cp.abs(x.astype(cp.float64) - 1.0).max())
    return dict(name="cupyx.scipy.sparse.linalg.cg", build_ms=build_ms, residual=residual,
                error=error, recurrence_residual=float("nan"),
                ms_per_iteration=result["ms"] / max(result["iterations_run"], 1), **result)


def report(m, args):
    print(m["name"])
    print(f"  build             {m['build_ms']:.3f} ms")
    note = "" if m["converged"] else " (NOT converged: max iterations reached)"
    print(f"  iterations        {m['iterations']}{note} (tolerance {args.tol:g})")
    print(f"  relative residual {m['residual']:.3e}, max |x - 1| {m['error']:.3e}")
    print(f"  time per iteration {m['ms_per_iteration']:.4f} ms (median of {args.repeats} solves, "
          f"{m['iterations_run']} iterations run)")
    if "loop" in m:
        print(f"  iteration loop    {m['loop']}")


def break_even(m, other):
    extra_build = m["build_ms"] - other["build_ms"]
    saved = other["ms_per_iteration"] - m["ms_per_iteration"]
    text = f"break-even of {m['name']} against {other['name']}: "
    if saved <= 0:
        return text + (f"never ({m['ms_per_iteration']:.4f} vs {other['ms_per_iteration']:.4f} "
                       "ms per iteration)")
    if extra_build <= 0:
        return text + "from the first iteration (it builds faster too)"
    return text + f"{math.ceil(extra_build / saved)} iterations"


def main(argv=None):
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    cp, tcsparse = require_gpu()
    try:
        A = load(tcsparse, args.matrix)
        require_symmetric(A)
        if args.precision == "fp32":
            A = A.astype("float32")  # before any timing, as in cg.cu
        print(f"matrix {args.matrix}: {A.shape[0]} x {A.shape[1]}, {A.nnz} nonzeros, "
              f"{args.precision}")
        kernels = Kernels(cp)
        with cp.cuda.Stream(non_blocking=True):
            ours = measure_tcsparse(cp, tcsparse, kernels, A, args.method, args)
            report(ours, args)
            others = []
            if ours["name"] != "tcsparse cusparse":
                others.append(measure_tcsparse(cp, tcsparse, kernels, A, "cusparse", args))
                report(others[-1], args)
            others.append(measure_cupyx(cp, A, args))
            report(others[-1], args)
        for other in others:
            print(break_even(ours, other))
    except (tcsparse.Error, ValueError, RuntimeError, OSError) as error:
        if isinstance(error, tcsparse.NoDeviceError):
            print(f"cg.py: {error}", file=sys.stderr)
            return EXIT_NO_DEVICE
        print(f"cg.py: error: {error}", file=sys.stderr)
        return 1
    return 0 if ours["converged"] else 1


if __name__ == "__main__":
    sys.exit(main())
