"""hyfft's numpy.fft-compatible functions against numpy.fft on random data."""

import itertools

import numpy as np
import pytest

import hyfft
from conftest import assert_close, random_array

NORMS = [None, "backward", "ortho", "forward"]
COMPLEX = [np.complex64, np.complex128]
REAL = [np.float32, np.float64]


def _single(dtype):
    return np.dtype(dtype) in (np.float32, np.complex64)


# --------------------------------------------------------------------------
# 1-D functions
# --------------------------------------------------------------------------

@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("n", [1, 2, 5, 8, 12, 17, 64, 100, 127, 1024])
def test_c2c_1d(rng, name, dtype, norm, n):
    x = random_array(rng, (3, n), dtype)
    got = getattr(hyfft, name)(x, norm=norm)
    assert got.dtype == dtype
    assert_close(got, getattr(np.fft, name)(x, norm=norm), dtype)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("n", [1, 2, 5, 8, 12, 17, 64, 100, 127, 1024])
def test_rfft_irfft_1d(rng, dtype, norm, n):
    x = random_array(rng, (2, n), dtype)
    got = hyfft.rfft(x, norm=norm)
    assert got.dtype == (np.complex64 if _single(dtype) else np.complex128)
    assert_close(got, np.fft.rfft(x, norm=norm), dtype)
    spec = np.fft.rfft(x).astype(got.dtype)
    back = hyfft.irfft(spec, n=n, norm=norm)
    assert back.dtype == dtype
    assert_close(back, np.fft.irfft(spec, n=n, norm=norm), dtype)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
@pytest.mark.parametrize("n", [None, 3, 7, 16, 31])
@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_1d_n_and_axis(rng, name, n, axis):
    dtype = np.float64 if name == "rfft" else np.complex128
    x = random_array(rng, (6, 9, 10), dtype)
    got = getattr(hyfft, name)(x, n=n, axis=axis)
    assert_close(got, getattr(np.fft, name)(x, n=n, axis=axis), dtype)


# --------------------------------------------------------------------------
# n-D functions
# --------------------------------------------------------------------------

def _axes_choices(ndim):
    """Every non-empty ordered choice of distinct axes (with negatives)."""
    out = []
    for k in range(1, ndim + 1):
        for perm in itertools.permutations(range(ndim), k):
            out.append(perm)
    out.append(tuple(ax - ndim for ax in range(ndim)))  # negative axes
    return out


@pytest.mark.parametrize("shape", [(16,), (6, 10), (4, 5, 6), (3, 8, 2, 4)])
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
def test_nd_axes_permutations(rng, shape, name):
    dtype = np.float64 if name == "rfftn" else np.complex128
    x = random_array(rng, shape, dtype)
    for axes in _axes_choices(len(shape)):
        got = getattr(hyfft, name)(x, axes=axes)
        ref = getattr(np.fft, name)(x, axes=axes)
        assert_close(got, ref, dtype)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
                                  "rfftn", "irfftn"])
def test_nd_norm_dtype(rng, name, dtype, norm):
    src = dtype if name.startswith("rfft") else (np.complex64 if _single(dtype)
                                                 else np.complex128)
    x = random_array(rng, (5, 6, 8), src)
    got = getattr(hyfft, name)(x, norm=norm)
    ref = getattr(np.fft, name)(x, norm=norm)
    assert_close(got, ref, dtype)
    if name.startswith("irfft"):
        assert got.dtype == dtype
    else:
        assert got.dtype == (np.complex64 if _single(dtype) else np.complex128)


_S_AXES = [((4, 6), None), ((9, 3), (0, 2)), ((8, 12), (2, 0)), ((3, 10, 5), None),
           ((7,), (1,)), ((2, 16), (-1, -3))]


@pytest.mark.parametrize("name,s,axes", [
    (name, s, axes)
    for name in ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]
    for s, axes in _S_AXES
    if not name.endswith("2") or len(s) == 2])  # the 2-D functions take two sizes
def test_nd_s_crop_pad(rng, name, s, axes):
    dtype = np.float64 if name.startswith("rfft") else np.complex128
    x = random_array(rng, (6, 7, 8), dtype)
    kwargs = {"s": s} if axes is None else {"s": s, "axes": axes}
    got = getattr(hyfft, name)(x, **kwargs)
    assert_close(got, getattr(np.fft, name)(x, **kwargs), dtype)


def test_repeated_axes_like_numpy(rng):
    x = random_array(rng, (4, 6), np.complex128)
    assert_close(hyfft.fftn(x, axes=(1, 1)), np.fft.fftn(x, axes=(1, 1)), np.complex128)
    r = random_array(rng, (4, 6), np.float64)
    assert_close(hyfft.rfftn(r, axes=(0, 1, 0)), np.fft.rfftn(r, axes=(0, 1, 0)),
                 np.float64)


def test_empty_axes_returns_copy(rng):
    x = random_array(rng, (3, 4), np.complex128)
    got = hyfft.fftn(x, axes=())
    assert_close(got, np.fft.fftn(x, axes=()), np.complex128)
    assert not np.shares_memory(got, x)


# --------------------------------------------------------------------------
# Layouts: strided, transposed, reversed, broadcast, many dimensions
# --------------------------------------------------------------------------

def _views(rng, dtype):
    base = random_array(rng, (10, 12, 14), dtype)
    yield "sliced", base[::2, 1::3, 2:]
    yield "transposed", base.transpose(2, 0, 1)
    yield "fortran", np.asfortranarray(base)
    yield "reversed", base[::-1, :, ::-2]
    yield "broadcast", np.broadcast_to(base[:1], (4, 12, 14))
    yield "real-part", (base.real if base.dtype.kind == "c" else base)[:, ::3]
    raw = np.zeros(base.nbytes + 1, np.uint8)[1:]  # unaligned data
    unaligned = np.ndarray(base.shape, base.dtype, raw.data)
    unaligned[...] = base
    yield "unaligned", unaligned


@pytest.mark.parametrize("name", ["fft", "ifft", "fft2", "fftn", "rfft", "rfftn", "irfft",
                                  "irfftn"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_noncontiguous_views(rng, name, dtype):
    if name.startswith("rfft") and np.dtype(dtype).kind == "c":
        dtype = np.float64
    for label, x in _views(rng, dtype):
        ref = getattr(np.fft, name)(x)
        got = getattr(hyfft, name)(x)
        err_dtype = np.complex64 if _single(x.dtype) else np.complex128
        assert_close(got, ref, err_dtype), label


def test_many_batch_dimensions(rng):
    # 12 dims of length 2, permuted so that no two batch dims merge: more
    # batch dims than hyfft takes, so the array is copied first.
    x = random_array(rng, (2,) * 12, np.complex128).transpose(
        [0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11])
    for axes in [(0,), (3, 7), (11, 5, 1)]:
        assert_close(hyfft.fftn(x, axes=axes), np.fft.fftn(x, axes=axes), np.complex128)


def test_more_than_eight_axes(rng):
    x = random_array(rng, (2,) * 10, np.complex128)
    assert_close(hyfft.fftn(x), np.fft.fftn(x), np.complex128)
    r = random_array(rng, (2,) * 9 + (4,), np.float64)
    assert_close(hyfft.rfftn(r), np.fft.rfftn(r), np.float64)
    assert_close(hyfft.irfftn(np.fft.rfftn(r)), r, np.float64)


def test_empty_batch(rng):
    x = np.zeros((0, 8), np.complex128)
    assert hyfft.fft(x).shape == (0, 8)
    assert hyfft.rfft(np.zeros((3, 0, 8))).shape == (3, 0, 5)


# --------------------------------------------------------------------------
# dtypes and out=
# --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,expected", [(np.int32, np.complex128), (np.int64, np.complex128),
                                            (np.uint8, np.complex128), (bool, np.complex128),
                                            (np.float16, np.complex128),
                                            (np.float32, np.complex64),
                                            (np.float64, np.complex128),
                                            (np.complex64, np.complex64),
                                            (np.complex128, np.complex128)])
def test_dtype_rules(rng, dtype, expected):
    x = random_array(rng, (4, 6), dtype)
    # The reference transforms the input converted as hyfft converts it
    # (NumPy 2 itself computes float16 in single precision).
    if x.dtype.kind == "c":
        wide = x.astype(expected)
    else:
        wide = x.astype(np.float32 if expected == np.complex64 else np.float64)
    got = hyfft.fft(x)
    assert got.dtype == expected
    assert_close(got, np.fft.fft(wide), expected)
    if np.dtype(dtype).kind != "c":
        r = hyfft.rfft(x)
        assert r.dtype == expected
        assert_close(r, np.fft.rfft(wide), expected)


def test_lists_and_scalars_in_lists():
    assert_close(hyfft.fft([1, 2, 3, 4]), np.fft.fft([1, 2, 3, 4]), np.complex128)
    assert_close(hyfft.irfft([[1, 2, 3]]), np.fft.irfft([[1, 2, 3]]), np.float64)


@pytest.mark.parametrize("name", ["fft", "ifft", "fftn", "rfft", "rfftn", "irfft", "irfftn"])
def test_out(rng, name):
    src = np.float64 if name.startswith("rfft") else np.complex128
    x = random_array(rng, (6, 8), src)
    ref = getattr(np.fft, name)(x)
    # A contiguous out is written and returned.
    out = np.empty(ref.shape, ref.dtype)
    got = getattr(hyfft, name)(x, out=out)
    assert got is out
    assert_close(out, ref, src)
    # A strided view as out: written through its strides.
    big = np.zeros((ref.shape[0] * 2, ref.shape[1] * 3), ref.dtype)
    view = big[::2, 1::3]
    assert getattr(hyfft, name)(x, out=view) is view
    assert_close(view, ref, src)
    assert np.all(big[1::2] == 0) and np.all(big[:, ::3] == 0)
    # A wider dtype: computed, then cast.
    if ref.dtype == np.complex128:
        out64 = np.empty(ref.shape, np.complex64)
        with pytest.raises(TypeError):
            getattr(hyfft, name)(x.astype(np.complex128 if src == np.complex128
                                          else np.float64), out=np.empty(ref.shape, np.int32))
        getattr(hyfft, name)(x, out=out64)  # complex128 -> complex64 is same_kind
        assert_close(out64, ref, np.complex64)
    with pytest.raises(ValueError):
        getattr(hyfft, name)(x, out=np.empty((ref.shape[0] + 1, ref.shape[1]), ref.dtype))


def test_out_is_input(rng):
    x = random_array(rng, (5, 16), np.complex128)
    ref = np.fft.fft(x)
    y = x.copy()
    assert hyfft.fft(y, out=y) is y
    assert_close(y, ref, np.complex128)
    z = x.copy()
    hyfft.ifft(z[:, ::2], out=z[:, 1::2])  # overlapping buffers, distinct elements
    assert_close(z[:, 1::2], np.fft.ifft(x[:, ::2]), np.complex128)


def test_input_unchanged(rng):
    x = random_array(rng, (6, 9), np.complex128)
    keep = x.copy()
    hyfft.irfftn(x)
    hyfft.fftn(x)
    assert np.array_equal(x, keep)


def test_views_are_not_copied(rng):
    """A strided view reaches hyfft with its own strides (the plan's problem
    has them), not as a contiguous copy; so does a strided out."""
    hyfft.plan_cache.clear()
    base = random_array(rng, (12, 30), np.complex128)
    x = base[::3, ::2]  # shape (4, 15), element strides (90, 2)
    out = np.empty((4, 15, 2), np.complex128)[:, :, 1]  # element strides (30, 2)
    hyfft.fft(x, axis=0, out=out)
    assert_close(out, np.fft.fft(x, axis=0), np.complex128)
    keys = list(hyfft.plan_cache._plans)
    assert len(keys) == 1
    dims, batch = keys[0][5], keys[0][6]
    assert dims == ((4, 90, 30),)
    assert batch == ((15, 2, 2),)


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_hermitian_and_helpers(rng, norm):
    # hfft/ihfft against numpy's, on an axis and with n; the helpers are
    # numpy's own.
    z = random_array(rng, (5, 9), np.complex128)
    r = random_array(rng, (5, 9), np.float64)
    assert_close(hyfft.hfft(z, norm=norm), np.fft.hfft(z, norm=norm), np.complex128)
    assert_close(hyfft.hfft(z, 12, 0, norm), np.fft.hfft(z, 12, 0, norm), np.complex128)
    assert_close(hyfft.ihfft(r, norm=norm), np.fft.ihfft(r, norm=norm), np.complex128)
    assert_close(hyfft.ihfft(r, 7, 0, norm), np.fft.ihfft(r, 7, 0, norm), np.complex128)
    # hfftn inverts ihfftn.
    assert_close(hyfft.hfftn(hyfft.ihfftn(r, norm=norm), s=r.shape, norm=norm), r, np.float64)
    assert np.array_equal(hyfft.fftfreq(8, 0.5), np.fft.fftfreq(8, 0.5))
    assert np.array_equal(hyfft.rfftfreq(9), np.fft.rfftfreq(9))
    assert np.array_equal(hyfft.fftshift(r, axes=0), np.fft.fftshift(r, axes=0))
    assert np.array_equal(hyfft.ifftshift(r), np.fft.ifftshift(r))
