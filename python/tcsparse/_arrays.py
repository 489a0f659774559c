"""Arrays of any library, seen as (address, shape, dtype, device) without copying them.

Every array tcsparse takes goes through `describe`: NumPy, PyTorch (CPU or CUDA) and CuPy arrays
through their own attributes (the cheapest path: a plan call describes two arrays); anything else
with ``__cuda_array_interface__`` through that dictionary; JAX and any other DLPack producer
through ``__dlpack__`` (read by the extension module, no copy); other host arrays through
``__array_interface__``.
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from . import _tcsparse as _core

# The value dtypes tcsparse computes in, by their canonical names, and the precision each means.
PRECISION_OF_DTYPE = {"float64": "fp64", "float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}
DTYPE_OF_PRECISION = {p: d for d, p in PRECISION_OF_DTYPE.items()}
PRECISION_ALIASES = {
    "fp64": "fp64", "double": "fp64", "float64": "fp64",
    "fp32": "fp32", "float": "fp32", "float32": "fp32", "single": "fp32",
    "fp16": "fp16", "half": "fp16", "float16": "fp16",
    "bf16": "bf16", "bfloat16": "bf16",
}
ACCEPTED_PRECISIONS = "fp64, fp32, fp16, bf16 (or the dtypes float64, float32, float16, bfloat16)"

# DLPack dtype codes (dlpack.h: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4) and device types.
_DLPACK_DTYPES = {(0, 32): "int32", (0, 64): "int64", (2, 64): "float64", (2, 32): "float32",
                  (2, 16): "float16", (4, 16): "bfloat16"}
_DLPACK_CPU, _DLPACK_CUDA, _DLPACK_CUDA_HOST, _DLPACK_CUDA_MANAGED = 1, 2, 3, 13


def dtype_name(dtype: Any) -> str:
    """'float64', 'float32', 'float16', 'bfloat16', 'int32', ... for a NumPy, CuPy or torch dtype."""
    text = str(dtype)
    if text.startswith("torch."):
        text = text[len("torch."):]
        return {"double": "float64", "float": "float32", "half": "float16", "int": "int32",
                "long": "int64"}.get(text, text)
    try:
        return np.dtype(dtype).name
    except TypeError:
        return text


@dataclass
class ArrayView:
    """Where an array's elements are and how they are laid out."""
    obj: Any                      # the caller's object (kept alive while its address is used)
    address: int
    shape: Tuple[int, ...]
    strides: Optional[Tuple[int, ...]]  # in elements; None: C-contiguous
    dtype: str                    # dtype_name()
    on_device: bool               # CUDA device (or managed) memory
    device_id: Optional[int]      # CUDA ordinal where known
    library: str                  # "numpy", "torch", "cupy", "cai", "dlpack"

    def is_c_contiguous(self) -> bool:
        if self.strides is None or 0 in self.shape:
            return True
        return _dense(reversed(self.shape), reversed(self.strides))

    def is_f_contiguous(self) -> bool:
        """Column-major (Fortran order): the first index varies fastest, as in a.T of a C-ordered
        array."""
        if 0 in self.shape or sum(extent != 1 for extent in self.shape) <= 1:
            return True
        return self.strides is not None and _dense(self.shape, self.strides)

    def where(self) -> str:
        if not self.on_device:
            return "host"
        return "cuda" if self.device_id is None else f"cuda:{self.device_id}"


def _dense(extents: Any, strides: Any) -> bool:
    """Whether elements lie one after the other with the first of `extents` varying fastest
    (strides in elements; those of extents of 1 do not matter)."""
    expected = 1
    for extent, stride in zip(extents, strides):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


# ---- fast paths: NumPy, torch and CuPy arrays read through their own attributes ------------------
#
# A plan call describes two arrays, so what describing costs is paid twice per call. The generic
# ways are slow for what they tell: __cuda_array_interface__ builds a dict (CuPy reads the current
# stream for it), DLPack makes a capsule, np.dtype.name runs Python code (2 us in NumPy 2). The
# fast paths below read the same facts from the array's own attributes, and are found by the
# array's exact type, learnt the first time a type is seen (we never import torch or CuPy
# ourselves: an array of theirs means the caller did). Every other object takes _describe_other.
#
# The types learnt here are also named to the extension (_core.learn_array_type), whose fast path
# of a plan call reads their signatures: the facts view() reads, less the address (module.cpp,
# read_signature). A change of what view() reads is a change of the signature there too.

_VIEW_OF_TYPE: Dict[type, Callable[[Any], ArrayView]] = {}
_NAME_OF_NUMPY_DTYPE: Dict[Any, str] = {}  # np.dtype -> its name (cached: .name is slow)
_DTYPE_OF_TYPESTR: Dict[str, Tuple[str, int]] = {}  # CAI typestr -> (dtype name, itemsize)


def _numpy_dtype_name(dtype: np.dtype) -> str:
    name = _NAME_OF_NUMPY_DTYPE.get(dtype)
    if name is None:
        name = _NAME_OF_NUMPY_DTYPE[dtype] = dtype.name
    return name


def _element_strides(byte_strides: Tuple[int, ...], itemsize: int) -> Tuple[int, ...]:
    """Strides in elements; a stride of a partial element (a field of a structured array) would
    otherwise round down to look contiguous."""
    if any(s % itemsize for s in byte_strides):
        raise ValueError("array strides are not a multiple of its element size")
    return tuple(s // itemsize for s in byte_strides)


def _numpy_view(a: np.ndarray) -> ArrayView:
    itemsize = a.itemsize
    # C-contiguous arrays need no strides (None means C order); the others are checked exactly
    contiguous = a.flags.c_contiguous or not itemsize
    strides = None if contiguous else _element_strides(a.strides, itemsize)
    return ArrayView(a, a.__array_interface__["data"][0], a.shape, strides,
                     _numpy_dtype_name(a.dtype), False, None, "numpy")


_VIEW_OF_TYPE[np.ndarray] = _numpy_view


class _TorchFastPath:
    """torch.Tensor read through data_ptr(), shape, stride(), dtype, is_cuda and get_device()."""

    def __init__(self, torch: Any) -> None:
        self.torch = torch
        self.strided = torch.strided
        self.dtype_names = {torch.float64: "float64", torch.float32: "float32",
                            torch.float16: "float16", torch.bfloat16: "bfloat16",
                            torch.int32: "int32", torch.int64: "int64"}
        # torch.cuda.current_stream(i).cuda_stream builds a Stream object through several Python
        # calls (microseconds); this is the same handle in one C call. It is private (what torch's
        # own compiled code calls), hence the public fallback where it is missing.
        self.raw_current_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)

    def view(self, t: Any) -> ArrayView:
        if t.layout is not self.strided:
            raise TypeError(f"expected a dense (strided) torch tensor; got layout {t.layout}")
        if t.is_cuda:
            on_device, device_id = True, t.get_device()
        elif t.device.type == "cpu":
            on_device, device_id = False, None
        else:
            raise ValueError(f"torch tensor on device {t.device}: tcsparse takes cpu or cuda "
                             "tensors")
        strides = None if t.is_contiguous() else tuple(t.stride())
        dtype = self.dtype_names.get(t.dtype) or dtype_name(t.dtype)
        return ArrayView(t, t.data_ptr(), tuple(t.shape), strides, dtype, on_device, device_id,
                         "torch")

    def current_stream_reader(self, device_id: Optional[int]) -> Callable[[], int]:
        """A function reading torch's current stream on cuda:device_id (as a cudaStream_t)."""
        if self.raw_current_stream is not None and device_id is not None:
            return functools.partial(self.raw_current_stream, device_id)
        current_stream = self.torch.cuda.current_stream
        return lambda: current_stream(device_id).cuda_stream


class _CupyFastPath:
    """cupy.ndarray read through data.ptr, data.device_id, shape, strides, dtype and flags."""

    def __init__(self, cupy: Any) -> None:
        self.get_current_stream = cupy.cuda.get_current_stream

    def view(self, a: Any) -> ArrayView:
        memory = a.data
        # 0 for an empty array, as its __cuda_array_interface__ says
        address = memory.ptr if a.size else 0
        dtype = a.dtype
        strides = None if a.flags.c_contiguous else _element_strides(a.strides, dtype.itemsize)
        return ArrayView(a, address, a.shape, strides, _numpy_dtype_name(dtype), True,
                         memory.device_id, "cupy")

    def current_stream_reader(self, device_id: Optional[int]) -> Callable[[], int]:
        """A function reading CuPy's current stream (of the current device, as CuPy launches)."""
        get_current_stream = self.get_current_stream
        return lambda: get_current_stream().ptr


_fast_paths: Dict[str, Any] = {}  # "torch", "cupy" -> its fast path, made once


def _fast_path(library: str) -> Any:
    found = _fast_paths.get(library)
    if found is None:
        module = sys.modules[library]
        found = _TorchFastPath(module) if library == "torch" else _CupyFastPath(module)
        _fast_paths[library] = found
    return found


def _learn_type(kind: type, library: str) -> Callable[[Any], ArrayView]:
    """Describes arrays of `kind` through the fast path of `library` ("torch", "cupy") from now
    on, here and in the extension; returns the view function."""
    view = _VIEW_OF_TYPE[kind] = _fast_path(library).view
    _core.learn_array_type(kind, library)
    return view


# ---- the generic paths: any other CAI or DLPack producer -----------------------------------------

def _cai_view(obj: Any, interface: dict) -> ArrayView:
    typestr = interface["typestr"]
    dtype_and_size = _DTYPE_OF_TYPESTR.get(typestr)
    if dtype_and_size is None:
        dtype = np.dtype(typestr)
        dtype_and_size = _DTYPE_OF_TYPESTR[typestr] = (dtype.name, dtype.itemsize)
    dtype, itemsize = dtype_and_size
    strides = interface.get("strides")
    if strides is not None:
        strides = _element_strides(strides, itemsize)
    device_id = None
    device = getattr(obj, "device", None)  # CuPy: cupy.cuda.Device
    if device is not None and hasattr(device, "id"):
        device_id = int(device.id)
    library = "cai"
    if type(obj).__module__.startswith("cupy"):
        library = "cupy"
        if "cupy" in sys.modules:
            _fast_path("cupy")  # for its current stream
    return ArrayView(obj, int(interface["data"][0]), tuple(interface["shape"]), strides,
                     dtype, True, device_id, library)


def _dlpack_view(obj: Any) -> ArrayView:
    address, shape, strides, code, bits, lanes, device_type, device_id = _core.dlpack_info(obj)
    dtype = _DLPACK_DTYPES.get((code, bits), f"dlpack(code={code}, bits={bits})")
    if lanes != 1:
        dtype = f"dlpack(code={code}, bits={bits}, lanes={lanes})"
    on_device = device_type in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED)
    if not on_device and device_type not in (_DLPACK_CPU, _DLPACK_CUDA_HOST):
        raise ValueError(f"array on DLPack device type {device_type}: tcsparse takes host or "
                         "CUDA arrays")
    return ArrayView(obj, address, tuple(shape), None if strides is None else tuple(strides),
                     dtype, on_device, device_id if on_device else None, "dlpack")


def describe(obj: Any, what: str) -> ArrayView:
    """The ArrayView of `obj`, or TypeError naming `what` and the accepted kinds."""
    view_of = _VIEW_OF_TYPE.get(type(obj))
    if view_of is not None:
        return view_of(obj)
    return _describe_other(obj, what)


def _describe_other(obj: Any, what: str) -> ArrayView:
    """describe() of an object of a type not seen before, or of no library with a fast path."""
    if isinstance(obj, np.ndarray):  # a subclass (np.matrix, np.memmap)
        return _numpy_view(obj)
    module = type(obj).__module__
    if module.startswith("torch") and hasattr(obj, "data_ptr"):
        return _learn_type(type(obj), "torch")(obj)
    cupy = sys.modules.get("cupy") if module.startswith("cupy") else None
    if cupy is not None and isinstance(obj, cupy.ndarray):
        return _learn_type(type(obj), "cupy")(obj)
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        return _cai_view(obj, interface)
    if hasattr(obj, "__dlpack__"):
        return _dlpack_view(obj)
    if hasattr(obj, "__array_interface__"):
        return describe(np.asarray(obj), what)
    raise TypeError(f"{what}: expected an array (NumPy, CuPy, PyTorch, JAX, or any object with "
                    f"__cuda_array_interface__ or __dlpack__); got {type(obj).__name__}")


def empty_like_library(model: ArrayView, shape: Tuple[int, ...], what: str,
                       dtype: Optional[str] = None) -> Any:
    """A new array of `model`'s library and device, of `model`'s dtype or of `dtype` (a name:
    "float32"): the output when the caller gave none."""
    if model.library == "numpy":
        return np.empty(shape, dtype=model.obj.dtype if dtype is None else np.dtype(dtype))
    if model.library == "torch":
        torch = sys.modules["torch"]
        return torch.empty(shape, dtype=model.obj.dtype if dtype is None else getattr(torch, dtype),
                           device=model.obj.device)
    if model.library == "cupy":
        cupy = sys.modules["cupy"]
        with model.obj.device:
            return cupy.empty(shape, dtype=model.obj.dtype if dtype is None else cupy.dtype(dtype))
    raise TypeError(f"{what}: tcsparse cannot allocate an array of {type(model.obj).__name__}; "
                    f"pass {what}= (an output array of shape {shape})")


def legacy_default_stream() -> int:
    """The stream of DLPack's and CAI's consumers when none is named: 0."""
    return 0


def current_stream_reader(model: ArrayView) -> Callable[[], int]:
    """A function reading the current stream of `model`'s library on its device, as a cudaStream_t
    (called on every call: the caller may switch streams between calls); the legacy default
    stream for libraries without one (DLPack, CAI)."""
    fast_path = _fast_paths.get(model.library)
    if fast_path is None:
        return legacy_default_stream
    return fast_path.current_stream_reader(model.device_id)


def stream_address(stream: Any, model: ArrayView) -> int:
    """The cudaStream_t of `stream`; for None the current stream of `model`'s library."""
    if stream is None:
        return current_stream_reader(model)()
    return stream_handle(stream)


def stream_handle(stream: Any) -> int:
    """The cudaStream_t of a stream given by the caller (not None)."""
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "cuda_stream"):       # torch.cuda.Stream
        return int(stream.cuda_stream)
    if hasattr(stream, "__cuda_stream__"):   # the CUDA stream protocol (cuda.core, CuPy 13+)
        return int(stream.__cuda_stream__()[1])
    if hasattr(stream, "ptr"):               # cupy.cuda.Stream
        return int(stream.ptr)
    raise TypeError("stream: expected None (the current stream of the array's library), an int "
                    f"(a cudaStream_t), a torch.cuda.Stream or a cupy.cuda.Stream; got "
                    f"{type(stream).__name__}")


def synchronize_current_stream(model: ArrayView) -> None:
    """Waits for the current stream of `model`'s library (CuPy, torch) on its device."""
    if model.library == "torch":
        sys.modules["torch"].cuda.current_stream(model.obj.device).synchronize()
    elif model.library == "cupy":
        with model.obj.device:
            sys.modules["cupy"].cuda.get_current_stream().synchronize()
