"""Shared helpers for the hyfft Python tests.

The tests import the package from the source tree (python/) unless hyfft is
already importable, and use the library named by $HYFFT_LIBRARY (ctest sets
it to the freshly built libhyfft.so).
"""

import os
import sys

import numpy as np
import pytest

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(_here))

import hyfft  # noqa: E402,F401  (fails early if the library cannot load)


def pytest_configure(config):
    # NumPy 2 deprecates s without axes; hyfft follows the current meaning
    # (the last len(s) axes), which the tests compare against.
    config.addinivalue_line("filterwarnings",
                            "ignore:`axes` should not be `None`:DeprecationWarning")


def rel_error(got, ref):
    """Relative l2 error of got against ref (absolute when ref is zero)."""
    got = np.asarray(got, dtype=np.complex128)
    ref = np.asarray(ref, dtype=np.complex128)
    assert got.shape == ref.shape, f"shape {got.shape} != {ref.shape}"
    scale = np.linalg.norm(ref.ravel())
    diff = np.linalg.norm((got - ref).ravel())
    return diff / scale if scale > 0 else diff


def tolerance(dtype):
    """~1e-6 relative in single precision, ~1e-12 in double."""
    return 2e-6 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12


def assert_close(got, ref, dtype):
    err = rel_error(got, ref)
    assert err <= tolerance(dtype), f"relative error {err:.3g} > {tolerance(dtype):.1g}"


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def random_array(rng, shape, dtype):
    """Random values of dtype (complex dtypes get random imaginary parts)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    return rng.standard_normal(shape).astype(dtype)
