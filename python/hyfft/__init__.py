"""hyfft: NumPy/SciPy-compatible fast Fourier transforms on the hyfft C library.

    import hyfft
    y = hyfft.fft(x)                  # like numpy.fft.fft
    Y = hyfft.rfftn(img, axes=(0, 1))
    C = hyfft.dctn(img, type=2, norm="ortho")  # like scipy.fft.dctn
    p = hyfft.Plan(x.shape, axes=(-1,), dtype=x.dtype)  # plan once,
    y = p(x)                                            # run many times

    import scipy.fft
    with scipy.fft.set_backend(hyfft.scipy_backend):
        y = scipy.fft.fft(x)

The shared library is found through $HYFFT_LIBRARY, then next to this
package, then the system loader path, then a build folder of the source
tree (see python/README.md). NumPy arrays run on the device of
hyfft.set_device() ("cpu" by default); CuPy arrays on their own GPU, without
copies.
"""

from ._lib import HyfftError, library_path, version
from ._core import plan_cache, set_device, get_device
from ._fft import (fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfft2, irfft2,
                   rfftn, irfftn, hfft, ihfft, hfft2, ihfft2, hfftn, ihfftn, fftfreq,
                   rfftfreq, fftshift, ifftshift)
from ._r2r import dct, idct, dst, idst, dctn, idctn, dstn, idstn
from ._plan import Plan
from . import scipy_backend

__version__ = "0.1.0"

__all__ = ["HyfftError", "Plan", "plan_cache", "set_device", "get_device", "version",
           "library_path", "scipy_backend", "fft", "ifft", "fft2", "ifft2", "fftn",
           "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn", "hfft", "ihfft",
           "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
           "dct", "idct", "dst", "idst", "dctn", "idctn", "dstn", "idstn"]
