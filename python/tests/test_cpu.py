"""The package on the CPU path (device="cpu"): runs anywhere, checked against SciPy's A @ x."""
import numpy as np
import pytest
import scipy.sparse

import tcsparse
from conftest import (DATA, HAS_GPU, TOLERANCE, edge_matrices, random_values, relative_error,
                      rounded_to)


# ---- reading and generating matrices ----

def test_read_matrix_returns_a_scipy_csr_array_equal_to_the_file():
    A = tcsparse.read_matrix(DATA / "general_3x4.mtx")
    assert isinstance(A, scipy.sparse.csr_array)
    assert A.shape == (3, 4) and A.nnz == 5
    assert A.indptr.dtype == np.int32 and A.indices.dtype == np.int32 and A.dtype == np.float64
    expected = np.array([[1, 0, 2, 0], [0, 0, 0, 0], [3, 4, 0, 5]], dtype=np.float64)
    np.testing.assert_array_equal(A.toarray(), expected)


def test_read_matrix_reads_gzip_and_str_paths_alike():
    plain = tcsparse.read_matrix(str(DATA / "general_3x4.mtx"))
    packed = tcsparse.read_matrix(DATA / "general_3x4.mtx.gz")
    assert (plain != packed).nnz == 0


def test_read_matrix_expands_symmetric_pattern_files_with_seeded_values():
    A = tcsparse.read_matrix(DATA / "symmetric_pattern_5x5.mtx")
    assert A.nnz == 13
    dense = A.toarray()
    np.testing.assert_array_equal(dense, dense.T)
    assert np.all(np.abs(A.data) >= 0.1)
    other_seed = tcsparse.read_matrix(DATA / "symmetric_pattern_5x5.mtx", pattern_seed=7)
    assert not np.array_equal(A.data, other_seed.data)


def test_read_matrix_reads_smtx():
    A = tcsparse.read_matrix(DATA / "small_4x6.smtx")
    assert A.shape == (4, 6)


def test_a_malformed_file_is_a_parse_error_naming_file_and_line():
    with pytest.raises(tcsparse.ParseError, match=r"bad_index_zero\.mtx:5:"):
        tcsparse.read_matrix(DATA / "bad_index_zero.mtx")
    assert issubclass(tcsparse.ParseError, tcsparse.Error)


def test_a_missing_file_is_a_tcsparse_error():
    with pytest.raises(tcsparse.Error, match="no_such_file"):
        tcsparse.read_matrix(DATA / "no_such_file.mtx")


@pytest.mark.parametrize("kind, parameters, shape", [
    ("stencil2d", dict(nx=5, ny=4), (20, 20)),
    ("stencil3d", dict(nx=3, ny=4, nz=5), (60, 60)),
    ("rmat", dict(scale=6), (64, 64)),
    ("random", dict(rows=30, cols=40, min=1, max=9, dist="power_law"), (30, 40)),
    ("banded", dict(n=50, bandwidth=3), (50, 50)),
    ("short", dict(rows=30, cols=10), (30, 10)),
    ("long", dict(rows=4, cols=500, length=300), (4, 500)),
    ("pruned", dict(rows=32, cols=64, sparsity=0.9), (32, 64)),
])
def test_every_generator_makes_a_canonical_csr_array(kind, parameters, shape):
    A = tcsparse.generate(kind, seed=3, **parameters)
    assert isinstance(A, scipy.sparse.csr_array) and A.shape == shape and A.nnz > 0
    assert A.has_canonical_format
    again = tcsparse.generate(kind, seed=3, **parameters)
    np.testing.assert_array_equal(A.data, again.data)  # deterministic from the seed


def test_generate_takes_the_cli_spec_string_and_named_functions_agree():
    spec = tcsparse.generate("stencil3d:nx=4,ny=4,nz=4,seed=2")
    named = tcsparse.stencil_3d_27pt(4, 4, 4, seed=2)
    assert (spec != named).nnz == 0
    assert tcsparse.stencil_2d_5pt(3, 3).shape == (9, 9)
    assert tcsparse.rmat(5, edge_factor=4).shape == (32, 32)
    assert tcsparse.random_rows(10, 20, 1, 5).shape == (10, 20)
    assert tcsparse.banded(10, 2).nnz == 10 + 2 * 9 + 2 * 8
    assert tcsparse.short_rows(10, 5).shape == (10, 5)
    assert tcsparse.long_rows(2, 50, 40).nnz == 80
    assert tcsparse.pruned_weights(16, 16, 0.5).shape == (16, 16)


def test_poisson_3d_is_the_symmetric_7_point_laplacian():
    A = tcsparse.poisson_3d(4, 3, 5)
    assert A.shape == (60, 60) and A.has_canonical_format
    assert (A != A.T).nnz == 0
    np.testing.assert_array_equal(A.diagonal(), np.full(60, 6.0))
    off = A - scipy.sparse.diags_array(A.diagonal())
    assert set(np.unique(off.data)) <= {-1.0, 0.0}
    assert (tcsparse.poisson_3d(4) != tcsparse.generate("poisson3d:nx=4")).nnz == 0


def test_generator_kinds_and_bad_generator_input():
    kinds = tcsparse.generator_kinds()
    assert {"stencil2d", "stencil3d", "rmat", "random", "banded", "short", "long", "pruned",
            "replicate"} <= set(kinds)
    with pytest.raises(tcsparse.Error, match="no_such_kind"):
        tcsparse.generate("no_such_kind", n=3)
    with pytest.raises(tcsparse.Error, match="nz"):
        tcsparse.generate("stencil3d", nx=3, ny=3)  # nz missing
    with pytest.raises(TypeError):
        tcsparse.generate("stencil2d:nx=3,ny=3", seed=1)


# ---- methods ----

def test_methods_lists_auto_and_every_registered_method():
    names = tcsparse.methods()
    assert {"auto", "cusparse", "dasp", "csr_overlap", "csr_full_overlap"} <= set(names)
    assert len(names) == len(set(names))
    info = tcsparse.method_info("dasp")
    assert "fp64" in info["spmv"] and info["spmm"] == []
    assert any(p["name"] == "max_medium_row_length" for p in info["parameters"])
    assert tcsparse.method_info("cusparse")["baseline"] is True
    with pytest.raises(tcsparse.Error, match="cusparse"):  # lists the registered names
        tcsparse.method_info("no_such_method")


# ---- SpMV / SpMM on the CPU reference ----

@pytest.mark.parametrize("name, A", edge_matrices(), ids=[n for n, _ in edge_matrices()])
def test_cpu_spmv_equals_scipy_on_edge_shapes(name, A):
    plan = tcsparse.SpmvPlan(A, device="cpu")
    assert plan.method == "reference" and plan.device == "cpu" and plan.shape == A.shape
    x = random_values(A.shape[1], 11)
    y = plan(x)
    assert isinstance(y, np.ndarray) and y.shape == (A.shape[0],) and y.dtype == np.float64
    assert relative_error(y, A @ x) < 1e-14


@pytest.mark.parametrize("name, A", edge_matrices(), ids=[n for n, _ in edge_matrices()])
def test_cpu_spmm_equals_scipy_on_edge_shapes(name, A):
    n = 5
    plan = tcsparse.SpmmPlan(A, n, device="cpu")
    B = random_values((A.shape[1], n), 12)
    C = plan(B)
    assert C.shape == (A.shape[0], n)
    assert relative_error(C, A @ B) < 1e-14


@pytest.mark.parametrize("name, A", edge_matrices(), ids=[n for n, _ in edge_matrices()])
def test_cpu_spmm_takes_column_major_b_and_c(name, A):
    n = 5
    plan = tcsparse.SpmmPlan(A, n, device="cpu", layout="column_major")
    assert plan.layout == "column_major"
    B = np.asfortranarray(random_values((A.shape[1], n), 13))
    C0 = np.asfortranarray(random_values((A.shape[0], n), 14))
    C = C0.copy(order="F")
    assert plan(B, C, alpha=2.0, beta=-1.0) is C
    assert relative_error(C, 2.0 * (A @ B) - C0) < 1e-14
    allocated = plan(B)  # C=None: a new column-major C
    assert allocated.flags.f_contiguous and allocated.shape == (A.shape[0], n)
    assert relative_error(allocated, A @ B) < 1e-14


def test_a_plans_layout_is_the_one_its_operands_must_have():
    A = tcsparse.generate("random", rows=40, cols=30, min=0, max=12, seed=2)
    rows_first = tcsparse.SpmmPlan(A, 3, device="cpu")
    columns_first = tcsparse.SpmmPlan(A, 3, device="cpu", layout="column_major")
    assert rows_first.layout == "row_major"
    B = random_values((30, 3), 15)
    with pytest.raises(ValueError, match=r"B must be column-major \(F order.*got C order"):
        columns_first(B)
    with pytest.raises(ValueError, match="C must be column-major"):
        columns_first(np.asfortranarray(B), np.empty((40, 3)))
    with pytest.raises(ValueError, match=r"B must be contiguous \(C order\)"):
        rows_first(np.asfortranarray(B))
    with pytest.raises(ValueError, match="layout must be 'row_major' or 'column_major'"):
        tcsparse.SpmmPlan(A, 3, device="cpu", layout="F")
    # one column: each order is the other
    np.testing.assert_allclose(tcsparse.SpmmPlan(A, 1, device="cpu", layout="column_major")(
        B[:, :1].copy()), A @ B[:, :1], rtol=1e-14)


def test_an_fp16_plan_with_output_fp32_writes_c_in_float32():
    A = tcsparse.generate("random", rows=40, cols=30, min=0, max=12, seed=3)
    plan = tcsparse.SpmmPlan(A, 4, precision="fp16", device="cpu", output="fp32")
    assert plan.dtype == "float16" and plan.output_dtype == "float32"
    B = random_values((30, 4), 16, np.float16)
    C0 = random_values((40, 4), 17, np.float32)
    C = C0.copy()
    assert plan(B, C, alpha=2.0, beta=-1.0) is C
    reference = 2.0 * (rounded_to(A, np.float16) @ B.astype(np.float64)) - C0
    assert relative_error(C, reference) < 1e-6  # fp32's rounding only (fp16 C: about 1e-3)
    allocated = plan(B)
    assert allocated.dtype == np.float32 and allocated.shape == (40, 4)
    with pytest.raises(TypeError, match=r"C must be float32 \(the plan's output='fp32'\)"):
        plan(B, np.zeros((40, 4), np.float16))
    with pytest.raises(tcsparse.UnsupportedError, match="not fp64"):
        tcsparse.SpmmPlan(A, 4, device="cpu", output="fp32")
    same = tcsparse.SpmmPlan(A, 4, precision="fp32", device="cpu", output="fp32")
    assert same.output_dtype == "float32"
    with pytest.raises(ValueError, match="output must be 'input' or 'fp32'"):
        tcsparse.SpmmPlan(A, 4, device="cpu", output="float32")


def test_alpha_beta_and_the_given_output_is_written_in_place():
    A = tcsparse.generate("random", rows=40, cols=30, min=0, max=12, seed=1)
    plan = tcsparse.SpmvPlan(A, device="cpu")
    x = random_values(30, 1)
    y0 = random_values(40, 2)
    y = y0.copy()
    out = plan(x, y, alpha=2.5, beta=-0.5)
    assert out is y
    assert relative_error(y, 2.5 * (A @ x) - 0.5 * y0) < 1e-14
    poisoned = np.full(40, np.nan)
    plan(x, poisoned, beta=0.0)  # beta == 0 never reads y
    assert relative_error(poisoned, A @ x) < 1e-14


@pytest.mark.parametrize("dtype, precision", [(np.float64, "fp64"), (np.float32, "fp32"),
                                              (np.float16, "fp16")])
def test_precision_comes_from_the_matrix_dtype(dtype, precision):
    A = tcsparse.generate("banded", n=200, bandwidth=4, seed=2)
    A.data = A.data.astype(dtype).astype(np.float64)  # the values the plan sees, exactly
    # SciPy holds no float16: the tuple form carries any dtype.
    plan = tcsparse.SpmvPlan((A.indptr, A.indices, A.data.astype(dtype), A.shape), device="cpu")
    assert plan.precision == precision and plan.dtype == np.dtype(dtype).name
    x = random_values(200, 3, dtype)
    y = plan(x)
    assert y.dtype == dtype
    assert relative_error(y, A @ x.astype(np.float64)) < TOLERANCE[precision]


def test_precision_converts_the_matrix():
    A = tcsparse.generate("banded", n=100, bandwidth=2, seed=2)  # float64
    plan = tcsparse.SpmvPlan(A, precision="fp32", device="cpu")
    assert plan.precision == "fp32"
    assert plan(random_values(100, 1, np.float32)).dtype == np.float32
    assert tcsparse.SpmvPlan(A, precision=np.float16, device="cpu").precision == "fp16"
    with pytest.raises(ValueError, match="fp64, fp32, fp16, bf16"):
        tcsparse.SpmvPlan(A, precision="int8", device="cpu")


def test_bfloat16_on_the_host_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    A = tcsparse.generate("banded", n=64, bandwidth=2, seed=2)
    plan = tcsparse.SpmvPlan(A, precision="bf16", device="cpu")
    x = random_values(64, 1).astype(ml_dtypes.bfloat16)
    y = plan(x)
    assert y.dtype == ml_dtypes.bfloat16
    A.data = A.data.astype(ml_dtypes.bfloat16).astype(np.float64)  # the values the plan sees
    assert relative_error(y.astype(np.float64), A @ x.astype(np.float64)) < 1e-2


def test_every_matrix_kind_is_accepted():
    A = tcsparse.generate("random", rows=25, cols=35, min=0, max=7, seed=4)
    x = random_values(35, 5)
    expected = A @ x
    for form in (A, scipy.sparse.csr_matrix(A), A.tocoo(), A.tocsc(), scipy.sparse.coo_matrix(A),
                 (A.indptr, A.indices, A.data, A.shape),
                 (A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data, A.shape)):
        assert relative_error(tcsparse.SpmvPlan(form, device="cpu")(x), expected) < 1e-14


def test_unsorted_and_duplicate_scipy_entries_are_canonicalised_first():
    rows = np.array([0, 0, 1, 0]); cols = np.array([2, 0, 1, 2]); vals = np.array([1.0, 2, 3, 4])
    A = scipy.sparse.coo_array((vals, (rows, cols)), shape=(2, 3)).tocsr()
    A.has_canonical_format = False
    A.indices[:] = A.indices  # as left by the user
    x = np.array([0.5, -1.0, 2.0])
    assert relative_error(tcsparse.SpmvPlan(A, device="cpu")(x), A.toarray() @ x) < 1e-14


def test_torch_cpu_sparse_tensors_are_accepted():
    torch = pytest.importorskip("torch")
    A = tcsparse.generate("banded", n=30, bandwidth=2, seed=1)
    T = torch.sparse_csr_tensor(torch.from_numpy(A.indptr.astype(np.int64)),
                                torch.from_numpy(A.indices.astype(np.int64)),
                                torch.from_numpy(A.data), size=A.shape)
    x = random_values(30, 2)
    plan = tcsparse.SpmvPlan(T, device="cpu")
    y = plan(torch.from_numpy(x))
    assert isinstance(y, torch.Tensor)
    assert relative_error(y.numpy(), A @ x) < 1e-14


# ---- what a plan tells ----

def test_stats_is_a_dict_of_plan_stats():
    plan = tcsparse.SpmvPlan(tcsparse.generate("stencil2d", nx=8, ny=8), device="cpu")
    stats = plan.stats
    assert set(stats) == {"host_preprocess_ms", "upload_ms", "device_preprocess_ms",
                          "device_bytes", "stored_values", "padding_ratio", "details"}
    assert stats["stored_values"] == plan.nnz
    assert isinstance(stats["details"], dict) and stats["details"]["method"] == "reference"


def test_update_values_keeps_the_pattern():
    A = tcsparse.generate("random", rows=20, cols=20, min=1, max=6, seed=9)
    plan = tcsparse.SpmvPlan(A, device="cpu")
    assert plan.can_update_values
    new = random_values(A.nnz, 4)
    plan.update_values(new)
    B = scipy.sparse.csr_array((new, A.indices, A.indptr), shape=A.shape)
    x = random_values(20, 5)
    assert relative_error(plan(x), B @ x) < 1e-14
    with pytest.raises(ValueError, match=rf"\({A.nnz},\)"):
        plan.update_values(new[:-1])


def test_permute_and_unpermute_are_copies_in_the_callers_order():
    A = tcsparse.generate("banded", n=12, bandwidth=1)
    plan = tcsparse.SpmvPlan(A, device="cpu")
    assert plan.plan_row_order is False
    x = random_values(12, 1)
    np.testing.assert_array_equal(plan.permute(x), x)
    np.testing.assert_array_equal(plan.unpermute(plan.permute(x)), x)


# ---- wrong input: clear errors naming what was expected ----

@pytest.fixture
def plan():
    return tcsparse.SpmvPlan(tcsparse.generate("random", rows=8, cols=6, min=1, max=4, seed=1),
                             device="cpu")


def test_wrong_x_shape_names_the_expected_shape(plan):
    with pytest.raises(ValueError, match=r"x must have shape \(6,\); got \(7,\)"):
        plan(np.ones(7))
    with pytest.raises(ValueError, match=r"y must have shape \(8,\)"):
        plan(np.ones(6), np.ones(6))


def test_wrong_dtype_names_the_expected_dtype(plan):
    with pytest.raises(TypeError, match="x must be float64.*got float32"):
        plan(np.ones(6, dtype=np.float32))
    with pytest.raises(TypeError, match="y must be float64"):
        plan(np.ones(6), np.ones(8, dtype=np.int64))


def test_non_contiguous_arrays_are_refused(plan):
    with pytest.raises(ValueError, match="contiguous"):
        plan(np.ones(12)[::2])


def test_overlapping_x_and_y_are_refused():
    plan = tcsparse.SpmvPlan(tcsparse.generate("banded", n=6, bandwidth=1), device="cpu")
    x = np.ones(6)
    with pytest.raises(ValueError, match="overlap"):
        plan(x, x)


def test_beta_without_y_is_refused(plan):
    with pytest.raises(ValueError, match="beta"):
        plan(np.ones(6), beta=1.0)


def test_not_an_array_is_a_type_error(plan):
    with pytest.raises(TypeError, match="x: expected an array"):
        plan([1.0] * 6)
    with pytest.raises(TypeError, match="A: expected a SciPy sparse"):
        tcsparse.SpmvPlan(np.eye(3), device="cpu")


def test_matrix_of_integers_needs_a_precision():
    A = scipy.sparse.csr_array(np.eye(3, dtype=np.int64))
    with pytest.raises(TypeError, match="int64"):
        tcsparse.SpmvPlan(A, device="cpu")
    assert tcsparse.SpmvPlan(A, precision="fp64", device="cpu").precision == "fp64"


def test_invalid_tuple_matrix_is_a_validation_error():
    with pytest.raises(tcsparse.ValidationError):
        tcsparse.SpmvPlan((np.array([0, 2, 1], np.int32), np.array([0, 1], np.int32),
                           np.ones(2), (2, 2)), device="cpu")
    with pytest.raises(tcsparse.ValidationError, match="column"):
        tcsparse.SpmvPlan((np.array([0, 1], np.int32), np.array([5], np.int32), np.ones(1),
                           (1, 2)), device="cpu")
    with pytest.raises(ValueError, match="indptr must hold 3 entries"):
        tcsparse.SpmvPlan((np.array([0, 1], np.int32), np.array([0], np.int32), np.ones(1),
                           (2, 2)), device="cpu")


def test_cpu_plans_refuse_gpu_methods_parameters_and_streams(plan):
    A = tcsparse.generate("banded", n=6, bandwidth=1)
    with pytest.raises(ValueError, match="method='dasp' needs device='cuda'"):
        tcsparse.SpmvPlan(A, method="dasp", device="cpu")
    with pytest.raises(ValueError, match="no parameters"):
        tcsparse.SpmvPlan(A, device="cpu", parameters={"x": 1})
    with pytest.raises(ValueError, match="device"):
        tcsparse.SpmvPlan(A, device="tpu")
    with pytest.raises(ValueError, match="stream"):
        plan(np.ones(6), stream=5)
    with pytest.raises(ValueError, match="positive"):
        tcsparse.SpmmPlan(A, 0, device="cpu")


def test_auto_measure_is_accepted_and_the_cpu_reference_ignores_it():
    A = tcsparse.generate("banded", n=16, bandwidth=2)
    x = np.arange(16, dtype=np.float64)
    for measure in (True, False):
        y = tcsparse.SpmvPlan(A, device="cpu", auto_measure=measure)(x)
        np.testing.assert_allclose(y, A @ x, rtol=1e-12)
        C = tcsparse.SpmmPlan(A, 2, device="cpu", auto_measure=measure)(np.ones((16, 2)))
        np.testing.assert_allclose(C, A @ np.ones((16, 2)), rtol=1e-12)


# ---- without a GPU: GPU calls raise NoDeviceError ----

@pytest.mark.skipif(HAS_GPU, reason="checks the behaviour on a machine without a GPU")
@pytest.mark.parametrize("method", ["auto", "cusparse", "dasp", "csr_overlap"])
def test_gpu_plans_raise_no_device_error_without_a_gpu(method):
    A = tcsparse.generate("banded", n=16, bandwidth=2)
    with pytest.raises(tcsparse.NoDeviceError, match="no CUDA device found"):
        tcsparse.SpmvPlan(A, method=method)
    with pytest.raises(tcsparse.NoDeviceError):
        tcsparse.SpmmPlan(A, 8, method="cusparse" if method == "auto" else method)


@pytest.mark.skipif(HAS_GPU, reason="checks the behaviour on a machine without a GPU")
def test_an_unknown_method_is_an_error_listing_the_registered_ones():
    A = tcsparse.generate("banded", n=16, bandwidth=2)
    with pytest.raises(tcsparse.Error):
        tcsparse.SpmvPlan(A, method="no_such_method")


def test_error_hierarchy_mirrors_the_cpp_one():
    for name in ("ParseError", "ValidationError", "IndexOverflowError", "HostMemoryError",
                 "UnsupportedError", "ParameterError", "NoDeviceError", "CudaError",
                 "CusparseError"):
        assert issubclass(getattr(tcsparse, name), tcsparse.Error)
    assert issubclass(tcsparse.DeviceMemoryError, tcsparse.CudaError)
    assert issubclass(tcsparse.Error, RuntimeError)
