"""hyfft.dct/idct/dst/idst and their n-D forms against scipy.fft (skipped
without scipy), and the scipy backend's dispatch of them."""

import numpy as np
import pytest

import hyfft
from conftest import assert_close, random_array

scipy_fft = pytest.importorskip("scipy.fft", reason="scipy is not installed: the DCT/DST "
                                "functions are not compared")

NORMS = [None, "backward", "ortho", "forward"]


def _reference(name, x, kind_type, norm, **kw):
    """scipy's result, except for DST-II/III with orthogonalized "ortho",
    where scipy before 1.12 scaled element 0 instead of the last (scipy
    PR 18613): there the reference is scipy's plain "ortho" transform with
    the documented edge scaling, along every transformed axis."""
    fn = getattr(scipy_fft, name)
    family = name.lstrip("i")[:3]
    inverse = name.startswith("i")
    run_type = {1: 1, 2: 3, 3: 2, 4: 4}[kind_type] if inverse else kind_type
    ortho_fix = family == "dst" and run_type in (2, 3) and norm == "ortho" and \
        kw.get("orthogonalize", True)
    if not ortho_fix:
        return fn(x, type=kind_type, norm=norm, **kw)
    kw = dict(kw)
    kw["orthogonalize"] = False
    if name.endswith("n"):
        axes = kw.get("axes")
        axes = list(range(x.ndim)) if axes is None else list(axes)
    else:
        axes = [kw.get("axis", -1)]
    x = np.array(x, dtype=np.float64 if x.dtype != np.float32 else np.float32)
    if run_type == 3:
        for ax in axes:
            idx = [slice(None)] * x.ndim
            idx[ax] = -1
            x[tuple(idx)] *= np.sqrt(2)
    y = fn(x, type=kind_type, norm=norm, **kw)
    if run_type == 2:
        for ax in axes:
            idx = [slice(None)] * y.ndim
            idx[ax] = -1
            y[tuple(idx)] /= np.sqrt(2)
    return y


@pytest.mark.parametrize("name", ["dct", "idct", "dst", "idst"])
@pytest.mark.parametrize("kind_type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", NORMS)
def test_1d(rng, name, kind_type, norm):
    for dtype in (np.float64, np.float32):
        x = random_array(rng, (7, 10), dtype)
        got = getattr(hyfft, name)(x, type=kind_type, norm=norm)
        assert got.dtype == dtype
        assert_close(got, _reference(name, x, kind_type, norm), dtype)
        got = getattr(hyfft, name)(x, type=kind_type, norm=norm, axis=0)
        assert_close(got, _reference(name, x, kind_type, norm, axis=0), dtype)


@pytest.mark.parametrize("name", ["dctn", "idctn", "dstn", "idstn"])
@pytest.mark.parametrize("kind_type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", NORMS)
def test_nd(rng, name, kind_type, norm):
    x = random_array(rng, (6, 5, 9), np.float64)
    got = getattr(hyfft, name)(x, type=kind_type, norm=norm)
    assert_close(got, _reference(name, x, kind_type, norm), np.float64)
    got = getattr(hyfft, name)(x, type=kind_type, norm=norm, axes=(2, 0))
    assert_close(got, _reference(name, x, kind_type, norm, axes=(2, 0)), np.float64)


def test_lengths_and_options(rng):
    x = random_array(rng, (8, 12), np.float64)
    # n crops and pads, s and axes likewise; orthogonalize on its own.
    assert_close(hyfft.dct(x, n=7), scipy_fft.dct(x, n=7), np.float64)
    assert_close(hyfft.dst(x, 3, 16, 0), scipy_fft.dst(x, 3, 16, 0), np.float64)
    assert_close(hyfft.dctn(x, s=(5, 14)), scipy_fft.dctn(x, s=(5, 14)), np.float64)
    assert_close(hyfft.idctn(x, 1, s=(9,), axes=(0,)), scipy_fft.idctn(x, 1, s=(9,), axes=(0,)),
                 np.float64)
    assert_close(hyfft.dct(x, norm="ortho", orthogonalize=False),
                 scipy_fft.dct(x, norm="ortho", orthogonalize=False), np.float64)
    assert_close(hyfft.dct(x, type=1, orthogonalize=True),
                 scipy_fft.dct(x, type=1, orthogonalize=True), np.float64)
    # Round trips, every type, and complex input (real and imaginary parts).
    for t in (1, 2, 3, 4):
        assert_close(hyfft.idct(hyfft.dct(x, t), t), x, np.float64)
        assert_close(hyfft.idstn(hyfft.dstn(x, t, norm="ortho"), t, norm="ortho"), x,
                     np.float64)
    z = random_array(rng, (4, 10), np.complex128)
    assert_close(hyfft.dct(z), scipy_fft.dct(z), np.complex128)
    # Four axes: one R2R plan of rank 4.
    w = random_array(rng, (3, 4, 5, 6), np.float64)
    assert_close(hyfft.dctn(w, 2), scipy_fft.dctn(w, 2), np.float64)


def test_orthonormal():
    # The "ortho" transforms of every type are orthonormal matrices.
    n = 7
    eye = np.eye(n)
    for name in ("dct", "dst"):
        for t in (1, 2, 3, 4):
            m = getattr(hyfft, name)(eye, type=t, norm="ortho", axis=0)
            assert np.allclose(m.T @ m, eye, atol=1e-12), (name, t)


def test_errors(rng):
    x = random_array(rng, 8, np.float64)
    with pytest.raises(ValueError):
        hyfft.dct(x, type=5)
    with pytest.raises(ValueError):
        hyfft.dct(x, norm="unitary")
    with pytest.raises(ValueError):
        hyfft.dct(x[:1], type=1)  # DCT-I needs two points
    with pytest.raises(ValueError):
        hyfft.dctn(x, s=(4, 4), axes=(0,))


@pytest.mark.parametrize("name", ["dct", "idct", "dst", "idst", "dctn", "idctn", "dstn",
                                  "idstn"])
def test_scipy_backend(rng, name):
    x = random_array(rng, (6, 10), np.float64)
    misses, hits = hyfft.plan_cache.misses, hyfft.plan_cache.hits
    with scipy_fft.set_backend(hyfft.scipy_backend, only=True):
        got = getattr(scipy_fft, name)(x, 2, None, -1 if not name.endswith("n") else None,
                                       "ortho", False, 2)
    assert hyfft.plan_cache.misses + hyfft.plan_cache.hits > misses + hits
    if name.endswith("n"):
        ref = _reference(name, x, 2, "ortho")
    else:
        ref = _reference(name, x, 2, "ortho", axis=-1)
    assert_close(got, ref, np.float64)
