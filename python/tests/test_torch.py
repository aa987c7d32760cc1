"""PyTorch tensors: CPU tensors through NumPy views, CUDA tensors through
CuPy views on PyTorch's current stream, without copies (skipped without
PyTorch, and the CUDA part without a GPU and CuPy, as in CI)."""

import numpy as np
import pytest

import hyfft
from conftest import assert_close, random_array

torch = pytest.importorskip("torch", reason="PyTorch is not installed: tensors not tested")


def _devices():
    devs = ["cpu"]
    try:
        import cupy  # noqa: F401

        if torch.cuda.is_available():
            devs.append("cuda")
    except ImportError:
        pass
    return devs


@pytest.mark.parametrize("device", _devices())
@pytest.mark.parametrize("name", ["fft", "ifft", "fftn", "rfft", "irfft", "rfftn", "irfftn",
                                  "fft2"])
def test_tensor_matches_numpy(rng, device, name):
    src = np.float64 if name.startswith("rfft") else np.complex128
    x = random_array(rng, (4, 12, 10), src)
    t = torch.from_numpy(x).to(device)
    got = getattr(hyfft, name)(t)
    assert isinstance(got, torch.Tensor) and got.device.type == device
    assert_close(got.cpu().numpy(), getattr(np.fft, name)(x), np.complex128)


@pytest.mark.parametrize("device", _devices())
def test_tensor_views_and_out(rng, device):
    x = random_array(rng, (6, 16, 8), np.complex64)
    t = torch.from_numpy(x).to(device)
    view = t[::2, 1::3]
    assert_close(hyfft.fft(view, axis=1).cpu().numpy(), np.fft.fft(x[::2, 1::3], axis=1),
                 np.complex64)
    out = torch.empty((6, 16, 8), dtype=torch.complex64, device=device)
    assert hyfft.fftn(t, out=out) is out
    assert_close(out.cpu().numpy(), np.fft.fftn(x), np.complex64)
    with pytest.raises(TypeError):
        hyfft.fft(t, out=np.empty((6, 16, 8), np.complex64))
    if device == "cuda":
        # Work queued on PyTorch's stream before the call comes first.
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            e = t * 2
            got = hyfft.ifft(e)
        s.synchronize()
        assert_close(got.cpu().numpy(), np.fft.ifft(2 * x), np.complex64)
