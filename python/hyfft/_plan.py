"""hyfft.Plan: a transform of one shape planned once and run many times."""

import math
import operator

import numpy as np

from . import _core, _lib
from ._fft import _normalize_axis, _scale

__all__ = ["Plan"]

_KINDS = {"c2c": _lib.C2C, "r2c": _lib.R2C, "c2r": _lib.C2R}


class Plan:
    """A transform planned for arrays of one shape and dtype.

    Plan(shape, axes=None, kind="c2c", dtype=None, device="cpu",
         inverse=False, norm=None, n=None)

    shape: the input array's shape. axes: the transformed axes (default all;
    for "r2c"/"c2r" the last one is the halved axis). kind: "c2c", "r2c"
    (real input, like rfftn) or "c2r" (like irfftn). dtype: the input dtype,
    which picks the precision (default complex128 for c2c/c2r, float64 for
    r2c). device: an hyfft device spec for NumPy arrays ("cpu", "cuda:0",
    "opencl:0:0", "auto"); CuPy arrays run on their own device. inverse: the
    backward direction for "c2c" ("r2c" is always forward, "c2r" backward).
    norm: as in numpy.fft. n: for "c2r", the real length of the last axis
    (default 2*(m-1) for an input of length m; n//2+1 must equal m).

    Calling plan(x, out=None) transforms x, which must have the planned
    shape (its dtype is converted if needed, its strides may be anything:
    each new layout is planned once and kept with the Plan, up to four). No cropping or padding is done: use hyfft.fft & co for that.
    A Plan may be called from several threads at once.
    """

    def __init__(self, shape, axes=None, kind="c2c", dtype=None, device="cpu",
                 inverse=False, norm=None, n=None):
        try:
            self.shape = tuple(operator.index(m) for m in shape)
        except TypeError:
            raise TypeError("shape must be a sequence of integers") from None
        if kind not in _KINDS:
            raise ValueError(f"kind must be 'c2c', 'r2c' or 'c2r', not {kind!r}")
        self.kind = kind
        ndim = len(self.shape)
        if ndim == 0:
            raise ValueError("a plan needs at least one dimension")
        axes = range(ndim) if axes is None else axes
        self.axes = tuple(_normalize_axis(ax, ndim) for ax in axes)
        if not self.axes or len(set(self.axes)) != len(self.axes):
            raise ValueError("axes must be non-empty and without repeats")
        if len(self.axes) > _lib.MAX_RANK:
            raise ValueError(f"at most {_lib.MAX_RANK} axes")
        if any(m < 1 for m in self.shape):
            raise ValueError(f"invalid shape {self.shape}")
        if kind == "r2c":
            dtype = np.dtype(np.float64 if dtype is None else dtype)
            if dtype not in (np.float32, np.float64):
                raise TypeError("an r2c plan needs a float32 or float64 dtype")
        else:
            dtype = np.dtype(np.complex128 if dtype is None else dtype)
            if dtype not in (np.complex64, np.complex128):
                raise TypeError(f"a {kind} plan needs a complex64 or complex128 dtype")
        self.dtype = dtype
        single = dtype in (np.float32, np.complex64)
        self.device = device
        self.inverse = bool(inverse) if kind == "c2c" else kind == "c2r"

        lengths = [self.shape[ax] for ax in self.axes]
        out_shape = list(self.shape)
        last = self.axes[-1]
        if kind == "r2c":
            out_shape[last] = self.shape[last] // 2 + 1
            self.out_dtype = np.dtype(np.complex64 if single else np.complex128)
        elif kind == "c2r":
            m = self.shape[last]
            n = (m - 1) * 2 if n is None else operator.index(n)
            if n < 1 or n // 2 + 1 != m:
                raise ValueError(f"c2r: a real length n={n} needs {n // 2 + 1} complex "
                                 f"inputs on axis {last}, the shape has {m}")
            lengths[-1] = out_shape[last] = n
            self.out_dtype = np.dtype(np.float32 if single else np.float64)
        else:
            self.out_dtype = dtype
        self.lengths = tuple(lengths)
        self.out_shape = tuple(out_shape)
        self.norm = norm
        self.scale = _scale(norm, math.prod(lengths), not self.inverse)
        self._kind = _KINDS[kind]
        self._sign = _lib.BACKWARD if self.inverse else _lib.FORWARD
        # The plan's own hyfft plans (one per memory layout seen), kept
        # whatever happens to the global cache.
        self._plans = _core.PlanCache(maxsize=4)

    def __repr__(self):
        return (f"hyfft.Plan(shape={self.shape}, axes={self.axes}, kind={self.kind!r}, "
                f"dtype={self.dtype}, device={self.device!r}, inverse={self.inverse}, "
                f"norm={self.norm!r})")

    def __call__(self, x, out=None):
        xp = _core.array_module(x)
        x = xp.asarray(x)
        if tuple(x.shape) != self.shape:
            raise ValueError(f"the plan is for shape {self.shape}, the input has "
                             f"{tuple(x.shape)}")
        if self.kind == "r2c" and x.dtype.kind == "c":
            raise TypeError("an r2c plan needs real input")
        x = x.astype(self.dtype, copy=False)
        if out is None:
            out = xp.empty(self.out_shape, self.out_dtype)
        elif tuple(out.shape) != self.out_shape or out.dtype != self.out_dtype:
            raise ValueError(f"out must have shape {self.out_shape} and dtype "
                             f"{self.out_dtype}")
        return _core.execute(self._kind, self._sign, x, out, list(self.axes),
                             list(self.lengths), self.scale, device=self.device,
                             cache=self._plans)
