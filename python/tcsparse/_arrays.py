"""Arrays of any library, seen as (address, shape, dtype, device) without copying them.

Every array tcsparse takes goes through `describe`: NumPy arrays and anything with the buffer
protocol on the host; PyTorch tensors (CPU or CUDA) through their own attributes (the cheapest
path); CuPy and anything else with ``__cuda_array_interface__`` through that dictionary; JAX and
any other DLPack producer through ``__dlpack__`` (read by the extension module, no copy).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Optional, Tuple

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
        expected = 1
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != expected:
                return False
            expected *= extent
        return True

    def where(self) -> str:
        if not self.on_device:
            return "host"
        return "cuda" if self.device_id is None else f"cuda:{self.device_id}"


def _torch_view(t: Any) -> ArrayView:
    if t.layout is not _torch_strided():
        raise TypeError(f"expected a dense (strided) torch tensor; got layout {t.layout}")
    on_device = t.device.type == "cuda"
    if not on_device and t.device.type != "cpu":
        raise ValueError(f"torch tensor on device {t.device}: tcsparse takes cpu or cuda tensors")
    return ArrayView(t, t.data_ptr(), tuple(t.shape), tuple(t.stride()), dtype_name(t.dtype),
                     on_device, t.device.index if on_device else None, "torch")


def _torch_strided():
    return sys.modules["torch"].strided


def _cai_view(obj: Any, interface: dict) -> ArrayView:
    dtype = np.dtype(interface["typestr"])
    itemsize = dtype.itemsize
    strides = interface.get("strides")
    if strides is not None:
        if any(s % itemsize for s in strides):
            raise ValueError("array strides are not a multiple of its element size")
        strides = tuple(s // itemsize for s in strides)
    device_id = None
    device = getattr(obj, "device", None)  # CuPy: cupy.cuda.Device
    if device is not None and hasattr(device, "id"):
        device_id = int(device.id)
    library = "cupy" if type(obj).__module__.startswith("cupy") else "cai"
    return ArrayView(obj, int(interface["data"][0]), tuple(interface["shape"]), strides,
                     dtype.name, True, device_id, library)


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
    if isinstance(obj, np.ndarray):
        strides = tuple(s // obj.itemsize for s in obj.strides) if obj.itemsize else None
        return ArrayView(obj, obj.__array_interface__["data"][0], obj.shape, strides,
                         dtype_name(obj.dtype), False, None, "numpy")
    module = type(obj).__module__
    if module.startswith("torch") and hasattr(obj, "data_ptr"):
        return _torch_view(obj)
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        return _cai_view(obj, interface)
    if hasattr(obj, "__dlpack__"):
        return _dlpack_view(obj)
    if hasattr(obj, "__array_interface__"):
        return describe(np.asarray(obj), what)
    raise TypeError(f"{what}: expected an array (NumPy, CuPy, PyTorch, JAX, or any object with "
                    f"__cuda_array_interface__ or __dlpack__); got {type(obj).__name__}")


def empty_like_library(model: ArrayView, shape: Tuple[int, ...], what: str) -> Any:
    """A new array of `model`'s library, dtype and device: the output when the caller gave none."""
    if model.library == "numpy":
        return np.empty(shape, dtype=model.obj.dtype)
    if model.library == "torch":
        torch = sys.modules["torch"]
        return torch.empty(shape, dtype=model.obj.dtype, device=model.obj.device)
    if model.library == "cupy":
        cupy = sys.modules["cupy"]
        with model.obj.device:
            return cupy.empty(shape, dtype=model.obj.dtype)
    raise TypeError(f"{what}: tcsparse cannot allocate an array of {type(model.obj).__name__}; "
                    f"pass {what}= (an output array of shape {shape})")


def stream_address(stream: Any, model: ArrayView) -> int:
    """The cudaStream_t of `stream`; for None the current stream of `model`'s library."""
    if stream is None:
        if model.library == "torch":
            return sys.modules["torch"].cuda.current_stream(model.obj.device).cuda_stream
        if model.library == "cupy":
            return sys.modules["cupy"].cuda.get_current_stream().ptr
        return 0  # the legacy default stream, as DLPack's and CAI's consumers assume
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
