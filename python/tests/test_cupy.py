"""CuPy arrays: transformed on their GPU without copies (skipped without
CuPy or without a CUDA device, as in CI)."""

import numpy as np
import pytest

import hyfft
from conftest import assert_close, random_array

cp = pytest.importorskip("cupy", reason="CuPy is not installed: device arrays not tested")
try:
    cp.cuda.runtime.getDeviceCount()
except Exception:  # CuPy without a usable GPU
    pytest.skip("no CUDA device: device arrays not tested", allow_module_level=True)


@pytest.mark.parametrize("name", ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn",
                                  "irfftn", "fft2", "rfft2", "irfft2", "ifft2"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_cupy_matches_numpy(rng, name, dtype, norm):
    src = dtype if name.startswith("rfft") else (np.complex64 if dtype == np.float32
                                                 else np.complex128)
    x = random_array(rng, (6, 16, 10), src)
    got = getattr(hyfft, name)(cp.asarray(x), norm=norm)
    assert isinstance(got, cp.ndarray)
    assert_close(cp.asnumpy(got), getattr(np.fft, name)(x, norm=norm), dtype)


def test_cupy_views_out_and_plan(rng):
    x = random_array(rng, (8, 24, 12), np.complex128)
    d = cp.asarray(x)
    view = d[::2, 1::3]
    assert_close(cp.asnumpy(hyfft.fft(view, axis=1)), np.fft.fft(x[::2, 1::3], axis=1),
                 np.complex128)
    out = cp.empty((8, 24, 12), cp.complex128)
    assert hyfft.fftn(d, out=out) is out
    assert_close(cp.asnumpy(out), np.fft.fftn(x), np.complex128)
    s = hyfft.fft(d, n=20, axis=0)
    assert_close(cp.asnumpy(s), np.fft.fft(x, n=20, axis=0), np.complex128)
    p = hyfft.Plan((8, 24, 12), axes=(1, 2))
    for _ in range(3):
        assert_close(cp.asnumpy(p(d)), np.fft.fftn(x, axes=(1, 2)), np.complex128)
    # Work queued on CuPy's stream before the call is waited for.
    with cp.cuda.Stream():
        e = d * 2
        assert_close(cp.asnumpy(hyfft.ifft(e)), np.fft.ifft(2 * x), np.complex128)
