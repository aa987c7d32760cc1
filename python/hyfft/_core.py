"""Running one hyfft transform on NumPy (or CuPy) arrays, and the plan cache.

`execute` turns arrays whose shapes are already final (cropping and
zero-padding are done by the callers) into an hyfft_problem in guru form:
one transform dim per transformed axis and one batch dim per other axis,
each with the arrays' own element strides, so views are transformed in place
without copies. Layouts hyfft cannot express (negative, zero or unaligned
strides, more than 8 batch dims after merging) are copied first.
"""

import collections
import ctypes
import os
import threading

import numpy as np

from . import _lib
from ._lib import _Problem

__all__ = ["execute", "plan_cache", "set_device", "get_device"]

_default_device = os.environ.get("HYFFT_PY_DEVICE", "cpu")


def set_device(spec):
    """Choose the hyfft device spec ("cpu", "cuda:0", "opencl:0:0", "auto")
    used for NumPy (host) arrays. The default is "cpu", or $HYFFT_PY_DEVICE.
    CuPy arrays always run on their own CUDA device."""
    global _default_device
    if not isinstance(spec, str):
        raise TypeError("device spec must be a string")
    _default_device = spec


def get_device():
    """The device spec used for NumPy arrays."""
    return _default_device


class _PlanHandle:
    """Owns one hyfft_plan; destroyed when the last reference goes, so a
    plan evicted from the cache while another thread executes it stays
    alive until that execution returns."""

    def __init__(self, context, problem, flags):
        handle = ctypes.c_void_p()
        _lib.check(_lib.lib.hyfft_plan_create(context.handle, ctypes.byref(problem), flags,
                                              ctypes.byref(handle)), "hyfft_plan_create")
        self.handle = handle
        self.context = context  # keeps the context alive while the plan lives
        self._destroy = _lib.lib.hyfft_plan_destroy

    def describe(self):
        return _lib.print_buffer(_lib.lib.hyfft_plan_describe, self.handle)

    def __del__(self):
        handle = getattr(self, "handle", None)
        if handle:
            self._destroy(handle)
            self.handle = None


class PlanCache:
    """A thread-safe LRU cache of hyfft plans keyed by the full problem
    (kind, precision, sign, dims with strides, batch dims, scale, memory)
    and the device. ``maxsize`` may be changed at any time; 0 disables
    caching."""

    def __init__(self, maxsize=64):
        self._plans = collections.OrderedDict()
        self._lock = threading.Lock()
        self._maxsize = maxsize
        self.hits = 0
        self.misses = 0

    @property
    def maxsize(self):
        return self._maxsize

    @maxsize.setter
    def maxsize(self, value):
        value = int(value)
        if value < 0:
            raise ValueError("maxsize must be >= 0")
        with self._lock:
            self._maxsize = value
            self._trim()

    def _trim(self):
        while len(self._plans) > self._maxsize:
            self._plans.popitem(last=False)

    def __len__(self):
        return len(self._plans)

    def clear(self):
        """Drop every cached plan (plans in use elsewhere live on until done)."""
        with self._lock:
            self._plans.clear()

    def get(self, key, make):
        """The plan for key, made with make() on a miss."""
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:
                self._plans.move_to_end(key)
                self.hits += 1
                return plan
            self.misses += 1
        # Planning can take long (measured plans, GPU compiles): not under the
        # lock. Two threads missing the same key both plan; one result is kept.
        plan = make()
        with self._lock:
            if self._maxsize > 0:
                plan = self._plans.setdefault(key, plan)
                self._plans.move_to_end(key)
                self._trim()
        return plan


plan_cache = PlanCache()


def _cupy():
    """The cupy module if it is importable, else None (imported lazily)."""
    try:
        import cupy  # noqa: F401  (optional dependency)
    except Exception:
        return None
    return cupy


def array_module(x):
    """numpy, or cupy for a cupy.ndarray (without importing cupy for others)."""
    if type(x).__module__.startswith("cupy"):
        cp = _cupy()
        if cp is not None and isinstance(x, cp.ndarray):
            return cp
    return np


def _pointer(xp, a):
    return a.ctypes.data if xp is np else a.data.ptr


def _element_strides(a):
    """Strides in elements, or None when hyfft cannot take them (not
    multiples of the item size, not positive along an axis longer than 1,
    unaligned data)."""
    if a.size == 0:
        return None
    if isinstance(a, np.ndarray) and not a.flags.aligned:
        return None
    size = a.itemsize
    out = []
    for n, st in zip(a.shape, a.strides):
        if n == 1:
            out.append(1)  # the stride of a length-1 axis is never used
        elif st <= 0 or st % size:
            return None
        else:
            out.append(st // size)
    return out


def _batch_dims(shape, axes, in_st, out_st):
    """The non-transformed axes with length > 1 as (n, in_stride, out_stride),
    outermost first, neighbours merged where one steps over the other."""
    dims = []
    for ax, n in enumerate(shape):
        if ax in axes or n == 1:
            continue
        d = (n, in_st[ax], out_st[ax])
        if dims:
            pn, pi, po = dims[-1]
            if pi == n * d[1] and po == n * d[2]:
                dims[-1] = (pn * n, d[1], d[2])
                continue
        dims.append(d)
    return dims


def _overlap(xp, a, b):
    if xp is np:
        return np.may_share_memory(a, b)
    # CuPy: compare the byte ranges of the two arrays' memory.
    lo_a, hi_a = a.data.ptr, a.data.ptr + a.nbytes
    lo_b, hi_b = b.data.ptr, b.data.ptr + b.nbytes
    return lo_a < hi_b and lo_b < hi_a


def problem_key(kind, precision, sign, dims, batch, scale, memory, device, r2r_kinds=()):
    return (device, memory, kind, precision, sign, tuple(dims), tuple(batch), scale,
            tuple(r2r_kinds))


def _make_problem(kind, precision, sign, dims, batch, scale, memory, r2r_kinds=()):
    p = _Problem()
    p.kind, p.precision, p.sign = kind, precision, sign
    p.rank = len(dims)
    for i, d in enumerate(dims):
        p.dims[i].n, p.dims[i].in_stride, p.dims[i].out_stride = d
    for i, k in enumerate(r2r_kinds):
        p.r2r_kind[i] = k
    p.batch_rank = len(batch)
    for i, d in enumerate(batch):
        p.batch[i].n, p.batch[i].in_stride, p.batch[i].out_stride = d
    p.inplace = 0
    p.scale = scale
    p.memory = memory
    return p


def execute(kind, sign, a, out, axes, lengths, scale, device=None, cache=None, r2r_kinds=()):
    """Transform a into out (both of their final shapes and dtypes).

    kind: _lib.C2C/R2C/C2R/R2R; axes: the transformed axes, the last one
    being the halved axis of R2C/C2R; lengths: the logical transform length
    per axis (the real length for R2C/C2R, the array's length for R2R);
    r2r_kinds: R2R's kind per axis (hyfft_r2r_kind values); scale: the
    factor applied to every output element. out receives the result and is returned; it may be any
    writable view (its strides are passed to hyfft when possible, else the
    result goes through a temporary). cache: the PlanCache to use (default
    the module's plan_cache).
    """
    xp = array_module(a)
    if a.size == 0 or out.size == 0:
        return out  # an empty batch: nothing to transform
    precision = _lib.F32 if out.dtype in (np.float32, np.complex64) else _lib.F64
    if xp is np:
        memory, dev = _lib.MEMORY_HOST, device or _default_device
    else:
        memory, dev = _lib.MEMORY_DEVICE, f"cuda:{a.device.id}"

    in_st = _element_strides(a)
    if in_st is None:
        a = a.copy(order="C")  # a fresh, aligned, contiguous copy
        in_st = _element_strides(a)
    target = out
    out_st = _element_strides(out)
    if out_st is None or _overlap(xp, a, out):
        target = xp.empty(out.shape, out.dtype)
        out_st = _element_strides(target)

    dims = [(n, in_st[ax], out_st[ax]) for ax, n in zip(axes, lengths)]
    batch = _batch_dims(a.shape, axes, in_st, out_st)
    if len(batch) > _lib.MAX_BATCH_RANK:
        # Too many independent batch axes: contiguous copies merge them all.
        a = a.copy(order="C")  # a fresh, aligned, contiguous copy
        if target is out:
            target = xp.empty(out.shape, out.dtype)
        in_st, out_st = _element_strides(a), _element_strides(target)
        dims = [(n, in_st[ax], out_st[ax]) for ax, n in zip(axes, lengths)]
        batch = _batch_dims(a.shape, axes, in_st, out_st)

    key = problem_key(kind, precision, sign, dims, batch, scale, memory, dev, r2r_kinds)

    def make():
        problem = _make_problem(kind, precision, sign, dims, batch, scale, memory, r2r_kinds)
        return _PlanHandle(_lib.get_context(dev), problem, _lib.ESTIMATE)

    plan = (plan_cache if cache is None else cache).get(key, make)
    run(plan, xp, a, target)
    if target is not out:
        out[...] = target
    return out


# CUDA's handle for the legacy default stream (CU_STREAM_LEGACY), which
# CuPy's null stream is.
_CU_STREAM_LEGACY = 1


def run(plan, xp, a, out):
    """Execute on two arrays that match the plan's problem: NumPy arrays
    synchronously; CuPy arrays queued on CuPy's current stream, ordered
    after the work already there and before what comes next, like CuPy's
    own operations (no host synchronisation)."""
    if xp is np:
        _lib.check(_lib.lib.hyfft_execute(plan.handle, _pointer(xp, a), _pointer(xp, out)),
                   "hyfft_execute")
        return
    stream = xp.cuda.get_current_stream().ptr or _CU_STREAM_LEGACY
    _lib.check(_lib.lib.hyfft_execute_async(plan.handle, _pointer(xp, a), _pointer(xp, out),
                                            None, stream), "hyfft_execute_async")
