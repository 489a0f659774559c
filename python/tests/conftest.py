"""Shared fixtures: the repository's test files, matrices of every kind, GPU markers."""
import pathlib

import numpy as np
import pytest
import scipy.sparse

import tcsparse

DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data"

HAS_GPU = tcsparse.cuda_available()
gpu = pytest.mark.skipif(not HAS_GPU, reason="needs a CUDA GPU (tcsparse.cuda_available() is False)")


def relative_error(y, reference):
    y = np.asarray(y, dtype=np.float64)
    reference = np.asarray(reference, dtype=np.float64)
    norm = np.linalg.norm(reference)
    return np.linalg.norm(y - reference) / (norm if norm > 0 else 1.0)


# Tolerances of DESIGN.md ("Numbers everyone uses"), per plan precision.
TOLERANCE = {"fp64": 1e-12, "fp32": 1e-5, "fp16": 1e-2, "bf16": 1e-2}


def random_values(shape, seed, dtype=np.float64):
    """Uniform in [-1, -0.1] U [0.1, 1]: never zero, never all ones."""
    rng = np.random.default_rng(seed)
    magnitude = rng.uniform(0.1, 1.0, size=shape)
    return (magnitude * rng.choice([-1.0, 1.0], size=shape)).astype(dtype)


def rounded_to(A, dtype):
    """A copy of A (fp64) holding the values a plan of `dtype` sees: each value rounded to dtype.
    (SciPy's astype refuses float16 and bfloat16.)"""
    B = scipy.sparse.csr_array(A, dtype=np.float64, copy=True)
    B.data = B.data.astype(dtype).astype(np.float64)
    return B


def edge_matrices():
    """(name, scipy csr_array): the edge shapes every product must get right."""
    rng = np.random.default_rng(7)
    long_row = scipy.sparse.random_array((3, 5000), density=0.0, format="csr")
    long_row = scipy.sparse.csr_array(
        (random_values(5000, 1), np.arange(5000, dtype=np.int32), np.array([0, 0, 5000, 5000])),
        shape=(3, 5000))
    return [
        ("empty_0x0", scipy.sparse.csr_array((0, 0))),
        ("all_zero_rows_4x3", scipy.sparse.csr_array((4, 3))),
        ("one_row", scipy.sparse.csr_array(random_values((1, 9), 2))),
        ("one_column", scipy.sparse.csr_array(random_values((9, 1), 3))),
        ("rectangular_wide", scipy.sparse.random_array((17, 300), density=0.1, format="csr",
                                                       random_state=rng)),
        ("rectangular_tall", scipy.sparse.random_array((300, 17), density=0.1, format="csr",
                                                       random_state=rng)),
        ("very_long_row", long_row),
        ("stencil3d", tcsparse.generate("stencil3d", nx=6, ny=5, nz=4, seed=3)),
        ("rmat", tcsparse.generate("rmat", scale=8, edge_factor=4, seed=5)),
    ]
