"""How arrays of other libraries are seen (tcsparse._arrays), on the host: CAI and DLPack
parsing, streams, and the refusal of device arrays by CPU plans, with stand-in objects."""
import numpy as np
import pytest

import tcsparse
from conftest import gpu
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


def test_a_field_of_a_structured_array_is_not_taken_for_contiguous():
    # stride 12 bytes over float64: rounding it down to 1 element would read the wrong memory
    field = np.zeros(4, dtype=[("a", "f8"), ("b", "i4")])["a"]
    with pytest.raises(ValueError, match="not a multiple of its element size"):
        _arrays.describe(field, "x")


def test_numpy_views_say_contiguous_or_give_strides_in_elements():
    assert _arrays.describe(np.ones((3, 4)), "x").is_c_contiguous()
    strided = _arrays.describe(np.ones((3, 4))[:, ::2], "x")
    assert strided.strides == (4, 2) and not strided.is_c_contiguous()
    assert _arrays.describe(np.ones((3, 4), np.float32), "x").dtype == "float32"


# ---- the fast paths of CuPy and torch against the generic ones (on a GPU) ----

def _same_view(fast, generic):
    assert (fast.address, fast.shape, fast.dtype, fast.on_device, fast.device_id) == \
           (generic.address, generic.shape, generic.dtype, generic.on_device, generic.device_id)
    assert fast.is_c_contiguous() == generic.is_c_contiguous()
    if not fast.is_c_contiguous():
        assert fast.strides == generic.strides


@gpu
def test_cupy_arrays_are_seen_as_their_cuda_array_interface_says():
    cp = pytest.importorskip("cupy")
    base = cp.arange(24, dtype=cp.float64).reshape(4, 6)
    for a in (base, base[1], base[:, ::2], base.T, cp.empty(0), cp.ones(5, cp.float16),
              cp.ones((3, 1))):
        view = _arrays.describe(a, "x")
        assert view.library == "cupy"
        _same_view(view, _arrays._cai_view(a, a.__cuda_array_interface__))


@gpu
def test_torch_tensors_are_seen_as_dlpack_says():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    base = torch.arange(24, dtype=torch.float64, device="cuda").reshape(4, 6)
    for t in (base, base[1], base[:, ::2], base.T, torch.ones(5, dtype=torch.bfloat16,
              device="cuda"), torch.ones(3, 1, device="cuda"), torch.ones(4)):
        view = _arrays.describe(t, "x")
        assert view.library == "torch"
        _same_view(view, _arrays._dlpack_view(t))
    with pytest.raises(TypeError, match="strided"):
        _arrays.describe(base.to_sparse_csr(), "x")


@gpu
def test_the_current_stream_is_read_on_every_call():
    cp = pytest.importorskip("cupy")
    model = _arrays.describe(cp.ones(3), "x")
    first, second = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    with first:
        assert _arrays.stream_address(None, model) == first.ptr
    with second:
        assert _arrays.stream_address(None, model) == second.ptr
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    model = _arrays.describe(torch.ones(3, device="cuda"), "x")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        assert _arrays.stream_address(None, model) == stream.cuda_stream
    assert _arrays.stream_address(None, model) == torch.cuda.current_stream().cuda_stream
