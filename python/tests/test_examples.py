"""examples/cg.py: exit codes without CuPy or a GPU, its CG loop on the host (NumPy standing in
for CuPy, the CPU reference plan for A @ p), and on a GPU with CuPy a full run."""
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


def host_cupy():
    def wrap(array):
        return np.asarray(array).view(HostArray)

    class Event:
        def record(self):
            pass

        def synchronize(self):
            pass

    return types.SimpleNamespace(
        float64=np.float64, float32=np.float32,
        empty=lambda shape, dtype: wrap(np.full(shape, np.nan, dtype=dtype)),  # poisoned
        ones=lambda shape, dtype: wrap(np.ones(shape, dtype=dtype)),
        zeros=lambda shape, dtype: wrap(np.zeros(shape, dtype=dtype)),
        sqrt=np.sqrt, abs=np.abs, linalg=np.linalg,
        cuda=types.SimpleNamespace(Event=Event, get_elapsed_time=lambda start, stop: 1.0))


def host_kernels():
    """The operations of cg.py's Kernels, in NumPy."""
    def alpha(rr, pAp, out):
        out[...] = rr / pAp if pAp > 0 and np.isfinite(pAp) else 0.0

    def beta(rr_new, rr_old, out):
        out[...] = rr_new / rr_old if rr_old > 0 else 0.0

    def update_x_r(a, p, Ap, x, r):
        x += (a * p).astype(x.dtype)
        r -= (a * Ap).astype(r.dtype)

    def update_p(r, b, p):
        p[...] = r + (b * p).astype(p.dtype)

    return types.SimpleNamespace(
        dot=lambda a, b: np.asarray(np.dot(a.astype(np.float64), b.astype(np.float64))),
        alpha=alpha, beta=beta, update_x_r=update_x_r, update_p=update_p)


def host_cg(cg, A, max_iterations):
    plan = tcsparse.SpmvPlan(A, device="cpu")

    class Plan:
        shape = plan.shape

        def __call__(self, x, y):
            plan(np.asarray(x), np.asarray(y))  # writes y in place
            return y

    return cg.ConjugateGradient(host_cupy(), host_kernels(), Plan(), np.float64, max_iterations)


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
        assert result["converged"]
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
