"""scipy.fft-compatible discrete cosine and sine transforms computed by hyfft.

dct/idct/dst/idst and their n-dimensional forms take scipy.fft's arguments
and follow its definitions, which are FFTW's real-to-real kinds (DCT-II is
FFTW_REDFT10, and so on) without normalisation for norm=None:

    type 1 2 3 4 of dct: REDFT00 REDFT10 REDFT01 REDFT11
    type 1 2 3 4 of dst: RODFT00 RODFT10 RODFT01 RODFT11

The inverse of type 1, 2, 3, 4 is the transform of type 1, 3, 2, 4 divided
by the logical length N = 2(n-1) (DCT-I), 2(n+1) (DST-I) or 2n (the
others) per axis. norm is None/"backward" (the forward transform
unscaled), "forward" (the forward one divided by N) or "ortho" (both by
sqrt(N)); orthogonalize (default: norm == "ortho") scales the first and
last elements as scipy documents so that the "ortho" transforms are
orthonormal (for DST-II/III the last element, as scipy does since 1.12;
scipy 1.8-1.11 scaled element 0 there). float32 input is transformed in single precision, other real
input in double; complex input transforms its real and imaginary parts.
overwrite_x and workers are accepted and ignored.
"""

import math
import operator

import numpy as np

from . import _core, _lib
from ._fft import _asarray, _normalize_axis, _resize
from ._torch import tensors

__all__ = ["dct", "idct", "dst", "idst", "dctn", "idctn", "dstn", "idstn"]

# hyfft_r2r_kind values (include/hyfft.h) by (family, type).
_KIND = {("dct", 1): 1, ("dct", 2): 2, ("dct", 3): 3, ("dct", 4): 4,
         ("dst", 1): 5, ("dst", 2): 6, ("dst", 3): 7, ("dst", 4): 8}
_INVERSE_TYPE = {1: 1, 2: 3, 3: 2, 4: 4}
_SQRT2 = math.sqrt(2.0)


def _logical(family, kind_type, n):
    if kind_type == 1:
        return 2 * (n - 1) if family == "dct" else 2 * (n + 1)
    return 2 * n


def _check_type(kind_type):
    try:
        kind_type = operator.index(kind_type)
    except TypeError:
        raise TypeError(f"type must be an integer, not {type(kind_type).__name__}") from None
    if kind_type not in (1, 2, 3, 4):
        raise ValueError(f"invalid type {kind_type}: types 1, 2, 3 and 4 exist")
    return kind_type


def _axis_scale(norm, logical, inverse):
    if norm is None or norm == "backward":
        return 1.0 / logical if inverse else 1.0
    if norm == "ortho":
        return 1.0 / math.sqrt(logical)
    if norm == "forward":
        return 1.0 if inverse else 1.0 / logical
    raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or "forward".')


def _edges(xp, a, axis, first, last, factor):
    """Multiply the first and/or last element along axis by factor (in place)."""
    index = [slice(None)] * a.ndim
    if first:
        index[axis] = 0
        a[tuple(index)] *= factor
    if last:
        index[axis] = -1
        a[tuple(index)] *= factor


def _transform(x, family, kind_type, s, axes, norm, inverse, orthogonalize):
    xp, a = _asarray(x)
    kind_type = _check_type(kind_type)
    if a.dtype.kind == "c":
        real = _transform(a.real, family, kind_type, s, axes, norm, inverse, orthogonalize)
        imag = _transform(a.imag, family, kind_type, s, axes, norm, inverse, orthogonalize)
        return real + 1j * imag
    dtype = np.float32 if a.dtype == np.float32 else np.float64
    a = a.astype(dtype, copy=False)
    if not axes:
        return a.copy()
    if len(set(axes)) != len(axes) or len(axes) > _lib.MAX_RANK:
        # Repeated axes (transformed twice) or more than hyfft's rank: one
        # axis at a time.
        for ax, m in zip(axes, s):
            a = _transform(a, family, kind_type, [m], [ax], norm, inverse, orthogonalize)
        return a
    for m in s:
        if m < 1 or (kind_type == 1 and family == "dct" and m < 2):
            raise ValueError(f"invalid number of data points ({m}) specified")
    a = _resize(xp, a, axes, s)
    # The transform that runs: the inverse of type t is type _INVERSE_TYPE[t].
    run_type = _INVERSE_TYPE[kind_type] if inverse else kind_type
    if orthogonalize is None:
        orthogonalize = norm == "ortho"
    scale = 1.0
    for m in s:
        scale *= _axis_scale(norm, _logical(family, kind_type, m), inverse)
    if orthogonalize and run_type in (1, 3):
        # Inputs: DCT-I both ends and DCT-III the first by sqrt(2); DST-III
        # the last (DST-I needs nothing).
        a = a.copy()
        for ax in axes:
            if family == "dct":
                _edges(xp, a, ax, True, run_type == 1, _SQRT2)
            elif run_type == 3:
                _edges(xp, a, ax, False, True, _SQRT2)
    out = xp.empty(a.shape, dtype)
    kinds = [_KIND[(family, run_type)]] * len(axes)
    _core.execute(_lib.R2R, _lib.FORWARD, a, out, axes, list(s), scale, r2r_kinds=kinds)
    if orthogonalize and run_type in (1, 2):
        # Outputs: DCT-I both ends and DCT-II the first by 1/sqrt(2); DST-II
        # the last (DST-I needs nothing).
        for ax in axes:
            if family == "dct":
                _edges(xp, out, ax, True, run_type == 1, 1.0 / _SQRT2)
            elif run_type == 2:
                _edges(xp, out, ax, False, True, 1.0 / _SQRT2)
    return out


def _one(x, n, axis):
    a = x if hasattr(x, "ndim") else np.asarray(x)
    if a.ndim == 0:
        raise ValueError("a 0-d array has no axis to transform")
    axis = _normalize_axis(axis, a.ndim)
    if n is None:
        n = a.shape[axis]
    else:
        n = operator.index(n)
    return a, [n], [axis]


def _many(x, s, axes):
    a = x if hasattr(x, "ndim") else np.asarray(x)
    if axes is None:
        axes = list(range(a.ndim)) if s is None else list(range(a.ndim - len(s), a.ndim))
    elif not hasattr(axes, "__len__"):
        axes = [axes]
    axes = [_normalize_axis(ax, a.ndim) for ax in axes]
    if s is None:
        s = [a.shape[ax] for ax in axes]
    elif not hasattr(s, "__len__"):
        s = [operator.index(s)]
    if len(s) != len(axes):
        raise ValueError("when given, axes and shape arguments have to be of the same length")
    s = [a.shape[ax] if m is None else operator.index(m) for ax, m in zip(axes, s)]
    return a, s, axes


@tensors
def dct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """Discrete cosine transform of the given type (scipy.fft.dct)."""
    a, s, axes = _one(x, n, axis)
    return _transform(a, "dct", type, s, axes, norm, False, orthogonalize)


@tensors
def idct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Inverse discrete cosine transform (scipy.fft.idct)."""
    a, s, axes = _one(x, n, axis)
    return _transform(a, "dct", type, s, axes, norm, True, orthogonalize)


@tensors
def dst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
        orthogonalize=None):
    """Discrete sine transform of the given type (scipy.fft.dst)."""
    a, s, axes = _one(x, n, axis)
    return _transform(a, "dst", type, s, axes, norm, False, orthogonalize)


@tensors
def idst(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """Inverse discrete sine transform (scipy.fft.idst)."""
    a, s, axes = _one(x, n, axis)
    return _transform(a, "dst", type, s, axes, norm, True, orthogonalize)


@tensors
def dctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """N-D discrete cosine transform, one type on every axis (scipy.fft.dctn)."""
    a, s, axes = _many(x, s, axes)
    return _transform(a, "dct", type, s, axes, norm, False, orthogonalize)


@tensors
def idctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
          orthogonalize=None):
    """Inverse of dctn (scipy.fft.idctn)."""
    a, s, axes = _many(x, s, axes)
    return _transform(a, "dct", type, s, axes, norm, True, orthogonalize)


@tensors
def dstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
         orthogonalize=None):
    """N-D discrete sine transform, one type on every axis (scipy.fft.dstn)."""
    a, s, axes = _many(x, s, axes)
    return _transform(a, "dst", type, s, axes, norm, False, orthogonalize)


@tensors
def idstn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None,
          orthogonalize=None):
    """Inverse of dstn (scipy.fft.idstn)."""
    a, s, axes = _many(x, s, axes)
    return _transform(a, "dst", type, s, axes, norm, True, orthogonalize)
