"""Loading libhyfft through ctypes: the C structures, the function
signatures, the error type and the per-device contexts.

Only the part of include/hyfft.h that the Python package uses is declared
here. The structures must match the C header field for field.
"""

import ctypes
import ctypes.util
import glob
import os
import threading

__all__ = ["HyfftError", "lib", "library_path", "get_context", "check"]

# Constants from include/hyfft.h.
MAX_RANK = 8
MAX_BATCH_RANK = 8
FORWARD = -1
BACKWARD = +1
C2C, R2C, C2R, R2R = 0, 1, 2, 3
F32, F64 = 0, 1
MEMORY_HOST, MEMORY_DEVICE = 0, 1
ESTIMATE = 0
DESTROY_INPUT = 1 << 1


class HyfftError(RuntimeError):
    """A call into libhyfft failed.

    Attributes: ``status`` (the integer hyfft_status), ``status_name``
    (e.g. "HYFFT_INVALID_SIZE") and ``detail`` (hyfft_last_error() of the
    failing call: the message naming the bad part).
    """

    def __init__(self, status, status_name, detail, call=""):
        self.status = status
        self.status_name = status_name
        self.detail = detail
        self.call = call
        where = f"{call}: " if call else ""
        super().__init__(f"{where}{status_name}: {detail}")


class _Dim(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int64), ("in_stride", ctypes.c_int64),
                ("out_stride", ctypes.c_int64)]


class _Problem(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("precision", ctypes.c_int),
                ("sign", ctypes.c_int), ("rank", ctypes.c_int),
                ("dims", _Dim * MAX_RANK), ("batch_rank", ctypes.c_int),
                ("batch", _Dim * MAX_BATCH_RANK), ("inplace", ctypes.c_int),
                ("scale", ctypes.c_double), ("memory", ctypes.c_int),
                ("r2r_kind", ctypes.c_int * MAX_RANK)]


def _candidates():
    """Where libhyfft may be, in the order it is looked for (README.md)."""
    env = os.environ.get("HYFFT_LIBRARY")
    if env:
        # An explicit choice is the only candidate: a wrong path must fail
        # loudly rather than silently load another copy.
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    # Bundled in a wheel: next to this file (or in hyfft.libs/, auditwheel's
    # folder, one level up).
    for pattern in ("libhyfft.so*", "libhyfft*.dylib", "hyfft*.dll",
                    os.path.join("..", "hyfft.libs", "libhyfft*.so*")):
        yield from sorted(glob.glob(os.path.join(here, pattern)))
    # The system loader path (LD_LIBRARY_PATH, ldconfig, an installed hyfft).
    for name in ("libhyfft.so.0", "libhyfft.so"):
        yield name
    found = ctypes.util.find_library("hyfft")
    if found:
        yield found
    # Running from the source tree: a build folder of the repository.
    repo = os.path.dirname(os.path.dirname(here))
    yield from sorted(glob.glob(os.path.join(repo, "build", "*", "libhyfft.so")))


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError("hyfft: libhyfft was not found; set HYFFT_LIBRARY to the "
                      "path of libhyfft.so. Tried: " + "; ".join(tried))


lib, library_path = _load()

_vp = ctypes.c_void_p
_i64 = ctypes.c_int64
_status = ctypes.c_int
for _name, _args in {
    "hyfft_context_create": [ctypes.c_char_p, ctypes.POINTER(_vp)],
    "hyfft_context_destroy": [_vp],
    "hyfft_plan_create": [_vp, ctypes.POINTER(_Problem), ctypes.c_uint, ctypes.POINTER(_vp)],
    "hyfft_plan_destroy": [_vp],
    "hyfft_plan_describe": [_vp, ctypes.c_char_p, ctypes.c_size_t,
                            ctypes.POINTER(ctypes.c_size_t)],
    "hyfft_problem_print": [ctypes.POINTER(_Problem), ctypes.c_char_p, ctypes.c_size_t,
                            ctypes.POINTER(ctypes.c_size_t)],
    "hyfft_execute": [_vp, _vp, _vp],
    "hyfft_execute_async": [_vp, _vp, _vp, _vp, _vp],
}.items():
    _f = getattr(lib, _name)
    _f.argtypes = _args
    _f.restype = _status
for _name in ("hyfft_status_name", "hyfft_last_error", "hyfft_version_string"):
    getattr(lib, _name).restype = ctypes.c_char_p
lib.hyfft_status_name.argtypes = [ctypes.c_int]
lib.hyfft_last_error.argtypes = []
lib.hyfft_version_string.argtypes = []


def check(status, call=""):
    """Raise HyfftError for a non-zero hyfft_status.

    Must be called on the thread that made the call: hyfft_last_error() is
    thread-local (ctypes calls run on the calling thread).
    """
    if status != 0:
        name = lib.hyfft_status_name(status).decode()
        detail = lib.hyfft_last_error().decode(errors="replace")
        raise HyfftError(status, name, detail, call)


def version():
    """The C library's version string."""
    return lib.hyfft_version_string().decode()


def print_buffer(fn, *args):
    """Call a hyfft "print into buf" function and return the text."""
    needed = ctypes.c_size_t(0)
    buf = ctypes.create_string_buffer(256)
    st = fn(*args, buf, len(buf), ctypes.byref(needed))
    if st == 24:  # HYFFT_BUFFER_TOO_SMALL: retry with the size it asked for
        buf = ctypes.create_string_buffer(needed.value + 1)
        st = fn(*args, buf, len(buf), ctypes.byref(needed))
    check(st, fn.__name__)
    return buf.value.decode()


class Context:
    """An hyfft_context (a backend and a device); destroyed with the object.

    Plans keep a reference to their context, so a context lives as long as
    any plan made on it.
    """

    def __init__(self, spec):
        handle = _vp()
        check(lib.hyfft_context_create(spec.encode(), ctypes.byref(handle)),
              f"hyfft_context_create({spec!r})")
        self.spec = spec
        self.handle = handle
        self._destroy = lib.hyfft_context_destroy  # kept for interpreter exit

    def __del__(self):
        handle = getattr(self, "handle", None)
        if handle:
            self._destroy(handle)
            self.handle = None


_contexts = {}
_contexts_lock = threading.Lock()


def get_context(spec):
    """The process-wide context of a device spec, created on first use."""
    with _contexts_lock:
        ctx = _contexts.get(spec)
        if ctx is None:
            ctx = _contexts[spec] = Context(spec)
        return ctx
