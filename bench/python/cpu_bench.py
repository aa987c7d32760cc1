"""Time hyfft's Python package against numpy.fft, scipy.fft (workers=2) and
pyFFTW's interfaces (when importable) on the CPU, on the shapes of
bench/suites/quick.txt, Python call overhead included: every library is
timed through its public call on the same array, best of 5 medians of
repeated calls. Prints a Markdown table; ratios above 1 mean hyfft is
faster.

    HYFFT_LIBRARY=build/dev/libhyfft.so python3 bench/python/cpu_bench.py
"""
import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import hyfft  # noqa: E402

try:
    import scipy.fft as sfft
except ImportError:  # scipy is optional
    sfft = None
try:
    import pyfftw.interfaces.numpy_fft as pyfftw_fft
    import pyfftw

    pyfftw.interfaces.cache.enable()
except ImportError:
    pyfftw_fft = None


def shapes(path):
    """(token, array shape, axes, dtype, inverse) for each C2C line of a suite."""
    out = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#") or not line.startswith("c2c:"):
            continue
        parts = line.split(":")
        prec, direction, dims = parts[1], parts[2], parts[3]
        batch = 1
        for p in parts[4:]:
            if p.startswith("b"):
                batch = int(p[1:])
        n = [int(d) for d in dims.split("x")]
        dtype = np.complex64 if prec == "f32" else np.complex128
        axes = tuple(range(1, 1 + len(n)))
        out.append((line, (batch, *n), axes, dtype, direction == "bwd"))
    return out


def seconds(fn, x):
    fn(x)  # plan, cache, warm up
    reps = max(1, int(0.02 / max(1e-7, _once(fn, x))))
    best = math.inf
    for _ in range(5):
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn(x)
            ts.append(time.perf_counter() - t0)
        best = min(best, statistics.median(ts))
    return best


def _once(fn, x):
    t0 = time.perf_counter()
    fn(x)
    return time.perf_counter() - t0


def main():
    suite = os.path.join(os.path.dirname(__file__), "..", "suites", "quick.txt")
    rng = np.random.default_rng(2026)
    peers = [("numpy", np.fft)]
    if sfft is not None:
        peers.append(("scipy(workers=2)", sfft))
    if pyfftw_fft is not None:
        peers.append(("pyfftw(threads=2)", pyfftw_fft))
    print("| problem | hyfft us | " + " | ".join(f"{n} us | {n}/hyfft" for n, _ in peers) + " |")
    print("|---|---|" + "---|---|" * len(peers))
    ratios = {n: [] for n, _ in peers}
    for token, shape, axes, dtype, inverse in shapes(suite):
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
        name = "ifftn" if inverse else "fftn"
        t_hy = seconds(lambda a: getattr(hyfft, name)(a, axes=axes), x)
        row = [f"{t_hy * 1e6:.1f}"]
        for pname, mod in peers:
            kw = {"workers": 2} if pname.startswith("scipy") else {"threads": 2} if pname.startswith("pyfftw") else {}
            t = seconds(lambda a, m=mod, k=kw: getattr(m, name)(a, axes=axes, **k), x)
            ratios[pname].append(t / t_hy)
            row += [f"{t * 1e6:.1f}", f"{t / t_hy:.2f}"]
        print(f"| {token} | " + " | ".join(row) + " |")
    for pname, r in ratios.items():
        g = math.exp(sum(math.log(v) for v in r) / len(r))
        print(f"\nGeometric mean of {pname} time / hyfft time over {len(r)} problems: {g:.2f}")


if __name__ == "__main__":
    main()
