"""tcsparse: fast sparse matrix x vector (SpMV) and sparse x dense matrix (SpMM) products on
NVIDIA GPUs, with a CPU reference that runs anywhere.

    import numpy as np, tcsparse
    A = tcsparse.generate("stencil3d", nx=32, ny=32, nz=32)        # scipy.sparse.csr_array
    plan = tcsparse.SpmvPlan(A, device="cpu")                       # the CPU reference
    y = plan(np.ones(A.shape[1]))                                   # == A @ x (double accumulation)

    import cupy as cp                                               # on a GPU
    plan = tcsparse.SpmvPlan(A, method="auto")                      # preprocess + upload once
    y = plan(cp.ones(A.shape[1]))                                   # cupy in, cupy out, no copies

A plan is built once and applied many times. Matrices: SciPy sparse matrices and arrays,
cupyx.scipy.sparse matrices, PyTorch sparse CSR/COO tensors, or an (indptr, indices, data, shape)
tuple; GPU-resident input builds the plan on the GPU without a round trip through the host.
Vectors: any NumPy, CuPy, PyTorch or JAX array (DLPack or __cuda_array_interface__), used in
place. Errors of the library are tcsparse.Error and its subclasses, with the C++ message.
"""
from __future__ import annotations

import json
import math
import os
import sys
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np
import scipy.sparse

from . import _arrays
from . import _tcsparse as _core
from ._tcsparse import (  # the C++ error hierarchy (include/tcsparse/error.hpp)
    CudaError,
    CusparseError,
    DeviceMemoryError,
    Error,
    HostMemoryError,
    IndexOverflowError,
    NoDeviceError,
    ParameterError,
    ParseError,
    UnsupportedError,
    ValidationError,
)

__version__: str = _core.__version__

__all__ = [
    "Error", "ParseError", "ValidationError", "IndexOverflowError", "HostMemoryError",
    "UnsupportedError", "ParameterError", "NoDeviceError", "CudaError", "DeviceMemoryError",
    "CusparseError", "read_matrix", "generate", "generator_kinds", "methods", "method_info",
    "cuda_available", "SpmvPlan", "SpmmPlan",
    "stencil_2d_5pt", "stencil_3d_27pt", "poisson_3d", "rmat", "random_rows", "banded", "short_rows",
    "long_rows", "pruned_weights",
]

_AUTO = "auto"  # the library's automatic choice (Method("auto") in C++)


def _registry_names() -> List[str]:
    return [entry["name"] for entry in _core.method_table()]


def methods() -> List[str]:
    """Every method a plan can be built with, by name, as the C++ tcsparse::methods(): the
    registered methods, baselines first, and "auto" (the library's own choice)."""
    return _registry_names()


def method_info(name: Optional[str] = None) -> Union[List[Dict[str, Any]], Dict[str, Any]]:
    """What the registry says about every method (or the one named): name, description,
    baseline, the precisions of "spmv" and "spmm", and its parameters (name, type, default,
    accepted, help). An unknown name is a tcsparse.Error listing the registered ones."""
    table = _core.method_table()
    if name is None:
        return table
    for entry in table:
        if entry["name"] == name:
            return entry
    _core.check_parameters(name, [])  # raises Error naming the registered methods
    raise Error(f"unknown method '{name}'")


def cuda_available() -> bool:
    """True when the CUDA runtime finds a GPU (never raises)."""
    return _core.cuda_device_available()


# ---- matrices in: files and generators ---------------------------------------------------------

def _csr_array(parts: Tuple[int, int, np.ndarray, np.ndarray, np.ndarray]) -> scipy.sparse.csr_array:
    rows, cols, indptr, indices, data = parts
    matrix = scipy.sparse.csr_array((data, indices, indptr), shape=(rows, cols), copy=False)
    matrix.has_sorted_indices = True  # the library's CSR is canonical: sorted, no duplicates
    return matrix


def read_matrix(path: Union[str, os.PathLike], pattern_seed: int = 42) -> scipy.sparse.csr_array:
    """Reads a Matrix Market (.mtx, .mtx.gz) or DLMC (.smtx, .smtx.gz) file into a float64
    scipy.sparse.csr_array with int32 indices (duplicates summed, symmetric files expanded).
    Pattern and .smtx files get values drawn from `pattern_seed`. Reads with all cores, without
    the GIL. A malformed file raises tcsparse.ParseError naming the file and line."""
    return _csr_array(_core.read_matrix(os.fspath(path), int(pattern_seed)))


def generator_kinds() -> Dict[str, str]:
    """{kind: help} of every generator, parameters and defaults included."""
    return dict(_core.generator_kinds())


def generate(kind: str, **parameters: Any) -> scipy.sparse.csr_array:
    """A synthetic float64 matrix, deterministic from its `seed` parameter:
    ``generate("stencil3d", nx=64, ny=64, nz=64, seed=1)`` or the CLI's spec string
    ``generate("rmat:scale=16,edge_factor=8")``. Kinds: generator_kinds(). A bad kind or
    parameter raises tcsparse.Error naming it."""
    if ":" in kind:
        if parameters:
            raise TypeError("generate: give either a 'kind:key=value,...' spec or keyword "
                            "parameters, not both")
        kind, spec_parameters = _core.parse_generator_spec(kind)
        parameters = dict(spec_parameters)
    return _csr_array(_core.generate(kind, {k: _parameter_text(v) for k, v in parameters.items()}))


def _parameter_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def _seeded(parameters: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in parameters.items() if v is not None}


def stencil_2d_5pt(nx: int, ny: int, seed: Optional[int] = None) -> scipy.sparse.csr_array:
    """2D Poisson 5-point stencil on an nx x ny grid (nx*ny rows)."""
    return generate("stencil2d", **_seeded(dict(nx=nx, ny=ny, seed=seed)))


def stencil_3d_27pt(nx: int, ny: int, nz: int, seed: Optional[int] = None) -> scipy.sparse.csr_array:
    """3D 27-point stencil on an nx x ny x nz grid (nx*ny*nz rows)."""
    return generate("stencil3d", **_seeded(dict(nx=nx, ny=ny, nz=nz, seed=seed)))


def poisson_3d(nx: int, ny: Optional[int] = None, nz: Optional[int] = None) -> scipy.sparse.csr_array:
    """3D Poisson 7-point Laplacian on an nx x ny x nz grid (ny, nz default to nx): 6 on the
    diagonal, -1 off, symmetric positive definite; fixed values (no seed)."""
    return generate("poisson3d", **_seeded(dict(nx=nx, ny=ny, nz=nz)))


def rmat(scale: int, edge_factor: int = 16, seed: Optional[int] = None) -> scipy.sparse.csr_array:
    """R-MAT power-law graph (Graph500 parameters) with 2^scale vertices."""
    return generate("rmat", **_seeded(dict(scale=scale, edge_factor=edge_factor, seed=seed)))


def random_rows(rows: int, cols: int, min_length: int, max_length: int, dist: str = "uniform",
                exponent: float = 2.0, seed: Optional[int] = None) -> scipy.sparse.csr_array:
    """Row lengths drawn from dist ("uniform", "normal", "power_law") in [min_length, max_length],
    columns uniform without repetition."""
    return generate("random", **_seeded(dict(rows=rows, cols=cols, dist=dist, min=min_length,
                                             max=max_length, exponent=exponent, seed=seed)))


def banded(n: int, bandwidth: int, seed: Optional[int] = None) -> scipy.sparse.csr_array:
    """n x n with every entry |i - j| <= bandwidth."""
    return generate("banded", **_seeded(dict(n=n, bandwidth=bandwidth, seed=seed)))


def short_rows(rows: int, cols: int, seed: Optional[int] = None) -> scipy.sparse.csr_array:
    """Rows of 1..4 entries each (the short-row case)."""
    return generate("short", **_seeded(dict(rows=rows, cols=cols, seed=seed)))


def long_rows(rows: int, cols: int, length: int, seed: Optional[int] = None) -> scipy.sparse.csr_array:
    """Rows of exactly `length` entries each."""
    return generate("long", **_seeded(dict(rows=rows, cols=cols, length=length, seed=seed)))


def pruned_weights(rows: int, cols: int, sparsity: float,
                   seed: Optional[int] = None) -> scipy.sparse.csr_array:
    """A DLMC-like pruned weight matrix: entries kept with probability 1 - sparsity."""
    return generate("pruned", **_seeded(dict(rows=rows, cols=cols, sparsity=sparsity, seed=seed)))


# ---- matrices into plans ----------------------------------------------------------------------

def _parse_precision(precision: Any) -> Optional[str]:
    if precision is None:
        return None
    text = precision if isinstance(precision, str) else _arrays.dtype_name(precision)
    found = _arrays.PRECISION_ALIASES.get(text.lower())
    if found is None:
        raise ValueError(f"precision {precision!r}: expected None (from A's dtype) or one of "
                         f"{_arrays.ACCEPTED_PRECISIONS}")
    return found


def _parse_device(device: Any) -> Tuple[str, Optional[int]]:
    text = str(device)
    if text == "cpu":
        return "cpu", None
    if text == "cuda":
        return "cuda", None
    if text.startswith("cuda:") and text[5:].isdigit():
        return "cuda", int(text[5:])
    raise ValueError(f"device {device!r}: expected 'cpu', 'cuda' or 'cuda:N'")


def _host_numpy_dtype(precision: str) -> np.dtype:
    name = _arrays.DTYPE_OF_PRECISION[precision]
    if name == "bfloat16":
        try:
            import ml_dtypes  # noqa: F401  (registers numpy's bfloat16)
            return np.dtype(ml_dtypes.bfloat16)
        except ImportError:
            raise TypeError("bf16 host arrays need ml_dtypes (pip install ml_dtypes); or pass "
                            "torch bfloat16 tensors") from None
    return np.dtype(name)


class _Csr:
    """A CSR matrix as the extension takes it: int32 offsets and columns, values of the plan's
    precision, all on the host or all on one GPU; the arrays are kept alive here."""

    def __init__(self, rows, cols, indptr, indices, data, precision, on_device, device_id):
        self.rows, self.cols = int(rows), int(cols)
        self.indptr, self.indices, self.data = indptr, indices, data
        self.precision, self.on_device, self.device_id = precision, on_device, device_id
        self.views = [_arrays.describe(a, n) for a, n in
                      ((indptr, "indptr"), (indices, "indices"), (data, "data"))]
        self.nnz = int(self.views[1].shape[0]) if self.views[1].shape else 0
        _check_csr_views(self)


def _check_csr_views(csr: _Csr) -> None:
    indptr, indices, data = csr.views
    for view, name, length, dtype in ((indptr, "indptr", csr.rows + 1, "int32"),
                                      (indices, "indices", None, "int32"),
                                      (data, "data", csr.nnz, _arrays.DTYPE_OF_PRECISION[csr.precision])):
        if len(view.shape) != 1:
            raise ValueError(f"A's {name} must be 1-D; got shape {view.shape}")
        if length is not None and view.shape[0] != length:
            raise ValueError(f"A's {name} must hold {length} entries; got {view.shape[0]}")
        if view.dtype != dtype:
            raise TypeError(f"A's {name} must be {dtype}; got {view.dtype}")
        if not view.is_c_contiguous():
            raise ValueError(f"A's {name} must be contiguous")
        if view.on_device != csr.on_device:
            raise ValueError(f"A's indptr, indices and data must all be on the host or all on "
                             f"the GPU; {name} is on {view.where()}")


def _index32(array: Any, library: str, name: str) -> Any:
    """int32 indices in the same library and place (int64 -> int32 on the device if need be)."""
    kind = _arrays.describe(array, name).dtype
    if kind == "int32":
        return array
    if kind not in ("int64", "int16", "int8", "uint16", "uint8"):
        raise TypeError(f"A's {name} must be integers; got {kind}")
    if library not in ("numpy", "torch", "cupy"):
        raise TypeError(f"A's {name} must be int32 (tcsparse converts only NumPy, CuPy and torch "
                        f"arrays); got {kind}")
    if len(array) and int(array.max()) > np.iinfo(np.int32).max:
        raise IndexOverflowError(f"A's {name} hold values above 2^31-1: GPU plans take 32-bit "
                                 "indices")
    if library == "torch":
        return array.to(sys.modules["torch"].int32).contiguous()
    return array.astype(np.int32)


def _values_as(data: Any, library: str, precision: Optional[str]) -> Tuple[Any, str]:
    """(data in the precision, the precision): None takes it from data's dtype."""
    kind = _arrays.describe(data, "data").dtype
    if precision is None:
        precision = _arrays.PRECISION_OF_DTYPE.get(kind)
        if precision is None:
            raise TypeError(f"A's dtype {kind} is not one tcsparse computes in (float64, float32, "
                            "float16, bfloat16): pass precision= to convert, or A.astype(...)")
        return data, precision
    if _arrays.PRECISION_OF_DTYPE.get(kind) == precision:
        return data, precision
    if library == "torch":
        torch = sys.modules["torch"]
        return data.to(getattr(torch, _arrays.DTYPE_OF_PRECISION[precision])).contiguous(), precision
    if library == "cupy":
        if precision == "bf16":
            raise TypeError("CuPy has no bfloat16: pass a torch tensor or a float16/32/64 matrix")
        return data.astype(_arrays.DTYPE_OF_PRECISION[precision]), precision
    if library != "numpy":
        raise TypeError(f"A's data is {kind}, the plan's precision {precision}: tcsparse converts "
                        "only NumPy, CuPy and torch arrays; pass data of the plan's dtype")
    return np.asarray(data).astype(_host_numpy_dtype(precision)), precision


def _to_csr(A: Any, precision: Optional[str]) -> _Csr:
    """Any accepted matrix as a _Csr, without leaving the device it is on."""
    module = type(A).__module__
    if scipy.sparse.issparse(A):
        csr = A.tocsr() if A.format != "csr" else A
        if not csr.has_canonical_format:
            csr = csr.copy()
            csr.sum_duplicates()  # sorts the columns too, as the library requires
        data, precision = _values_as(csr.data, "numpy", precision)
        return _Csr(csr.shape[0], csr.shape[1], _index32(csr.indptr, "numpy", "indptr"),
                    _index32(csr.indices, "numpy", "indices"), np.ascontiguousarray(data),
                    precision, False, None)
    if module.startswith("cupyx.scipy.sparse") or (module.startswith("cupy") and hasattr(A, "tocsr")):
        csr = A.tocsr() if A.format != "csr" else A
        if not csr.has_canonical_format:
            csr = csr.copy()
            csr.sum_duplicates()
        data, precision = _values_as(csr.data, "cupy", precision)
        return _Csr(csr.shape[0], csr.shape[1], _index32(csr.indptr, "cupy", "indptr"),
                    _index32(csr.indices, "cupy", "indices"), data, precision, True,
                    int(csr.data.device.id))
    if module.startswith("torch") and hasattr(A, "layout"):
        torch = sys.modules["torch"]
        if A.layout == torch.sparse_coo:
            A = A.coalesce().to_sparse_csr()
        if A.layout != torch.sparse_csr:
            raise TypeError(f"A: expected a sparse torch tensor (sparse_csr or sparse_coo layout); "
                            f"got layout {A.layout}")
        if A.dim() != 2:
            raise ValueError(f"A must be 2-D; got a {A.dim()}-D sparse tensor")
        data, precision = _values_as(A.values().contiguous(), "torch", precision)
        on_device = A.device.type == "cuda"
        return _Csr(A.shape[0], A.shape[1],
                    _index32(A.crow_indices().contiguous(), "torch", "crow_indices"),
                    _index32(A.col_indices().contiguous(), "torch", "col_indices"), data,
                    precision, on_device, A.device.index if on_device else None)
    if isinstance(A, tuple) and len(A) == 4:
        indptr, indices, data, shape = A
        if len(shape) != 2:
            raise ValueError(f"A's shape must be (rows, cols); got {shape!r}")
        views = [_arrays.describe(a, n) for a, n in ((indptr, "indptr"), (indices, "indices"),
                                                     (data, "data"))]
        on_device = views[2].on_device
        if not on_device:
            indptr, indices, data = (np.asarray(a) if v.library != "torch" else a.numpy()
                                     for a, v in zip((indptr, indices, data), views))
            library = "numpy"
        else:
            library = views[2].library
        data, precision = _values_as(data, library, precision)
        return _Csr(shape[0], shape[1], _index32(indptr, library, "indptr"),
                    _index32(indices, library, "indices"), data, precision, on_device,
                    views[2].device_id)
    raise TypeError("A: expected a SciPy sparse matrix or array, a cupyx.scipy.sparse matrix, a "
                    "torch sparse CSR/COO tensor, or an (indptr, indices, data, shape) tuple; got "
                    f"{type(A).__name__}")


# ---- plans ------------------------------------------------------------------------------------

class _Plan:
    """What SpmvPlan and SpmmPlan share: building, checking arrays, stats, update_values."""

    _operation = "spmv"
    # how the operands of a call are stored: "row_major" (C order), or "column_major" (F order)
    # for an SpmmPlan built so; C's type: "input" (the plan's dtype), or "fp32" for an SpmmPlan
    # of fp16 / bf16 built so
    _layout = "row_major"
    _output = "input"

    def __init__(self, A: Any, n: int, method: str, precision: Any, device: Any,
                 parameters: Optional[Mapping[str, Any]], auto_measure: bool) -> None:
        if not isinstance(method, str):
            raise TypeError(f"method must be a name (str), one of tcsparse.methods(); got "
                            f"{type(method).__name__}")
        self._device, ordinal = _parse_device(device)
        csr = _to_csr(A, _parse_precision(precision))
        parameter_list = [f"{k}={_parameter_text(v)}" for k, v in (parameters or {}).items()]
        self.requested_method: str = method
        if self._device == "cpu":
            if method not in (_AUTO, "reference"):
                raise ValueError(f"device='cpu' runs the CPU reference only; method={method!r} "
                                 "needs device='cuda' (use method='auto' or 'reference')")
            if parameter_list:
                raise ValueError("device='cpu' runs the CPU reference, which has no parameters")
            if csr.on_device:
                raise ValueError(f"device='cpu' needs a host matrix; A is on {csr.views[2].where()} "
                                 "(pass A.get() for CuPy, A.cpu() for torch)")
            registry_method, ordinal = "reference", 0
        else:
            registry_method = method
            if csr.on_device:
                if ordinal is not None and csr.device_id is not None and ordinal != csr.device_id:
                    raise ValueError(f"device='cuda:{ordinal}' but A is on cuda:{csr.device_id}")
                ordinal = csr.device_id if ordinal is None else ordinal
            ordinal = 0 if ordinal is None else ordinal
        self._ordinal = ordinal
        self.shape: Tuple[int, int] = (csr.rows, csr.cols)
        self.nnz: int = csr.nnz
        self.precision: str = csr.precision
        self.dtype: str = _arrays.DTYPE_OF_PRECISION[csr.precision]
        if csr.on_device:
            # The library reads device CSR on the legacy default stream: finish the work queued
            # on the caller's current stream first (its writes of A, our int32/dtype conversions).
            _arrays.synchronize_current_stream(csr.views[2])
        self._plan = _core.build_plan(
            self._operation, csr.precision, csr.rows, csr.cols, csr.nnz, n,
            csr.views[0].address, csr.views[1].address, csr.views[2].address,
            self._device, csr.on_device, ordinal, registry_method, parameter_list,
            bool(auto_measure), self._layout, self._output)
        # A plan from device CSR may read the arrays at every call (csr_overlap borrows them,
        # device_csr=auto): they live as long as the plan, the int32/dtype copies made above too.
        self._device_matrix = csr if csr.on_device else None
        self.method: str = self._plan.method()
        # The operands of a call: (x, y) for SpMV, (B, C) for SpMM.
        self._names = ("x", "y") if self._operation == "spmv" else ("B", "C")
        self._shapes = ((self.shape[1],), (self.shape[0],)) if self._operation == "spmv" else \
            ((self.shape[1], n), (self.shape[0], n))
        # The dtypes of x and y (B and C): C in fp32 for an fp16 / bf16 plan built so.
        y_dtype = "float32" if self._output == "fp32" else self.dtype
        self._dtypes = (self.dtype, y_dtype)
        self._bytes = tuple(math.prod(shape) * _ITEM_BYTES[dtype]
                            for shape, dtype in zip(self._shapes, self._dtypes))

    @property
    def device(self) -> str:
        """'cpu' or 'cuda:N': where the plan runs and where its arrays must be."""
        return "cpu" if self._device == "cpu" else f"cuda:{self._ordinal}"

    @property
    def stats(self) -> Dict[str, Any]:
        """What building the plan cost and what it holds (PlanStats): host_preprocess_ms,
        upload_ms, device_preprocess_ms, device_bytes, stored_values, padding_ratio, and details
        (the method's own statistics as a dict)."""
        s = self._plan.stats()
        return {"host_preprocess_ms": s.host_preprocess_ms, "upload_ms": s.upload_ms,
                "device_preprocess_ms": s.device_preprocess_ms, "device_bytes": s.device_bytes,
                "stored_values": s.stored_values, "padding_ratio": s.padding_ratio,
                "details": json.loads(s.details_json)}

    @property
    def can_update_values(self) -> bool:
        """Whether update_values works for this plan's method (not for hbp, tca's tiles kernel
        or a csr_overlap plan that borrows its arrays)."""
        return self._plan.can_update_values()

    def update_values(self, values: Any, stream: Any = None) -> None:
        """Replaces A's nnz values (in the CSR order of A with sorted columns), keeping its
        pattern. Device values: asynchronous on `stream`; host values (on a GPU plan): uploaded
        and waited for. A plan that cannot take them (can_update_values) raises
        UnsupportedError."""
        view = _arrays.describe(values, "values")
        self._check(view, "values", (self.nnz,), allow_host=True)
        self._plan.update_values(view.address, view.on_device, self._stream(stream, view))

    # -- checks shared by every call --

    def _check(self, view: _arrays.ArrayView, name: str, shape: Tuple[int, ...],
               allow_host: bool = False, column_major: bool = False,
               dtype: Optional[str] = None) -> None:
        expected = self.dtype if dtype is None else dtype
        if view.dtype != expected:
            why = f"the plan's precision {self.precision}" if expected == self.dtype else \
                "the plan's output='fp32'"
            raise TypeError(f"{name} must be {expected} ({why}); got {view.dtype}")
        if view.shape != shape:
            raise ValueError(f"{name} must have shape {shape}; got {view.shape}")
        if column_major and not view.is_f_contiguous():
            strides = "C order" if view.strides is None else f"strides {view.strides}"
            raise ValueError(f"{name} must be column-major (F order, {name}.T contiguous: the "
                             f"plan's layout='column_major'); got {strides} (in elements)")
        if not column_major and not view.is_c_contiguous():
            raise ValueError(f"{name} must be contiguous (C order); got strides {view.strides} "
                             "(in elements): pass a contiguous copy")
        if self._device == "cpu":
            if view.on_device:
                raise ValueError(f"{name} is on {view.where()} but the plan runs on the CPU "
                                 "(device='cpu'): pass a host array (NumPy)")
        else:
            if not view.on_device and not allow_host:
                raise ValueError(f"{name} is a host array ({view.library}) but the plan runs on "
                                 f"{self.device}: pass a CUDA array (CuPy, PyTorch, JAX), or build "
                                 "the plan with device='cpu'")
            if view.on_device and view.device_id is not None and view.device_id != self._ordinal:
                raise ValueError(f"{name} is on {view.where()} but the plan runs on {self.device}")

    def _stream(self, stream: Any, model: _arrays.ArrayView) -> int:
        if self._device == "cpu":
            if stream is not None:
                raise ValueError("stream: a device='cpu' plan runs synchronously; pass None")
            return 0
        return _arrays.stream_address(stream, model)

    def _apply(self, x: Any, y: Any, alpha: float, beta: float, stream: Any) -> Any:
        """y = alpha * A @ x + beta * y (B for x, C for y in SpMM). A call whose arrays are like
        those of the last call that passed the checks (the same type, dtype, shape, strides and
        device: signatures) is applied by the extension without them (module.cpp, "the fast path
        of a plan call"); any other call takes _checked_apply."""
        if stream is not None and type(stream) is not int:
            stream = _arrays.stream_handle(stream)
        if self._plan.apply_accepted(x, y, alpha, beta, stream):
            return y
        return self._checked_apply(x, y, alpha, beta, stream)

    def _checked_apply(self, x: Any, y: Any, alpha: float, beta: float, stream: Any) -> Any:
        """_apply with every check; remembers the signatures of the arrays it accepted."""
        (x_name, y_name), (x_shape, y_shape) = self._names, self._shapes
        column_major = self._layout == "column_major"
        x_view = _arrays.describe(x, x_name)
        self._check(x_view, x_name, x_shape, column_major=column_major)
        y_given = y is not None
        if not y_given:
            if beta != 0:
                raise ValueError(f"beta={beta} reads {y_name}: pass {y_name}=")
            y_dtype = None if self._dtypes[1] == self.dtype else self._dtypes[1]
            if column_major:  # the transpose of a C-ordered (n, rows) array
                y = _arrays.empty_like_library(x_view, y_shape[::-1], y_name, y_dtype).T
            else:
                y = _arrays.empty_like_library(x_view, y_shape, y_name, y_dtype)
        y_view = _arrays.describe(y, y_name)
        self._check(y_view, y_name, y_shape, column_major=column_major, dtype=self._dtypes[1])
        if _overlap(x_view, y_view):
            raise ValueError(f"{x_name} and {y_name} must not overlap")
        self._plan.apply(x_view.address, y_view.address, float(alpha), float(beta),
                         self._stream(stream, y_view))
        if y_given:  # (a call without y never takes the fast path)
            self._remember(x, y, y_view)
        return y

    def _remember(self, x: Any, y: Any, y_view: _arrays.ArrayView) -> None:
        """Lets the extension apply later calls with arrays like x and y (just checked)."""
        if 0 in self._bytes:
            return  # no fast path for empty operands (their address is 0 when checked)
        x_read, y_read = _core.array_signature(x), _core.array_signature(y)
        if x_read is None or y_read is None:
            return  # arrays of types the extension does not read (NumPy, JAX, CAI, ...)
        on_gpu = self._device != "cpu"
        current_stream = _arrays.current_stream_reader(y_view) if on_gpu else None
        self._plan.accept(x_read[1], y_read[1], *self._bytes, current_stream, on_gpu)


_ITEM_BYTES = {"float64": 8, "float32": 4, "float16": 2, "bfloat16": 2}


def _overlap(a: _arrays.ArrayView, b: _arrays.ArrayView) -> bool:
    if a.on_device != b.on_device:
        return False
    # math.prod, not np.prod: a few hundred ns against microseconds, on every checked call
    size_a = math.prod(a.shape) * _ITEM_BYTES.get(a.dtype, 2)
    size_b = math.prod(b.shape) * _ITEM_BYTES.get(b.dtype, 2)
    return size_a > 0 and size_b > 0 and a.address < b.address + size_b and b.address < a.address + size_a


class SpmvPlan(_Plan):
    """y = alpha * A @ x + beta * y, A prepared once for `method`.

    A: a SciPy sparse matrix/array, a cupyx.scipy.sparse matrix, a torch sparse CSR/COO tensor or
    an (indptr, indices, data, shape) tuple. GPU-resident A is checked and prepared on the GPU
    (no host round trip for csr_overlap, dasp, hbp, cusparse, cublas_dense and tca's rows and
    tiles kernels; tca's paper kernel and a tca tile layout built on the host download it once).
    csr_overlap borrows
    GPU-resident A's arrays (parameter device_csr, default auto): the plan keeps them alive and
    reads them at every call, so values written into A.data in place take effect at the next
    call (device_csr="copy" keeps a copy instead, and allows update_values).
    method: a name from tcsparse.methods(); "auto" lets the library choose (plan.method says
    what it chose). precision: None (from A's dtype), "fp64", "fp32", "fp16", "bf16" or a dtype;
    A is converted if it differs. device: "cuda", "cuda:N" or "cpu" (the CPU reference, double
    accumulation, on NumPy arrays). parameters: the method's options, e.g.
    {"max_medium_row_length": 128} (tcsparse.method_info(name)["parameters"]).
    auto_measure: under method="auto", True (default) builds the rule's best-ranked methods and
    cuSPARSE, times a few calls of each on A and keeps the fastest (plan.stats["details"]["auto"]
    lists the times); False builds the rule's first choice only, for plans rebuilt so often that
    the build matters more than the call.
    Building releases the GIL. Raises NoDeviceError on a machine without a GPU (device="cuda"),
    UnsupportedError for a precision the method lacks, ParameterError for a bad parameter,
    ValidationError for an invalid matrix.
    """

    _operation = "spmv"

    def __init__(self, A: Any, method: str = "auto", precision: Any = None, device: Any = "cuda",
                 parameters: Optional[Mapping[str, Any]] = None,
                 auto_measure: bool = True) -> None:
        super().__init__(A, 0, method, precision, device, parameters, auto_measure)

    def __call__(self, x: Any, y: Any = None, alpha: float = 1.0, beta: float = 0.0,
                 stream: Any = None) -> Any:
        """y = alpha * A @ x + beta * y. x: cols values, y: rows values, both contiguous arrays of
        the plan's dtype on the plan's device, used in place (no copies). y=None allocates one in
        x's library (NumPy, CuPy, torch). stream: None (the current stream of y's library; the
        legacy default stream for other libraries), an int cudaStream_t, or a torch / CuPy
        stream. Asynchronous on the GPU: the result is ready when the stream reaches it.
        beta == 0 never reads y's old contents. Returns y."""
        return self._apply(x, y, alpha, beta, stream)

    @property
    def plan_row_order(self) -> bool:
        """Whether the plan works in its own row order (dasp's row_order=plan): y, and x too for a
        square A, are then in plan order; convert with permute / unpermute."""
        return self._plan.plan_row_order()

    def permute(self, caller_order: Any, out: Any = None, stream: Any = None) -> Any:
        """out[p] = caller_order[row of plan position p] (rows values; a copy for a plan in the
        caller's order). Returns out."""
        return self._reorder(self._plan.permute, caller_order, out, stream)

    def unpermute(self, plan_order: Any, out: Any = None, stream: Any = None) -> Any:
        """The inverse of permute. Returns out."""
        return self._reorder(self._plan.unpermute, plan_order, out, stream)

    def _reorder(self, function, source: Any, out: Any, stream: Any) -> Any:
        shape = (self.shape[0],)
        view = _arrays.describe(source, "input")
        self._check(view, "input", shape)
        if out is None:
            out = _arrays.empty_like_library(view, shape, "out")
        out_view = _arrays.describe(out, "out")
        self._check(out_view, "out", shape)
        if _overlap(view, out_view):
            raise ValueError("input and out must not overlap")
        function(view.address, out_view.address, self._stream(stream, out_view))
        return out


class SpmmPlan(_Plan):
    """C = alpha * A @ B + beta * C with B (cols x n) and C (rows x n).

    layout: how B and C are stored, both the same way: "row_major" (default; C order) or
    "column_major" (F order: B.T and C.T contiguous). Column-major is what a model's
    Y = X @ W.T gives with X and Y row-major: plan = SpmmPlan(W, n=X.shape[0],
    layout="column_major"); plan(X.T, Y.T) writes Y, no copies (the README says how each
    method's speed depends on the layout). output: C's type, "input" (default: the plan's
    dtype) or "fp32" (fp16 / bf16 plans: C in float32, the fp32 accumulators written as they
    are; fp32 plans: the same as "input"; fp64 plans: UnsupportedError). As SpmvPlan otherwise
    (A, method, precision, device, parameters, auto_measure)."""

    _operation = "spmm"

    def __init__(self, A: Any, n: int, method: str = "auto", precision: Any = None,
                 device: Any = "cuda", parameters: Optional[Mapping[str, Any]] = None,
                 auto_measure: bool = True, layout: str = "row_major",
                 output: str = "input") -> None:
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError(f"n (the columns of B) must be a positive int; got {n!r}")
        if layout not in ("row_major", "column_major"):
            raise ValueError(f"layout must be 'row_major' or 'column_major'; got {layout!r}")
        if output not in ("input", "fp32"):
            raise ValueError(f"output must be 'input' or 'fp32'; got {output!r}")
        self.n: int = int(n)
        self._layout = layout
        self._output = output
        super().__init__(A, self.n, method, precision, device, parameters, auto_measure)
        # C's dtype: float32 for an fp16 / bf16 plan with output="fp32", else the plan's dtype
        self.output_dtype: str = self._dtypes[1]

    @property
    def layout(self) -> str:
        """How B and C are stored: "row_major" or "column_major"."""
        return self._layout

    def __call__(self, B: Any, C: Any = None, alpha: float = 1.0, beta: float = 0.0,
                 stream: Any = None) -> Any:
        """C = alpha * A @ B + beta * C; B of shape (cols, n) and the plan's dtype, C of shape
        (rows, n) and output_dtype, both stored as the plan's layout says (C-contiguous, or
        F-contiguous for layout="column_major"; C=None allocates one so). As SpmvPlan.__call__
        otherwise. Returns C."""
        return self._apply(B, C, alpha, beta, stream)
