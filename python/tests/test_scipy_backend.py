"""hyfft.scipy_backend with scipy.fft.set_backend (skipped without scipy)."""

import numpy as np
import pytest

import hyfft
from conftest import assert_close, random_array

scipy_fft = pytest.importorskip("scipy.fft", reason="scipy is not installed: the "
                                "scipy backend is not tested")

NAMES = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
         "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_dispatch(rng, name, norm):
    src = np.float64 if name.startswith(("rfft", "ihfft")) else np.complex128
    x = random_array(rng, (6, 10), src)
    # The reference: scipy's own implementation (numpy has no hfftn).
    ref = getattr(scipy_fft, name)(x, norm=norm)
    misses, hits = hyfft.plan_cache.misses, hyfft.plan_cache.hits
    with scipy_fft.set_backend(hyfft.scipy_backend, only=True):
        got = getattr(scipy_fft, name)(x, norm=norm, overwrite_x=False, workers=2)
    # The call went through hyfft's planner.
    assert hyfft.plan_cache.misses + hyfft.plan_cache.hits > misses + hits
    assert_close(got, ref, src)


def test_keywords_and_single_precision(rng):
    x = random_array(rng, (4, 12), np.float32)
    with scipy_fft.set_backend(hyfft.scipy_backend, only=True):
        got = scipy_fft.rfft(x, n=8, axis=0)
        assert got.dtype == np.complex64
        assert_close(got, np.fft.rfft(x, n=8, axis=0), np.float32)
        got = scipy_fft.fftn(x, s=(3, 5), axes=(1, 0))
        assert_close(got, np.fft.fftn(x, s=(3, 5), axes=(1, 0)), np.float32)


def test_positional_scipy_arguments(rng):
    x = random_array(rng, (5, 8), np.complex128)
    with scipy_fft.set_backend(hyfft.scipy_backend, only=True):
        # (x, n, axis, norm, overwrite_x, workers), all positional
        got = scipy_fft.fft(x, 6, 0, "ortho", True, 1)
        assert_close(got, np.fft.fft(x, 6, 0, "ortho"), np.complex128)
        got = scipy_fft.irfftn(x, (4, 6), (1, 0), None, False, 2)
        assert_close(got, np.fft.irfftn(x, (4, 6), (1, 0)), np.complex128)


def test_other_functions_not_implemented(rng):
    x = random_array(rng, 16, np.float64)
    assert hyfft.scipy_backend.__ua_domain__ == "numpy.scipy.fft"
    with scipy_fft.set_backend(hyfft.scipy_backend, only=True):
        with pytest.raises(Exception, match="implementation"):
            scipy_fft.fht(x, dln=0.1, mu=0.0)
    # Without only=True scipy falls back to its own fht.
    with scipy_fft.set_backend(hyfft.scipy_backend):
        got = scipy_fft.fht(x, dln=0.1, mu=0.0)
    assert_close(got, scipy_fft.fht(x, dln=0.1, mu=0.0), np.float64)
    assert hyfft.scipy_backend.__ua_function__(scipy_fft.fht, (x,), {}) is NotImplemented
