"""Bad arguments raise NumPy's exception types; hyfft failures HyfftError."""

import os
import subprocess
import sys

import numpy as np
import pytest

import hyfft

AxisError = np.exceptions.AxisError if hasattr(np, "exceptions") else np.AxisError


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
def test_bad_1d_arguments(name):
    x = np.ones((4, 8))
    f = getattr(hyfft, name)
    with pytest.raises(ValueError):
        f(x, n=0)
    with pytest.raises(ValueError):
        f(x, n=-3)
    with pytest.raises(TypeError):
        f(x, n=2.5)
    with pytest.raises(AxisError):
        f(x, axis=2)
    with pytest.raises(AxisError):
        f(x, axis=-3)
    with pytest.raises(ValueError):
        f(x, norm="bogus")
    with pytest.raises(ValueError):
        f(np.float64(3.0))  # 0-d input


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "rfft2"])
def test_bad_nd_arguments(name):
    x = np.ones((4, 6, 8))
    f = getattr(hyfft, name)
    with pytest.raises(ValueError):
        f(x, s=(4, 4), axes=(0,))
    with pytest.raises(ValueError):
        f(x, s=(0, 4))
    with pytest.raises(AxisError):
        f(x, axes=(0, 5))
    with pytest.raises(TypeError):
        f(x, axes=(0.5, 1))


def test_bad_dtypes():
    with pytest.raises(TypeError):
        hyfft.rfft(np.ones(8, np.complex128))
    with pytest.raises(TypeError):
        hyfft.fft(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        hyfft.fft(np.ones(8), out=np.ones(8))  # complex result into a float array


def test_zero_length_axis():
    with pytest.raises(ValueError):
        hyfft.fft(np.ones((3, 0)))
    with pytest.raises(ValueError):
        hyfft.irfft(np.ones(1, np.complex128))  # default n = 0


def test_hyfft_error_from_library():
    old = hyfft.get_device()
    hyfft.set_device("no-such-device")
    try:
        with pytest.raises(hyfft.HyfftError) as info:
            hyfft.fft(np.ones(8))
    finally:
        hyfft.set_device(old)
    e = info.value
    assert e.status_name == "HYFFT_INVALID_DEVICE"
    assert e.status == 12
    assert e.detail and e.detail in str(e)
    assert isinstance(e, RuntimeError)
    with pytest.raises(TypeError):
        hyfft.set_device(3)


def test_plan_error_from_library():
    p = hyfft.Plan((8,), device="opencl:99:99")
    with pytest.raises(hyfft.HyfftError) as info:
        p(np.ones(8, np.complex128))
    assert info.value.status_name.startswith("HYFFT_")


def test_library_not_found():
    env = dict(os.environ, HYFFT_LIBRARY="/nonexistent/libhyfft.so")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-c", "import hyfft"], cwd=here, env=env,
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "HYFFT_LIBRARY" in r.stderr
