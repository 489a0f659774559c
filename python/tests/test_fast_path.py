"""The fast path of a plan call (module.cpp, "the fast path of a plan call"): a call whose arrays
have the signatures of the last call that passed the checks is applied without them, and every
other call is still checked. On the host, with a stand-in array type that the extension reads as
a CuPy array and the checks read through __array_interface__ (as NumPy), on a CPU plan."""
import types

import numpy as np
import pytest

import tcsparse
from tcsparse import _tcsparse as core


class CupyLike:
    """A host array over `array` (NumPy) with the attributes the extension reads of a CuPy array:
    data.ptr, data.device_id, dtype, shape, strides; all read from `array` when asked, so a change
    of `array` in place shows."""

    def __init__(self, array):
        self.array = array

    @property
    def __array_interface__(self):
        return self.array.__array_interface__

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.array.__array_interface__["data"][0], device_id=0)

    @property
    def dtype(self):
        return self.array.dtype

    @property
    def shape(self):
        return self.array.shape

    @property
    def strides(self):
        return self.array.strides


class OtherCupyLike(CupyLike):
    """The same attributes, another type."""


core.learn_array_type(CupyLike, "cupy")
core.learn_array_type(OtherCupyLike, "cupy")


@pytest.fixture
def plan():
    """A CPU plan of a square matrix whose checked calls are counted in plan.checked_calls."""
    plan = tcsparse.SpmvPlan(tcsparse.generate("banded", n=8, bandwidth=1, seed=3), device="cpu")
    plan.checked_calls = 0
    checked_apply = plan._checked_apply

    def counted(*arguments):
        plan.checked_calls += 1
        return checked_apply(*arguments)

    plan._checked_apply = counted
    return plan


def vectors(seed=1, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return CupyLike(rng.uniform(-1, 1, 8).astype(dtype)), CupyLike(rng.uniform(-1, 1, 8).astype(dtype))


def test_a_repeated_call_skips_the_checks_and_computes_the_same(plan):
    A = tcsparse.generate("banded", n=8, bandwidth=1, seed=3)
    x, y = vectors()
    plan(x, y)
    assert plan.checked_calls == 1
    np.testing.assert_allclose(y.array, A @ x.array, rtol=1e-14)
    old = y.array.copy()
    assert plan(x, y, alpha=2, beta=np.float32(0.5)) is y  # numbers of any kind
    assert plan.checked_calls == 1
    np.testing.assert_allclose(y.array, 2 * (A @ x.array) + 0.5 * old, rtol=1e-14)
    other_x, other_y = vectors(seed=2)  # other arrays of the same signatures
    plan(other_x, other_y)
    assert plan.checked_calls == 1
    np.testing.assert_allclose(other_y.array, A @ other_x.array, rtol=1e-14)


def test_calls_without_y_or_of_other_types_are_checked(plan):
    x, y = vectors()
    plan(x, y)
    plan(x)                               # y=None: the checked path allocates y
    plan(x.array, y.array)                # NumPy arrays: no fast path
    plan(OtherCupyLike(x.array), y)       # the same attributes, another type
    assert plan.checked_calls == 4
    plan(OtherCupyLike(x.array), y)       # now that type is the accepted one
    assert plan.checked_calls == 4


def test_an_array_changed_in_place_is_checked_again(plan):
    x, y = vectors()
    plan(x, y)
    y.array = y.array.reshape(2, 4)  # the same object and address, another shape
    with pytest.raises(ValueError, match=r"y must have shape \(8,\); got \(2, 4\)"):
        plan(x, y)


def test_another_dtype_at_the_same_address_is_checked_again(plan):
    x, y = vectors()
    plan(x, y)
    same_memory = CupyLike(y.array.view(np.float32)[:8])  # y's address, float32
    assert same_memory.data.ptr == y.data.ptr
    with pytest.raises(TypeError, match="y must be float64"):
        plan(x, same_memory)


def test_a_strided_array_of_the_right_shape_is_checked_again(plan):
    x, y = vectors()
    plan(x, y)
    with pytest.raises(ValueError, match="x must be contiguous"):
        plan(CupyLike(np.ones(16)[::2]), y)


def test_overlapping_arrays_are_refused_on_the_fast_path(plan):
    x, y = vectors()
    plan(x, y)
    memory = np.zeros(12)
    with pytest.raises(ValueError, match="x and y must not overlap"):
        plan(CupyLike(memory[:8]), CupyLike(memory[4:]))
    with pytest.raises(ValueError, match="x and y must not overlap"):
        plan(x, x)
    plan(CupyLike(memory[:8]), y)  # side by side is fine
    assert plan.checked_calls == 3


def test_bad_numbers_and_streams_are_refused_on_the_fast_path(plan):
    x, y = vectors()
    plan(x, y)
    with pytest.raises(ValueError, match="could not convert"):
        plan(x, y, alpha="two")
    with pytest.raises(ValueError, match="stream"):
        plan(x, y, stream=5)  # a CPU plan runs synchronously
    with pytest.raises(TypeError, match="stream"):
        plan(x, y, stream="default")


def test_array_signatures_are_read_only_of_learnt_types():
    x, _ = vectors()
    address, signature = core.array_signature(x)
    assert address == x.array.__array_interface__["data"][0]
    assert signature == (CupyLike, x.dtype, (8,), (8,), 0)
    assert core.array_signature(x.array) is None  # NumPy: not learnt
    assert core.array_signature(None) is None

    class Broken(CupyLike):
        @property
        def strides(self):
            raise RuntimeError("no strides")

    core.learn_array_type(Broken, "cupy")
    assert core.array_signature(Broken(x.array)) is None  # and no error left pending
    with pytest.raises(ValueError, match="library"):
        core.learn_array_type(Broken, "numpy")


def test_torch_tensors_changed_or_replaced_are_checked_again(plan):
    torch = pytest.importorskip("torch")
    A = tcsparse.generate("banded", n=8, bandwidth=1, seed=3)
    x = torch.linspace(-1, 1, 8, dtype=torch.float64)
    y = torch.empty(8, dtype=torch.float64)
    plan(x, y)
    plan(x, y, alpha=2, beta=-1)
    assert plan.checked_calls == 1
    np.testing.assert_allclose(y.clone().numpy(), A @ x.numpy(), rtol=1e-14)  # (y resizable)
    with pytest.raises(TypeError, match="y must be float64"):
        plan(x, y.view(torch.float32))  # y's address, another dtype
    with pytest.raises(TypeError, match="strided"):
        plan(x.to_sparse(), y)
    with pytest.raises(ValueError, match="contiguous"):
        plan(torch.ones(16, dtype=torch.float64)[::2], y)
    with pytest.raises(ValueError, match="must not overlap"):
        plan(x, x)
    y.resize_(9)  # in place: the same object
    with pytest.raises(ValueError, match=r"y must have shape \(8,\); got \(9,\)"):
        plan(x, y)
