"""The package on the GPU with CuPy and PyTorch arrays: results against SciPy, zero copy, streams,
device-resident matrices. Skipped (with the reason) where there is no GPU, CuPy or torch."""
import numpy as np
import pytest
import scipy.sparse

import tcsparse
from conftest import TOLERANCE, edge_matrices, gpu, random_values, relative_error, rounded_to

pytestmark = gpu

SPMV_METHODS = [m for m in tcsparse.methods()
                if m == "auto" or tcsparse.method_info(m)["spmv"]]
SPMM_METHODS = [m for m in tcsparse.methods()
                if m == "auto" or tcsparse.method_info(m)["spmm"]]


def supports(method, operation, precision):
    return method == "auto" or precision in tcsparse.method_info(method)[operation]


@pytest.fixture
def cp():
    return pytest.importorskip("cupy")


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    return torch


def matrix():
    return tcsparse.generate("random", rows=3000, cols=2500, min=0, max=300, dist="power_law",
                             seed=6)


# ---- every method by name, host matrices, CuPy vectors ----

@pytest.mark.parametrize("method", SPMV_METHODS)
@pytest.mark.parametrize("precision", ["fp64", "fp32", "fp16"])
def test_spmv_of_every_method_equals_scipy(cp, method, precision):
    if not supports(method, "spmv", precision):
        pytest.skip(f"{method} has no {precision} SpMV")
    A = matrix()
    plan = tcsparse.SpmvPlan(A, method=method, precision=precision)
    assert plan.method in tcsparse.methods() and plan.method != "auto"
    dtype = np.dtype(plan.dtype)
    x = random_values(A.shape[1], 1, dtype)
    y = plan(cp.asarray(x))
    assert isinstance(y, cp.ndarray) and y.dtype == dtype
    reference = rounded_to(A, dtype) @ x.astype(np.float64)
    assert relative_error(cp.asnumpy(y), reference) < TOLERANCE[precision]


@pytest.mark.parametrize("method", SPMM_METHODS)
def test_spmm_of_every_method_equals_scipy(cp, method):
    # fp32 where the method has it; tca (tensor cores) has only fp16 and bf16
    precision = "fp32" if supports(method, "spmm", "fp32") else "fp16"
    A = matrix()
    n = 16
    plan = tcsparse.SpmmPlan(A, n, method=method, precision=precision)
    dtype = np.dtype(plan.dtype)
    B = random_values((A.shape[1], n), 2, dtype)
    C = plan(cp.asarray(B))
    assert C.shape == (A.shape[0], n) and C.dtype == dtype
    reference = rounded_to(A, dtype) @ B.astype(np.float64)
    assert relative_error(cp.asnumpy(C), reference) < TOLERANCE[precision]


@pytest.mark.parametrize("method", SPMM_METHODS)
def test_spmm_of_every_method_takes_column_major_b_and_c(cp, method):
    precision = "fp32" if supports(method, "spmm", "fp32") else "fp16"
    A = matrix()
    n = 24
    plan = tcsparse.SpmmPlan(A, n, method=method, precision=precision, layout="column_major")
    dtype = np.dtype(plan.dtype)
    B = random_values((A.shape[1], n), 3, dtype)
    C0 = random_values((A.shape[0], n), 4, dtype)
    reference = rounded_to(A, dtype) @ B.astype(np.float64)
    B_columns = cp.asfortranarray(cp.asarray(B))
    C = cp.asfortranarray(cp.full((A.shape[0], n), cp.nan, dtype=dtype))
    assert plan(B_columns, C) is C  # beta = 0 never reads the NaNs
    assert relative_error(cp.asnumpy(C), reference) < TOLERANCE[precision]
    C[...] = cp.asarray(C0)
    plan(B_columns, C, alpha=2.0, beta=-1.0)
    expected = 2.0 * reference - C0.astype(np.float64)
    assert relative_error(cp.asnumpy(C), expected) < TOLERANCE[precision]
    allocated = plan(B_columns)
    assert allocated.flags.f_contiguous and allocated.shape == (A.shape[0], n)
    with pytest.raises(ValueError, match="B must be column-major"):
        plan(cp.asarray(B), C)


@pytest.mark.parametrize("layout", ["row_major", "column_major"])
@pytest.mark.parametrize("method", SPMM_METHODS)
def test_spmm_of_every_method_writes_c_in_fp32_for_fp16_plans(cp, method, layout):
    if not supports(method, "spmm", "fp16"):
        pytest.skip(f"{method} has no fp16 SpMM")
    A = matrix()
    n = 16
    try:
        plan = tcsparse.SpmmPlan(A, n, method=method, precision="fp16", layout=layout,
                                 output="fp32")
    except tcsparse.UnsupportedError as refused:  # cuSPARSE's own algorithms may refuse
        if not method.startswith("cusparse_alg"):
            raise
        pytest.skip(str(refused))
    assert plan.output_dtype == "float32"
    order = "F" if layout == "column_major" else "C"
    B = random_values((A.shape[1], n), 5, np.float16)
    C0 = random_values((A.shape[0], n), 6, np.float32)
    C = cp.asarray(C0, order=order)
    plan(cp.asarray(B, order=order), C, alpha=1.5, beta=-0.5)
    expected = 1.5 * (rounded_to(A, np.float16) @ B.astype(np.float64)) - 0.5 * C0
    # fp32 accumulation written as it is: far below fp16's rounding of C (about 1e-3)
    assert relative_error(cp.asnumpy(C), expected) < 1e-5
    allocated = plan(cp.asarray(B, order=order))
    assert allocated.dtype == cp.float32
    with pytest.raises(TypeError, match="C must be float32"):
        plan(cp.asarray(B, order=order), cp.zeros((A.shape[0], n), cp.float16, order=order))


def test_a_pruned_layer_y_equals_x_times_w_transposed_without_copies_torch(torch):
    # a model's Y = X W^T with X and Y row-major (n tokens x features): B = X^T, C = Y^T
    W = scipy.sparse.random_array((512, 1024), density=0.1, format="csr", random_state=5,
                                  data_sampler=lambda size: random_values(size, 6))
    tokens = 16
    plan = tcsparse.SpmmPlan(W, tokens, method="tca", precision="fp16", layout="column_major")
    X = torch.from_numpy(random_values((tokens, 1024), 7, np.float16)).cuda()
    Y = torch.empty(tokens, 512, dtype=torch.float16, device="cuda")
    reference = X.cpu().numpy().astype(np.float64) @ rounded_to(W, np.float16).T
    for _ in range(2):  # the second call takes the fast path
        Y.fill_(float("nan"))
        plan(X.T, Y.T)
        assert relative_error(Y.cpu().numpy(), reference) < TOLERANCE["fp16"]
    # the same shape as Y.T, other strides: refused, never written where Y.T would be
    every_other = torch.empty(2 * tokens, 512, dtype=torch.float16, device="cuda")[::2]
    with pytest.raises(ValueError, match="C must be column-major"):
        plan(X.T, every_other.T)
    with pytest.raises(ValueError, match="B must be column-major"):
        plan(X.T.contiguous(), Y.T)


@pytest.mark.parametrize("name, A", edge_matrices(), ids=[n for n, _ in edge_matrices()])
def test_edge_shapes_on_the_gpu(cp, name, A):
    plan = tcsparse.SpmvPlan(A, method="cusparse")
    x = random_values(A.shape[1], 3)
    y = cp.full(A.shape[0], cp.nan)
    plan(cp.asarray(x), y)
    assert relative_error(cp.asnumpy(y), A @ x) < TOLERANCE["fp64"]


def test_auto_never_picks_a_method_that_refuses_the_precision(cp):
    A = matrix()
    for precision in ("fp64", "fp32", "fp16", "bf16"):
        plan = tcsparse.SpmvPlan(A, precision=precision)
        assert precision in tcsparse.method_info(plan.method)["spmv"]


def test_auto_measures_its_trials_unless_told_not_to(cp):
    A = matrix()
    measured = tcsparse.SpmvPlan(A).stats["details"]["auto"]
    assert measured["choice"] == "measured"
    timed = {t["method"]: t["apply_ms"] for t in measured["measured"] if "apply_ms" in t}
    assert "cusparse" in timed and measured["chosen"] == min(timed, key=timed.get)
    rule = tcsparse.SpmvPlan(A, auto_measure=False).stats["details"]["auto"]
    assert rule["choice"] == "rule" and "measured" not in rule
    assert rule["chosen"] == rule["trial_methods"][0]


# ---- zero copy, streams ----

def test_output_is_written_in_place_without_new_allocations(cp):
    A = matrix()
    plan = tcsparse.SpmvPlan(A, method="cusparse")
    x = cp.asarray(random_values(A.shape[1], 4))
    y = cp.empty(A.shape[0])
    plan(x, y)  # warm-up
    cp.cuda.Device().synchronize()
    pool = cp.get_default_memory_pool()
    used = pool.used_bytes()
    out = plan(x, y)
    assert out is y and pool.used_bytes() == used


def test_torch_output_is_the_given_tensor_and_stays_on_its_memory(torch):
    A = matrix()
    plan = tcsparse.SpmvPlan(A, method="cusparse", precision="fp32")
    x = torch.from_numpy(random_values(A.shape[1], 5, np.float32)).cuda()
    y = torch.empty(A.shape[0], device="cuda")
    address = y.data_ptr()
    torch.cuda.synchronize()
    allocated = torch.cuda.memory_allocated()
    out = plan(x, y)
    assert out is y and y.data_ptr() == address
    assert torch.cuda.memory_allocated() == allocated
    assert relative_error(y.cpu().numpy(), A.astype(np.float32) @ x.cpu().numpy()) < 1e-5
    fresh = plan(x)
    assert isinstance(fresh, torch.Tensor) and fresh.device.type == "cuda"


def test_stream_none_is_the_callers_current_stream_cupy(cp):
    A = matrix()
    plan = tcsparse.SpmvPlan(A, method="csr_overlap")
    x = cp.asarray(random_values(A.shape[1], 6))
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        y = plan(x)          # on `stream`
        z = y * 2            # same stream: sees the product
    stream.synchronize()
    assert relative_error(cp.asnumpy(z), 2 * (A @ cp.asnumpy(x))) < 1e-12


def test_stream_none_is_the_callers_current_stream_torch(torch):
    A = matrix()
    plan = tcsparse.SpmvPlan(A, method="cusparse")
    x = torch.from_numpy(random_values(A.shape[1], 7)).cuda()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        y = plan(x)
        z = y * 2
    stream.synchronize()
    assert relative_error(z.cpu().numpy(), 2 * (A @ x.cpu().numpy())) < 1e-12


@pytest.mark.parametrize("kind", ["cupy", "torch", "int"])
def test_explicit_streams(cp, kind):
    A = matrix()
    plan = tcsparse.SpmvPlan(A, method="cusparse")
    x = cp.asarray(random_values(A.shape[1], 8))
    y = cp.empty(A.shape[0])
    stream = cp.cuda.Stream(non_blocking=True)
    if kind == "torch":
        torch = pytest.importorskip("torch")
        torch_stream = torch.cuda.ExternalStream(stream.ptr)
        plan(x, y, stream=torch_stream)
    else:
        plan(x, y, stream=stream if kind == "cupy" else stream.ptr)
    stream.synchronize()
    assert relative_error(cp.asnumpy(y), A @ cp.asnumpy(x)) < 1e-12


# ---- device-resident matrices ----

@pytest.mark.parametrize("method", ["auto", "cusparse", "csr_overlap", "dasp"])
def test_cupy_matrix_builds_on_the_gpu(cp, method):
    cupyx_sparse = pytest.importorskip("cupyx.scipy.sparse")
    A = matrix()
    D = cupyx_sparse.csr_matrix(A)
    plan = tcsparse.SpmvPlan(D, method=method)
    x = random_values(A.shape[1], 9)
    assert relative_error(cp.asnumpy(plan(cp.asarray(x))), A @ x) < 1e-12
    if method in ("csr_overlap", "cusparse"):
        assert plan.stats["upload_ms"] >= 0


def test_torch_csr_matrix_builds_on_the_gpu(torch):
    A = matrix()
    T = torch.sparse_csr_tensor(torch.from_numpy(A.indptr.astype(np.int64)),
                                torch.from_numpy(A.indices.astype(np.int64)),
                                torch.from_numpy(A.data), size=A.shape).cuda()
    plan = tcsparse.SpmvPlan(T, method="csr_overlap")
    x = torch.from_numpy(random_values(A.shape[1], 10)).cuda()
    assert relative_error(plan(x).cpu().numpy(), A @ x.cpu().numpy()) < 1e-12


def test_csr_overlap_borrows_a_cupy_matrix_and_reads_its_values_in_place(cp):
    cupyx_sparse = pytest.importorskip("cupyx.scipy.sparse")
    A = matrix()
    D = cupyx_sparse.csr_matrix(A)
    plan = tcsparse.SpmvPlan(D, method="csr_overlap")
    assert plan.stats["details"]["device_csr"] == "borrowed"
    assert plan.stats["upload_ms"] == 0
    x = random_values(A.shape[1], 13)
    D.data *= -2.0  # on the current stream, as the plan's call below
    assert relative_error(cp.asnumpy(plan(cp.asarray(x))), -2.0 * (A @ x)) < 1e-12
    with pytest.raises(tcsparse.UnsupportedError, match="device_csr=copy"):
        plan.update_values(D.data)
    copied = tcsparse.SpmvPlan(D, method="csr_overlap", parameters={"device_csr": "copy"})
    assert copied.stats["details"]["device_csr"] == "owned"
    D.data[:] = cp.nan
    assert relative_error(cp.asnumpy(copied(cp.asarray(x))), -2.0 * (A @ x)) < 1e-12


def test_a_borrowing_plan_keeps_the_arrays_it_reads_alive(torch):
    # torch's int64 offsets and columns become int32 copies that only the plan holds
    A = matrix()
    T = torch.sparse_csr_tensor(torch.from_numpy(A.indptr.astype(np.int64)),
                                torch.from_numpy(A.indices.astype(np.int64)),
                                torch.from_numpy(A.data), size=A.shape).cuda()
    plan = tcsparse.SpmvPlan(T, method="csr_overlap")
    assert plan.stats["details"]["device_csr"] == "borrowed"
    del T
    torch.cuda.empty_cache()
    clobber = [torch.full((A.nnz,), -1, dtype=torch.int32, device="cuda") for _ in range(4)]
    x = torch.from_numpy(random_values(A.shape[1], 14)).cuda()
    assert relative_error(plan(x).cpu().numpy(), A @ x.cpu().numpy()) < 1e-12
    del clobber


def test_update_values_from_the_device(cp):
    A = matrix()
    plan = tcsparse.SpmvPlan(A, method="csr_overlap")
    assert plan.can_update_values
    new = random_values(A.nnz, 11)
    plan.update_values(cp.asarray(new))
    B = scipy.sparse.csr_array((new, A.indices, A.indptr), shape=A.shape)
    x = random_values(A.shape[1], 12)
    assert relative_error(cp.asnumpy(plan(cp.asarray(x))), B @ x) < 1e-12


def test_dasp_takes_new_values_and_permutes_in_plan_order(cp):
    A = tcsparse.generate("stencil3d", nx=20, ny=20, nz=20, seed=1)
    plan = tcsparse.SpmvPlan(A, method="dasp", parameters={"row_order": "plan"})
    assert plan.plan_row_order
    x = cp.asarray(random_values(A.shape[1], 13))
    xp = plan.permute(x)
    y = plan.unpermute(plan(xp))
    assert relative_error(cp.asnumpy(y), A @ cp.asnumpy(x)) < 1e-12
    assert plan.can_update_values
    new = random_values(A.nnz, 17)
    plan.update_values(cp.asarray(new))  # the layout refilled, its rows in the plan's order
    B = scipy.sparse.csr_array((new, A.indices, A.indptr), shape=A.shape)
    y = plan.unpermute(plan(xp))
    assert relative_error(cp.asnumpy(y), B @ cp.asnumpy(x)) < 1e-12
    plan.update_values(A.data)  # host values: back to A
    assert relative_error(cp.asnumpy(plan.unpermute(plan(xp))), A @ cp.asnumpy(x)) < 1e-12


# ---- repeated calls: the fast path (module.cpp) still refuses what changed, reads the stream ----

def test_a_repeated_call_refuses_what_changed_cupy(cp):
    A = matrix()
    plan = tcsparse.SpmvPlan(A, method="cusparse")
    x, y = cp.asarray(random_values(A.shape[1], 15)), cp.empty(A.shape[0])
    plan(x, y)
    plan(x, y, alpha=2, beta=-1)  # the fast path: y = 2 A x - A x
    assert relative_error(cp.asnumpy(y), A @ cp.asnumpy(x)) < 1e-12
    with pytest.raises(TypeError, match="y must be float64"):
        plan(x, y.view(cp.float32))  # y's address, another dtype
    with pytest.raises(ValueError, match="contiguous"):
        plan(cp.ones(2 * A.shape[1])[::2], y)
    memory = cp.zeros(A.shape[0] + A.shape[1] - 1)
    with pytest.raises(ValueError, match="must not overlap"):
        plan(memory[:A.shape[1]], memory[A.shape[1] - 1:])
    with pytest.raises(ValueError, match="host array"):
        plan(cp.asnumpy(x), y)
    x.shape = (50, 50)  # in place: the same object and address
    with pytest.raises(ValueError, match=r"x must have shape \(2500,\)"):
        plan(x, y)


def test_a_repeated_call_refuses_what_changed_torch(torch):
    A = matrix()
    plan = tcsparse.SpmvPlan(A, method="cusparse")
    x = torch.from_numpy(random_values(A.shape[1], 16)).cuda()
    y = torch.empty(A.shape[0], dtype=torch.float64, device="cuda")
    plan(x, y)
    plan(x, y, alpha=2, beta=-1)  # the fast path: y = 2 A x - A x
    assert relative_error(y.cpu().numpy(), A @ x.cpu().numpy()) < 1e-12
    with pytest.raises(TypeError, match="y must be float64"):
        plan(x, y.view(torch.float32))  # y's address, another dtype
    with pytest.raises(TypeError, match="strided"):
        plan(x.to_sparse(), y)
    with pytest.raises(ValueError, match="contiguous"):
        plan(torch.ones(2 * A.shape[1], dtype=torch.float64, device="cuda")[::2], y)
    with pytest.raises(ValueError, match="host array"):
        plan(x.cpu(), y)
    y.resize_(A.shape[0] + 1)  # in place: the same object
    with pytest.raises(ValueError, match=r"y must have shape \(3000,\)"):
        plan(x, y)


def test_a_repeated_call_runs_on_the_current_stream_cupy(cp):
    """The fast path reads the current stream on every call: captured into a CUDA graph, the
    product runs when the graph does, not at the capture."""
    A = tcsparse.poisson_3d(16)
    plan = tcsparse.SpmvPlan(A, method="dasp")
    x, y = cp.asarray(random_values(A.shape[1], 17)), cp.zeros(A.shape[0])
    plan(x, y)  # checked: the call below takes the fast path
    y.fill(0)
    cp.cuda.Device().synchronize()
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        plan(x, y)
        graph = stream.end_capture()
    cp.cuda.Device().synchronize()
    assert not bool(cp.any(y))
    graph.launch(stream)
    stream.synchronize()
    assert relative_error(cp.asnumpy(y), A @ cp.asnumpy(x)) < 1e-12


def test_a_repeated_call_runs_on_the_current_stream_torch(torch):
    A = tcsparse.poisson_3d(16)
    plan = tcsparse.SpmvPlan(A, method="dasp")
    x = torch.from_numpy(random_values(A.shape[1], 18)).cuda()
    y = torch.zeros(A.shape[0], dtype=torch.float64, device="cuda")
    plan(x, y)  # checked: the call below takes the fast path
    y.zero_()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):  # a capture stream of torch's own is current
        plan(x, y)
    torch.cuda.synchronize()
    assert not bool(y.any())
    graph.replay()
    torch.cuda.synchronize()
    assert relative_error(y.cpu().numpy(), A @ x.cpu().numpy()) < 1e-12


# ---- refused clearly ----

def test_host_vectors_on_a_gpu_plan_are_refused(cp):
    plan = tcsparse.SpmvPlan(matrix(), method="cusparse")
    with pytest.raises(ValueError, match="host array"):
        plan(np.ones(plan.shape[1]))


def test_wrong_dtype_and_strided_device_arrays_are_refused(cp):
    plan = tcsparse.SpmvPlan(matrix(), method="cusparse")
    with pytest.raises(TypeError, match="float64"):
        plan(cp.ones(plan.shape[1], dtype=cp.float32))
    with pytest.raises(ValueError, match="contiguous"):
        plan(cp.ones(2 * plan.shape[1])[::2])


def test_a_bad_parameter_is_a_parameter_error(cp):
    with pytest.raises(tcsparse.ParameterError, match="no_such_key"):
        tcsparse.SpmvPlan(matrix(), method="dasp", parameters={"no_such_key": 1})


def test_dlpack_only_arrays_jax():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("jax without a GPU")
    A = matrix()
    # fp32: JAX makes float32 arrays unless jax_enable_x64 is set
    plan = tcsparse.SpmvPlan(A, method="cusparse", precision="fp32")
    x = random_values(A.shape[1], 14, np.float32)
    cp = pytest.importorskip("cupy")
    y = cp.empty(A.shape[0], dtype=np.float32)
    plan(jnp.asarray(x), y)
    cp.cuda.Device().synchronize()
    reference = rounded_to(A, np.float32) @ x.astype(np.float64)
    assert relative_error(cp.asnumpy(y), reference) < TOLERANCE["fp32"]
