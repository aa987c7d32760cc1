"""PyTorch tensors in and out of the numpy.fft-style functions.

A CUDA tensor is viewed as a CuPy array through __cuda_array_interface__
(no copy), transformed on the tensor's device and on PyTorch's current
stream of that device, and the result handed back as a tensor viewing the
same memory; a CPU tensor is viewed as a NumPy array the same way. The
tensor's own layout (strides, views) is kept. PyTorch and CuPy are optional:
nothing here imports them unless a tensor arrives.
"""

import functools




def _is_tensor(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "is_cuda")


def _view(t):
    """(array, restore) for a tensor: the array viewing its memory, and a
    function turning a result array back into a tensor on its device."""
    import torch

    if t.is_cuda:
        import cupy as cp

        with cp.cuda.Device(t.device.index):
            arr = cp.asarray(t.detach())
        return arr, lambda r: torch.as_tensor(r, device=t.device)
    return t.detach().numpy(), torch.from_numpy


def tensors(fn):
    """Let `fn(a, ..., out=None)` take PyTorch tensors for `a` (and `out`)."""

    @functools.wraps(fn)
    def wrapper(a, *args, **kwargs):
        if not _is_tensor(a):
            return fn(a, *args, **kwargs)
        out = kwargs.get("out")
        arr, back = _view(a)
        if out is not None:
            if not _is_tensor(out) or out.device != a.device:
                raise TypeError("out must be a tensor on the input's device")
            kwargs["out"] = _view(out)[0]
        if not a.is_cuda:
            res = fn(arr, *args, **kwargs)
            return out if out is not None else back(res)
        import cupy as cp
        import torch

        stream = torch.cuda.current_stream(a.device).cuda_stream
        with cp.cuda.Device(a.device.index), cp.cuda.ExternalStream(stream):
            res = fn(arr, *args, **kwargs)
        return out if out is not None else back(res)

    return wrapper


__all__ = ["tensors"]

