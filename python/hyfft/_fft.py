"""numpy.fft-compatible functions computed by hyfft.

Signatures and semantics follow numpy.fft (NumPy 2 signatures, with out=):
n/s crop or zero-pad the input, axis/axes pick any axes (negative ones
too), norm is "backward" (default), "ortho" or "forward". float32 and
complex64 inputs are transformed in single precision, everything else
(integers, booleans, float16, float64, longdouble) in double precision.
"""

import math
import operator

import numpy as np

from . import _core, _lib
from ._torch import tensors

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft",
           "rfft2", "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn",
           "ihfftn"]

_AxisError = getattr(getattr(np, "exceptions", np), "AxisError", ValueError)


def _normalize_axis(axis, ndim):
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"axis must be an integer, not {type(axis).__name__}") from None
    if not -ndim <= axis < ndim:
        raise _AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _scale(norm, n, forward):
    """The factor hyfft applies to every output element for a transform of
    n points in total (numpy.fft's norm rules)."""
    if norm is None or norm == "backward":
        return 1.0 if forward else 1.0 / n
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if norm == "forward":
        return 1.0 / n if forward else 1.0
    raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or "forward".')


def _asarray(a):
    """a as a NumPy (or CuPy) array without copying when it already is one."""
    xp = _core.array_module(a)
    a = xp.asarray(a)
    if a.dtype.kind not in "biufc":
        raise TypeError(f"hyfft: unsupported array dtype {a.dtype}")
    return xp, a


def _complex_type(dtype):
    return np.complex64 if dtype in (np.float32, np.complex64) else np.complex128


def _real_type(dtype):
    if dtype.kind == "c":
        raise TypeError(f"hyfft: a real transform needs real input, not {dtype}")
    return np.float32 if dtype == np.float32 else np.float64


def _check_n(n):
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"n must be an integer, not {type(n).__name__}") from None
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _resize(xp, a, axes, sizes):
    """a cropped (a view) or zero-padded (a copy) to sizes along axes."""
    crop = [slice(None)] * a.ndim
    pad = False
    for ax, m in zip(axes, sizes):
        if a.shape[ax] > m:
            crop[ax] = slice(0, m)
        elif a.shape[ax] < m:
            pad = True
    a = a[tuple(crop)]
    if pad:
        shape = list(a.shape)
        for ax, m in zip(axes, sizes):
            shape[ax] = m
        z = xp.zeros(shape, a.dtype)
        z[tuple(slice(0, k) for k in a.shape)] = a
        a = z
    return a


def _cook_nd(a, s, axes, real_inverse=False):
    """numpy's rules for (s, axes) of the n-dimensional functions: the
    normalized axes and the transform length per axis."""
    if axes is not None:
        try:
            axes = [operator.index(ax) for ax in axes]
        except TypeError:
            raise TypeError("axes must be a sequence of integers") from None
    if s is not None:
        try:
            s = [operator.index(m) if m is not None else None for m in s]
        except TypeError:
            raise TypeError("s must be a sequence of integers") from None
        if axes is None:
            axes = list(range(-len(s), 0))
        elif len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
        if len(s) > a.ndim:
            raise ValueError("s has more entries than the array has dimensions")
    elif axes is None:
        axes = list(range(a.ndim))
    axes = [_normalize_axis(ax, a.ndim) for ax in axes]
    if s is None:
        s = [a.shape[ax] for ax in axes]
        if real_inverse and axes:
            s[-1] = (a.shape[axes[-1]] - 1) * 2
    else:
        # None in s (NumPy 2) means that axis' default length.
        last = len(s) - 1
        s = [((a.shape[ax] - 1) * 2 if real_inverse and i == last else a.shape[ax])
             if m is None else m for i, (ax, m) in enumerate(zip(axes, s))]
    for m in s:
        if m < 1:
            raise ValueError(f"Invalid number of data points ({m}) specified")
    return s, axes


def _check_out(xp, out, shape, dtype):
    """Validate out=; returns (array to write, the user's out or None)."""
    if out is None:
        return xp.empty(shape, dtype), None
    if _core.array_module(out) is not xp or not hasattr(out, "shape"):
        raise TypeError("out must be an array of the same kind as the input")
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"out has shape {tuple(out.shape)}, expected {tuple(shape)}")
    if xp is np and not out.flags.writeable:
        raise ValueError("out is read-only")
    if out.dtype != dtype:
        if not np.can_cast(dtype, out.dtype, casting="same_kind"):
            raise TypeError(f"cannot write a {np.dtype(dtype)} result into out of dtype "
                            f"{out.dtype}")
        return xp.empty(shape, dtype), out
    return out, out


def _finish(result, user_out):
    if user_out is not None and user_out is not result:
        user_out[...] = result
        return user_out
    return result


def _c2c(a, s, axes, norm, forward, out):
    xp, a = _asarray(a)
    a = a.astype(_complex_type(a.dtype), copy=False)
    if not axes:
        # No axes: numpy returns the (complex) input, scaled by nothing.
        res, user = _check_out(xp, out, a.shape, a.dtype)
        res[...] = a
        return _finish(res, user)
    if len(set(axes)) != len(axes) or len(axes) > _lib.MAX_RANK:
        # Repeated axes (numpy transforms such an axis twice) or more axes
        # than hyfft's rank: one axis at a time, last first, like numpy.
        for i in reversed(range(len(axes))):
            a = _c2c(a, [s[i]], [axes[i]], norm, forward, out if i == 0 else None)
        return a
    a = _resize(xp, a, axes, s)
    scale = _scale(norm, math.prod(s), forward)
    res, user = _check_out(xp, out, a.shape, a.dtype)
    sign = _lib.FORWARD if forward else _lib.BACKWARD
    _core.execute(_lib.C2C, sign, a, res, axes, s, scale)
    return _finish(res, user)


def _r2c(a, s, axes, norm, out):
    xp, a = _asarray(a)
    a = a.astype(_real_type(a.dtype), copy=False)
    if len(set(axes)) != len(axes) or len(axes) > _lib.MAX_RANK:
        # numpy: rfft along the last axis, then complex FFTs along the others.
        last = _r2c(a, [s[-1]], [axes[-1]], norm, None)
        return _c2c(last, s[:-1], axes[:-1], norm, True, out)
    a = _resize(xp, a, axes, s)
    shape = list(a.shape)
    shape[axes[-1]] = s[-1] // 2 + 1
    res, user = _check_out(xp, out, shape, _complex_type(a.dtype))
    _core.execute(_lib.R2C, _lib.FORWARD, a, res, axes, s, _scale(norm, math.prod(s), True))
    return _finish(res, user)


def _c2r(a, s, axes, norm, out):
    xp, a = _asarray(a)
    a = a.astype(_complex_type(a.dtype), copy=False)
    if len(set(axes)) != len(axes) or len(axes) > _lib.MAX_RANK:
        # numpy: complex inverse FFTs along all but the last axis, then irfft.
        a = _c2c(a, s[:-1], axes[:-1], norm, False, None)
        return _c2r(a, [s[-1]], [axes[-1]], norm, out)
    sizes = list(s)
    sizes[-1] = s[-1] // 2 + 1  # complex input length of the halved axis
    a = _resize(xp, a, axes, sizes)
    shape = list(a.shape)
    shape[axes[-1]] = s[-1]
    real = np.float32 if a.dtype == np.complex64 else np.float64
    res, user = _check_out(xp, out, shape, real)
    _core.execute(_lib.C2R, _lib.BACKWARD, a, res, axes, s, _scale(norm, math.prod(s), False))
    return _finish(res, user)


def _one_axis(a, n, axis):
    """(s, axes) of the 1-D functions; n None means the axis' length."""
    a = a if hasattr(a, "ndim") else np.asarray(a)
    if a.ndim == 0:
        raise ValueError("a 0-d array has no axis to transform")
    axis = _normalize_axis(axis, a.ndim)
    return a, (a.shape[axis] if n is None else _check_n(n)), axis


# ---------------------------------------------------------------------------
# The public functions.
# ---------------------------------------------------------------------------

@tensors
def fft(a, n=None, axis=-1, norm=None, out=None):
    """1-D discrete Fourier transform (numpy.fft.fft)."""
    a, n, axis = _one_axis(a, n, axis)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return _c2c(a, [n], [axis], norm, True, out)


@tensors
def ifft(a, n=None, axis=-1, norm=None, out=None):
    """1-D inverse discrete Fourier transform (numpy.fft.ifft)."""
    a, n, axis = _one_axis(a, n, axis)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return _c2c(a, [n], [axis], norm, False, out)


@tensors
def fftn(a, s=None, axes=None, norm=None, out=None):
    """N-D discrete Fourier transform (numpy.fft.fftn)."""
    _, a = _asarray(a)
    s, axes = _cook_nd(a, s, axes)
    return _c2c(a, s, axes, norm, True, out)


@tensors
def ifftn(a, s=None, axes=None, norm=None, out=None):
    """N-D inverse discrete Fourier transform (numpy.fft.ifftn)."""
    _, a = _asarray(a)
    s, axes = _cook_nd(a, s, axes)
    return _c2c(a, s, axes, norm, False, out)


@tensors
def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """2-D discrete Fourier transform (numpy.fft.fft2)."""
    return fftn(a, s, axes, norm, out)


@tensors
def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """2-D inverse discrete Fourier transform (numpy.fft.ifft2)."""
    return ifftn(a, s, axes, norm, out)


@tensors
def rfft(a, n=None, axis=-1, norm=None, out=None):
    """1-D transform of real input, n//2+1 outputs (numpy.fft.rfft)."""
    a, n, axis = _one_axis(a, n, axis)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return _r2c(a, [n], [axis], norm, out)


@tensors
def irfft(a, n=None, axis=-1, norm=None, out=None):
    """Inverse of rfft: n real outputs, n = 2*(m-1) by default (numpy.fft.irfft)."""
    a = a if hasattr(a, "ndim") else np.asarray(a)
    if a.ndim == 0:
        raise ValueError("a 0-d array has no axis to transform")
    axis = _normalize_axis(axis, a.ndim)
    n = (a.shape[axis] - 1) * 2 if n is None else _check_n(n)
    if n < 1:
        raise ValueError(f"Invalid number of data points ({n}) specified")
    return _c2r(a, [n], [axis], norm, out)


@tensors
def rfftn(a, s=None, axes=None, norm=None, out=None):
    """N-D transform of real input (numpy.fft.rfftn)."""
    _, a = _asarray(a)
    s, axes = _cook_nd(a, s, axes)
    if not axes:
        raise ValueError("rfftn needs at least one axis")
    return _r2c(a, s, axes, norm, out)


@tensors
def irfftn(a, s=None, axes=None, norm=None, out=None):
    """Inverse of rfftn (numpy.fft.irfftn)."""
    _, a = _asarray(a)
    s, axes = _cook_nd(a, s, axes, real_inverse=True)
    if not axes:
        raise ValueError("irfftn needs at least one axis")
    return _c2r(a, s, axes, norm, out)


@tensors
def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """2-D transform of real input (numpy.fft.rfft2)."""
    return rfftn(a, s, axes, norm, out)


@tensors
def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Inverse of rfft2 (numpy.fft.irfft2)."""
    return irfftn(a, s, axes, norm, out)


# ---------------------------------------------------------------------------
# Hermitian-symmetric input and output (numpy.fft.hfft/ihfft, scipy.fft's
# n-D forms): the real transforms of the conjugate with the norm's
# direction swapped, as numpy defines them.
# ---------------------------------------------------------------------------

_SWAP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _swap(norm):
    try:
        return _SWAP[norm]
    except (KeyError, TypeError):
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or '
                         '"forward".') from None


def _conj(a):
    xp, a = _asarray(a)
    return a.conj() if a.dtype.kind == "c" else a


@tensors
def hfft(a, n=None, axis=-1, norm=None, out=None):
    """Real spectrum of a Hermitian-symmetric signal given by its first half
    (numpy.fft.hfft): irfft of the conjugate, n = 2*(m-1) by default."""
    return irfft(_conj(a), n, axis, _swap(norm), out)


@tensors
def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """Inverse of hfft (numpy.fft.ihfft): the conjugate of rfft."""
    res = rfft(a, n, axis, _swap(norm), out)
    xp = _core.array_module(res)
    xp.conjugate(res, out=res)
    return res


@tensors
def hfftn(a, s=None, axes=None, norm=None, out=None):
    """N-D hfft (scipy.fft.hfftn): irfftn of the conjugate."""
    return irfftn(_conj(a), s, axes, _swap(norm), out)


@tensors
def ihfftn(a, s=None, axes=None, norm=None, out=None):
    """N-D ihfft (scipy.fft.ihfftn): the conjugate of rfftn."""
    res = rfftn(a, s, axes, _swap(norm), out)
    xp = _core.array_module(res)
    xp.conjugate(res, out=res)
    return res


@tensors
def hfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """2-D hfft (scipy.fft.hfft2)."""
    return hfftn(a, s, axes, norm, out)


@tensors
def ihfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """2-D ihfft (scipy.fft.ihfft2)."""
    return ihfftn(a, s, axes, norm, out)


# ---------------------------------------------------------------------------
# Frequencies and shifts (numpy.fft's helpers, on the input's array module)
# so that hyfft can stand in for numpy.fft whole.
# ---------------------------------------------------------------------------

def fftfreq(n, d=1.0):
    """Sample frequencies of fft's output (numpy.fft.fftfreq)."""
    return np.fft.fftfreq(n, d)


def rfftfreq(n, d=1.0):
    """Sample frequencies of rfft's output (numpy.fft.rfftfreq)."""
    return np.fft.rfftfreq(n, d)


def fftshift(x, axes=None):
    """Zero frequency to the centre (numpy.fft.fftshift; CuPy arrays stay CuPy)."""
    xp = _core.array_module(x)
    return xp.fft.fftshift(x, axes=axes)


def ifftshift(x, axes=None):
    """Inverse of fftshift (numpy.fft.ifftshift)."""
    xp = _core.array_module(x)
    return xp.fft.ifftshift(x, axes=axes)
