"""How arrays of other libraries are seen (tcsparse._arrays), on the host: CAI and DLPack
parsing, streams, and the refusal of device arrays by CPU plans, with stand-in objects."""
import numpy as np
import pytest

import tcsparse
from tcsparse import _arrays


class FakeDeviceArray:
    """Something with __cuda_array_interface__ (as CuPy, Numba, ...), never dereferenced."""

    def __init__(self, shape, typestr="<f8", strides=None, address=0x7F0000000000):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (address, False), "version": 3}


def test_cuda_array_interface_is_read_without_touching_the_memory():
    view = _arrays.describe(FakeDeviceArray((5, 3), "<f4", strides=(12, 4)), "x")
    assert view.on_device and view.address == 0x7F0000000000 and view.shape == (5, 3)
    assert view.dtype == "float32" and view.strides == (3, 1) and view.is_c_contiguous()
    strided = _arrays.describe(FakeDeviceArray((5,), "<f8", strides=(16,)), "x")
    assert not strided.is_c_contiguous()


def test_dlpack_producers_are_read_by_the_extension_without_a_copy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    view = _arrays._dlpack_view(x)
    assert view.address == x.__array_interface__["data"][0]
    assert view.shape == (3, 4) and view.strides == (4, 1) and view.dtype == "float32"
    assert not view.on_device
    assert _arrays._dlpack_view(np.zeros(3, np.int32)).dtype == "int32"


def test_stream_spellings():
    model = _arrays.describe(FakeDeviceArray((3,)), "x")
    assert _arrays.stream_address(None, model) == 0  # unknown library: legacy default stream
    assert _arrays.stream_address(1234, model) == 1234

    class TorchLike:
        cuda_stream = 77

    class CupyLike:
        ptr = 88

    class Protocol:
        def __cuda_stream__(self):
            return (0, 99)

    assert _arrays.stream_address(TorchLike(), model) == 77
    assert _arrays.stream_address(CupyLike(), model) == 88
    assert _arrays.stream_address(Protocol(), model) == 99
    with pytest.raises(TypeError, match="stream"):
        _arrays.stream_address("default", model)


def test_a_cpu_plan_refuses_device_arrays_naming_the_device():
    plan = tcsparse.SpmvPlan(tcsparse.generate("banded", n=3, bandwidth=1), device="cpu")
    with pytest.raises(ValueError, match="on cuda but the plan runs on the CPU"):
        plan(FakeDeviceArray((3,)))


def test_a_device_matrix_for_a_cpu_plan_is_refused():
    device_tuple = (FakeDeviceArray((3,), "<i4"), FakeDeviceArray((2,), "<i4"),
                    FakeDeviceArray((2,), "<f8"), (2, 2))
    with pytest.raises(ValueError, match="device='cpu' needs a host matrix"):
        tcsparse.SpmvPlan(device_tuple, device="cpu")


def test_other_libraries_cannot_be_allocated_for_and_must_pass_the_output():
    plan_shape = (3,)
    with pytest.raises(TypeError, match="pass y="):
        _arrays.empty_like_library(_arrays.describe(FakeDeviceArray((3,)), "x"), plan_shape, "y")
