"""hyfft.Plan, the plan cache and use from several threads."""

import threading

import numpy as np
import pytest

import hyfft
from conftest import assert_close, random_array


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_plan_c2c_reuse(rng, dtype):
    p = hyfft.Plan((4, 32), axes=(-1,), dtype=dtype)
    q = hyfft.Plan((4, 32), axes=(-1,), dtype=dtype, inverse=True, norm="ortho")
    for _ in range(3):
        x = random_array(rng, (4, 32), dtype)
        y = p(x)
        assert y.dtype == dtype
        assert_close(y, np.fft.fft(x), dtype)
        assert_close(q(x), np.fft.ifft(x, norm="ortho"), dtype)
    out = np.empty((4, 32), dtype)
    assert p(x, out=out) is out
    assert_close(out, np.fft.fft(x), dtype)


def test_plan_real(rng):
    r2c = hyfft.Plan((6, 10), kind="r2c", dtype=np.float32)
    x = random_array(rng, (6, 10), np.float32)
    y = r2c(x)
    assert y.shape == (6, 6) and y.dtype == np.complex64
    assert_close(y, np.fft.rfftn(x), np.float32)
    c2r = hyfft.Plan((6, 6), kind="c2r", n=11, axes=(0, 1), norm="forward")
    assert_close(c2r(y.astype(np.complex128)), np.fft.irfftn(y, s=(6, 11), norm="forward"),
                 np.float32)
    with pytest.raises(ValueError):
        hyfft.Plan((6, 6), kind="c2r", n=20)  # 20 // 2 + 1 != 6
    with pytest.raises(TypeError):
        r2c(x.astype(np.complex64))  # complex input for a real plan


def test_plan_new_layouts(rng):
    p = hyfft.Plan((8, 16), axes=(0,))
    base = random_array(rng, (16, 48), np.complex128)
    for x in (base[:8, :16], base[::2, ::3], base[:16:2, :16].copy(order="F")):
        assert_close(p(x), np.fft.fft(x, axis=0), np.complex128)
    assert len(p._plans) == 3


def test_plan_bad_arguments():
    with pytest.raises(ValueError):
        hyfft.Plan((4, 4), kind="dct")
    with pytest.raises(ValueError):
        hyfft.Plan((4, 4), axes=(0, 0))
    with pytest.raises(np.exceptions.AxisError if hasattr(np, "exceptions") else np.AxisError):
        hyfft.Plan((4, 4), axes=(2,))
    with pytest.raises(ValueError):
        hyfft.Plan((4, 0))
    with pytest.raises(TypeError):
        hyfft.Plan((4, 4), kind="r2c", dtype=np.complex64)
    p = hyfft.Plan((4, 4))
    with pytest.raises(ValueError):
        p(np.zeros((4, 5), np.complex128))
    with pytest.raises(ValueError):
        p(np.zeros((4, 4), np.complex128), out=np.zeros((4, 4), np.complex64))
    assert "shape=(4, 4)" in repr(p)


def test_cache_lru_and_hits(rng):
    cache = hyfft.plan_cache
    old = cache.maxsize
    try:
        cache.clear()
        cache.maxsize = 2
        x = random_array(rng, 16, np.complex128)
        hyfft.fft(x)
        hits = cache.hits
        hyfft.fft(x)
        assert cache.hits == hits + 1
        hyfft.fft(x[:8])
        hyfft.fft(x[:4])
        assert len(cache) == 2
        cache.maxsize = 0
        assert len(cache) == 0
        assert_close(hyfft.fft(x), np.fft.fft(x), np.complex128)  # works uncached
        with pytest.raises(ValueError):
            cache.maxsize = -1
    finally:
        cache.maxsize = old


def test_threads(rng):
    """Many threads sharing one Plan and the global cache (which is kept
    small so that plans are evicted while others use them)."""
    cache = hyfft.plan_cache
    old = cache.maxsize
    cache.maxsize = 3
    plan = hyfft.Plan((8, 64), axes=(-1,))
    inputs = [random_array(rng, (8, 64), np.complex128) for _ in range(8)]
    errors = []

    def work(i):
        try:
            for k in range(20):
                x = inputs[(i + k) % len(inputs)]
                assert_close(plan(x), np.fft.fft(x), np.complex128)
                n = 16 + (i + k) % 6
                assert_close(hyfft.rfft(x.real, n=n), np.fft.rfft(x.real, n=n), np.float64)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        cache.maxsize = old
    assert not errors, errors[0]
