"""examples/cg.py: exit codes without CuPy or a GPU, its CG loop on the host (NumPy standing in
for CuPy, the CPU reference plan for A @ p; also as graph launches, on a stream that records and
replays), and on a GPU with CuPy a full run."""
import importlib.util
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest
import scipy.sparse

import tcsparse
from conftest import HAS_GPU

CG_PY = pathlib.Path(__file__).resolve().parents[2] / "examples" / "cg.py"


def cupy_with_gpu():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # ImportError, or CUDARuntimeError without a driver
        return False


def run_cg_py(*args):
    return subprocess.run([sys.executable, str(CG_PY), *args], capture_output=True, text=True,
                          timeout=600)


def load_example():
    spec = importlib.util.spec_from_file_location("cg_example", CG_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(cupy_with_gpu(), reason="CuPy and a GPU are present")
def test_cg_py_without_cupy_or_gpu_exits_2_with_a_clear_message():
    result = run_cg_py("poisson3d:8")
    assert result.returncode == 2, result.stderr
    assert "needs CuPy and an NVIDIA GPU" in result.stderr or "no CUDA device" in result.stderr


@pytest.mark.parametrize("args, problem", [
    ((), "required: matrix"),
    (("poisson3d:8", "--precision", "fp16"), "invalid choice"),
    (("poisson3d:8", "--tol", "2"), "--tol"),
    (("poisson3d:8", "--max-iter", "0"), "--max-iter must be >= 1"),
])
def test_cg_py_bad_arguments_exit_1_naming_the_problem(args, problem):
    result = run_cg_py(*args)
    assert result.returncode == 1, result.stderr
    assert problem in result.stderr


# ---- the CG loop on the host: NumPy arrays in place of CuPy's, the same operations ----

class HostArray(np.ndarray):
    """A NumPy array with CuPy's .get()."""

    def get(self):
        return np.array(self)


class HostStream:
    """The current stream of host_cupy: operations run at once; no graph capture (no
    begin_capture, so cg.py runs its loop eagerly)."""

    recording = None

    def enqueue(self, operation, *args):
        operation(*args)


class RecordingStream(HostStream):
    """A stream with CuPy's capture API: between begin_capture and end_capture the operations
    enqueued through it (the kernels and the plan) are recorded, not run; the graph's launch
    replays them on the same arrays, as a CUDA graph replays the same addresses."""

    def __init__(self):
        self.recording, self.graphs = None, []

    def begin_capture(self):
        assert self.recording is None, "capture begun twice"
        self.recording = []

    def end_capture(self):
        assert self.recording is not None, "end_capture without begin_capture"
        graph, self.recording = RecordedGraph(self.recording), None
        self.graphs.append(graph)
        return graph

    def enqueue(self, operation, *args):
        if self.recording is None:
            operation(*args)
        else:
            self.recording.append((operation, args))


class RecordedGraph:
    def __init__(self, calls):
        self.calls, self.launches = calls, 0

    def launch(self, stream=None):
        self.launches += 1
        for operation, args in self.calls:
            operation(*args)


def host_cupy(stream=None):
    stream = HostStream() if stream is None else stream

    def wrap(array):
        return np.asarray(array).view(HostArray)

    def allocate(fill):
        def allocation(shape, dtype):
            assert stream.recording is None, "device memory allocated during a graph capture"
            return wrap(np.full(shape, fill, dtype=dtype))
        return allocation

    class Event:
        def record(self):
            pass

        def synchronize(self):
            pass

    return types.SimpleNamespace(
        float64=np.float64, float32=np.float32,
        empty=allocate(np.nan),  # poisoned
        ones=allocate(1), zeros=allocate(0),
        sqrt=np.sqrt, abs=np.abs, linalg=np.linalg,
        cuda=types.SimpleNamespace(Event=Event, get_elapsed_time=lambda start, stop: 1.0,
                                   get_current_stream=lambda: stream))


def host_kernels(stream=None):
    """The operations of cg.py's Kernels, in NumPy, with their signatures (every output passed
    in), enqueued on `stream` (recorded while it captures)."""
    def dot(u, v, partials, out):
        products = u.astype(np.float64) * v.astype(np.float64)
        partials[...] = products.reshape(partials.size, -1).sum(axis=1)  # kDotChunk a chunk
        out[...] = partials.sum()

    def alpha(rr, pAp, out):
        out[...] = rr / pAp if pAp > 0 and np.isfinite(pAp) else 0.0

    def beta(rr_new, rr_old, out):
        out[...] = rr_new / rr_old if rr_old > 0 else 0.0

    def update_x_r(a, p, Ap, x, r):
        x += (a * p).astype(x.dtype)
        r -= (a * Ap).astype(r.dtype)

    def update_p(r, b, p):
        p[...] = r + (b * p).astype(p.dtype)

    stream = HostStream() if stream is None else stream

    def enqueued(operation):
        return lambda *args: stream.enqueue(operation, *args)

    return types.SimpleNamespace(**{operation.__name__: enqueued(operation) for operation in
                                    (dot, alpha, beta, update_x_r, update_p)})


def host_cg(cg, A, max_iterations, stream=None):
    plan = tcsparse.SpmvPlan(A, device="cpu")
    stream = HostStream() if stream is None else stream

    def apply(x, y):
        plan(np.asarray(x), np.asarray(y))  # writes y in place

    class Plan:
        shape = plan.shape

        def __call__(self, x, y):
            stream.enqueue(apply, x, y)
            return y

    return cg.ConjugateGradient(host_cupy(stream), host_kernels(stream), Plan(), np.float64,
                                max_iterations)


def plain_cg_iterations(A, b, tolerance):
    """Textbook CG in NumPy: the iterations until ||r|| <= tolerance * ||b||."""
    x, r = np.zeros_like(b), b.copy()
    p, rr = r.copy(), r @ r
    for k in range(1, 10 * len(b)):
        Ap = A @ p
        alpha = rr / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rr_new = r @ r
        if np.sqrt(rr_new) <= tolerance * np.linalg.norm(b):
            return k
        p = r + rr_new / rr * p
        rr = rr_new
    raise AssertionError("plain CG did not converge")


def test_cg_loop_converges_on_poisson_like_textbook_cg_whatever_the_check_interval():
    cg = load_example()
    A = tcsparse.poisson_3d(6, 5, 4)
    expected = plain_cg_iterations(A, A @ np.ones(A.shape[0]), 1e-10)
    for check_every in (1, 7, 1000):
        solver = host_cg(cg, A, max_iterations=500)
        result = solver.solve(1e-10, 500, check_every)
        assert result["converged"] and not result["graph"]  # the host stream cannot capture
        assert result["iterations"] == expected, check_every
        assert result["iterations_run"] >= expected
        assert result["recurrence_residual"] <= 1e-10
        residual, error = solver.true_residual_and_error()
        assert residual <= 1e-9 and error <= 1e-8


def test_cg_loop_reports_no_convergence_at_max_iterations():
    cg = load_example()
    A = tcsparse.poisson_3d(8)
    result = host_cg(cg, A, max_iterations=3).solve(1e-12, 3, 10)
    assert not result["converged"] and result["iterations"] == 3 and result["iterations_run"] == 3
    assert result["recurrence_residual"] > 1e-12


def test_cg_loop_refuses_an_indefinite_matrix():
    cg = load_example()
    n = 40
    A = scipy.sparse.diags_array([np.where(np.arange(n) % 2 == 0, 1.0, -2.0)], offsets=[0],
                                 format="csr")
    with pytest.raises(RuntimeError, match="not positive definite"):
        host_cg(cg, A, max_iterations=50).solve(1e-12, 50, 5)


def solve_and_history(solver, *args, **kwargs):
    """solver.solve(...) and the histories and x it leaves (poisoned before: no stale values)."""
    solver.rr_history[...] = np.nan
    solver.pAp_history[...] = np.nan
    solver.rr_carry[...] = np.nan
    result = solver.solve(*args, **kwargs)
    run = result["iterations_run"]
    return (result, np.array(solver.rr_history[:run + 1]), np.array(solver.pAp_history[:run]),
            np.array(solver.x))


@pytest.mark.parametrize("max_iterations, check_every, tolerance", [
    (500, 1, 1e-10),  # converges; one iteration a graph (its rr in and out in different buffers)
    (500, 4, 1e-10),  # converges inside a graph's interval
    (500, 7, 1e-10),
    (23, 5, 1e-14),   # stops at the limit: 4 intervals of 5 and an eager one of 3
    (3, 10, 1e-14),   # the limit below one interval: eager only, nothing captured
])
def test_cg_loop_as_graph_launches_runs_the_same_iterations_as_the_eager_loop(
        max_iterations, check_every, tolerance):
    cg = load_example()
    A = tcsparse.poisson_3d(6, 5, 4)
    expected, rr, pAp, x = solve_and_history(host_cg(cg, A, max_iterations), tolerance,
                                             max_iterations, check_every)
    assert not expected["graph"] and expected["graph_launches"] == 0
    stream = RecordingStream()
    solver = host_cg(cg, A, max_iterations, stream)
    # use_graph=False: eager on a stream that could capture
    eager, *_ = solve_and_history(solver, tolerance, max_iterations, check_every, use_graph=False)
    assert not eager["graph"] and not stream.graphs
    assert eager["iterations"] == expected["iterations"]
    # intervals of check_every iterations run (the last one may be shorter: eager)
    full = min(-(-expected["iterations_run"] // check_every), max_iterations // check_every)
    for solve in range(2):  # the first solve captures, the second reuses the graph
        result, rr_graph, pAp_graph, x_graph = solve_and_history(
            solver, tolerance, max_iterations, check_every)
        for key in ("iterations", "iterations_run", "converged", "recurrence_residual"):
            assert result[key] == expected[key], (key, solve)
        # the same operations on the same values: the same bits
        assert np.array_equal(rr_graph, rr) and np.array_equal(pAp_graph, pAp)
        assert np.array_equal(x_graph, x)
        assert result["graph"]
        # captured when an interval starts after another ran (eagerly: every kernel compiled)
        captured_before = solve == 1 and full >= 2
        assert result["graph_launches"] == (full if captured_before else max(full - 1, 0)), solve
        assert result["graph_iterations"] == result["graph_launches"] * check_every
    assert len(stream.graphs) == (1 if full >= 2 else 0)  # captured once
    if stream.graphs:
        # recorded: the plan, 2 dot products, alpha, beta and 2 updates an iteration
        assert len(stream.graphs[0].calls) == 7 * check_every
        assert stream.graphs[0].launches == 2 * full - 1


def test_cg_loop_as_graph_launches_refuses_an_indefinite_matrix():
    """Breaks down at iteration 8: after graph launches (intervals of 2 iterations)."""
    cg = load_example()
    A = scipy.sparse.diags_array([np.concatenate([np.arange(1.0, 40.0), [-1.0]])], offsets=[0],
                                 format="csr")
    stream = RecordingStream()
    with pytest.raises(RuntimeError, match="not positive definite"):
        host_cg(cg, A, max_iterations=50, stream=stream).solve(1e-12, 50, 2)
    assert len(stream.graphs) == 1 and stream.graphs[0].launches == 4  # iterations 2 .. 9


def test_cg_py_no_graph_option():
    cg = load_example()
    assert cg.parse_arguments(["poisson3d:8", "--no-graph"]).no_graph
    assert not cg.parse_arguments(["poisson3d:8"]).no_graph


def test_cg_py_refuses_a_non_symmetric_matrix():
    cg = load_example()
    A = scipy.sparse.csr_array(np.array([[2.0, 1.0], [0.0, 2.0]]))
    with pytest.raises(ValueError, match="not symmetric"):
        cg.require_symmetric(A)


@pytest.mark.skipif(not (HAS_GPU and cupy_with_gpu()), reason="needs CuPy and a CUDA GPU")
def test_cg_py_solves_poisson_on_gpu_against_cusparse_and_cupyx():
    result = run_cg_py("poisson3d:24", "--tol", "1e-10", "--repeats", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cupyx.scipy.sparse.linalg.cg" in result.stdout
    assert result.stdout.count("break-even of") >= 1
    residuals = [float(line.split()[2].rstrip(","))
                 for line in result.stdout.splitlines() if "relative residual" in line]
    assert len(residuals) >= 2 and all(r <= 1e-9 for r in residuals), result.stdout
    # the tcsparse solves ran as CUDA graph launches; --no-graph: eager, the same iterations
    loops = [line for line in result.stdout.splitlines() if "iteration loop" in line]
    assert loops and all("CUDA graph of 10 iterations" in line for line in loops), result.stdout
    eager = run_cg_py("poisson3d:24", "--tol", "1e-10", "--repeats", "1", "--no-graph")
    assert eager.returncode == 0, eager.stdout + eager.stderr
    assert "(--no-graph)" in eager.stdout

    def iterations(stdout):
        return [line.split()[1] for line in stdout.splitlines() if "iterations  " in line]
    assert iterations(eager.stdout) == iterations(result.stdout), eager.stdout + result.stdout
