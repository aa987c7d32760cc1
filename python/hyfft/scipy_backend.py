"""A scipy.fft backend: ``scipy.fft.set_backend(hyfft.scipy_backend)``.

Implements the uarray protocol (``__ua_domain__`` and
``__ua_function__``). The 18 complex, real and Hermitian FFTs of
scipy.fft and its 8 discrete cosine and sine transforms (dct, idct, dst,
idst and their n-D forms) run on hyfft; every other function (fht, ifht)
returns NotImplemented, so that scipy falls back to its own implementation
when the backend is set with ``set_backend(..., coerce=False)`` or
registered with ``skip_backend``/``set_global_backend`` (scipy then tries
the next backend).

scipy-only arguments: ``overwrite_x`` is accepted and ignored (hyfft never
writes the input); ``workers`` is ignored (hyfft's CPU backend uses
$HYFFT_NUM_THREADS threads); ``plan`` must be None. scipy's ``norm`` and
n/s/axis/axes behave as in numpy.fft, which hyfft follows.
"""

from . import _fft, _r2r

__ua_domain__ = "numpy.scipy.fft"

_FUNCTIONS = {name: getattr(_fft, name) for name in _fft.__all__}
# The DCTs and DSTs take scipy's arguments as they are.
_R2R = {name: getattr(_r2r, name) for name in _r2r.__all__}


def __ua_function__(method, args, kwargs):
    name = getattr(method, "__name__", None)
    if name in _R2R:
        return _R2R[name](*args, **kwargs)
    fn = _FUNCTIONS.get(name)
    if fn is None:
        return NotImplemented
    # scipy's positional order is (x, n|s, axis|axes, norm, overwrite_x,
    # workers): only the first four mean the same to hyfft (whose fifth is out).
    args = args[:4]
    kwargs = dict(kwargs)
    kwargs.pop("overwrite_x", None)
    kwargs.pop("workers", None)
    if kwargs.pop("plan", None) is not None:
        return NotImplemented  # scipy's precomputed plans are not hyfft plans
    return fn(*args, **kwargs)
