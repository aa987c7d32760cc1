"""Time hyfft's Python package on GPU arrays against cupy.fft (cuFFT) and
torch.fft (when importable), on the shapes of bench/suites/quick.txt plus
larger batches, Python call overhead included: each library is called on
a device array it owns (a cupy array for hyfft and CuPy, a torch tensor
for PyTorch, same values), the device synchronised after every call; best
of 5 medians of repeated calls. Prints a Markdown table; ratios above 1
mean hyfft is faster.

    HYFFT_LIBRARY=build/libhyfft.so python3 bench/python/gpu_bench.py
"""
import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import hyfft  # noqa: E402

import cupy as cp  # noqa: E402  (this benchmark needs CuPy)

try:
    import torch
except ImportError:  # PyTorch is optional
    torch = None

sys.path.insert(0, os.path.dirname(__file__))
from cpu_bench import shapes  # noqa: E402

# Larger problems than the quick suite's, where the device rather than the
# call dominates.
EXTRA = [
    ("c2c:f32:fwd:4096:b4096", (4096, 4096), (1,), np.complex64, False),
    ("c2c:f32:fwd:1024x1024:b16", (16, 1024, 1024), (1, 2), np.complex64, False),
    ("c2c:f64:fwd:256x256x256", (256, 256, 256), (0, 1, 2), np.complex128, False),
]


def seconds(fn, x, sync):
    fn(x)  # plan, cache, warm up
    sync()
    t0 = time.perf_counter()
    fn(x)
    sync()
    once = time.perf_counter() - t0
    reps = max(1, int(0.02 / max(1e-7, once)))
    best = math.inf
    for _ in range(5):
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn(x)
            sync()
            ts.append(time.perf_counter() - t0)
        best = min(best, statistics.median(ts))
    return best


def main():
    suite = os.path.join(os.path.dirname(__file__), "..", "suites", "quick.txt")
    rng = np.random.default_rng(2026)
    sync_cp = cp.cuda.Device().synchronize
    peers = ["cupy.fft"] + (["torch.fft"] if torch is not None else [])
    print("| problem | hyfft us | " + " | ".join(f"{n} us | {n}/hyfft" for n in peers) + " |")
    print("|---|---|" + "---|---|" * len(peers))
    ratios = {n: [] for n in peers}
    for token, shape, axes, dtype, inverse in shapes(suite) + EXTRA:
        host = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
        x = cp.asarray(host)
        name = "ifftn" if inverse else "fftn"
        t_hy = seconds(lambda a: getattr(hyfft, name)(a, axes=axes), x, sync_cp)
        row = [f"{t_hy * 1e6:.1f}"]
        t = seconds(lambda a: getattr(cp.fft, name)(a, axes=axes), x, sync_cp)
        ratios["cupy.fft"].append(t / t_hy)
        row += [f"{t * 1e6:.1f}", f"{t / t_hy:.2f}"]
        if torch is not None:
            xt = torch.from_numpy(host).cuda()
            t = seconds(lambda a: getattr(torch.fft, name)(a, dim=axes), xt, torch.cuda.synchronize)
            ratios["torch.fft"].append(t / t_hy)
            row += [f"{t * 1e6:.1f}", f"{t / t_hy:.2f}"]
        print(f"| {token} | " + " | ".join(row) + " |", flush=True)
    for pname, r in ratios.items():
        g = math.exp(sum(math.log(v) for v in r) / len(r))
        print(f"\nGeometric mean of {pname} time / hyfft time over {len(r)} problems: {g:.2f}")
    if torch is None:
        print("\ntorch.fft: not measured (PyTorch is not importable here)")


if __name__ == "__main__":
    main()
