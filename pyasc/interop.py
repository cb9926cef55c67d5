"""Interoperation with NumPy and PyTorch CPU tensors (PyTorch stays optional: it is never
imported here; a torch tensor is recognised by its type).

Wherever pyasc takes a tensor it also takes a ``torch.Tensor`` on the CPU; it is converted with
PyTorch's own dtype mapping onto pyasc's (float64 -> float32, int64/int16/uint8 -> int32; a CPU
tensor of float32/float16/int32/int8/bool shares memory, as ``torch.Tensor.numpy``).
"""

from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .errors import PyascError, describe


def is_torch_tensor(x) -> bool:
    t = type(x)
    return t.__module__.startswith("torch") and hasattr(x, "detach") and hasattr(x, "dtype")


def torch_to_numpy(x, op: str = "tensor") -> np.ndarray:
    """The values of a torch tensor as a NumPy array (bfloat16 through ``ml_dtypes``)."""
    x = x.detach()
    if getattr(x, "device", None) is not None and x.device.type != "cpu":
        raise PyascError(op, f"torch tensors must be on the CPU, got one on {x.device}")
    name = str(x.dtype).removeprefix("torch.")
    if name == "bfloat16":
        import ml_dtypes

        return x.float().numpy().astype(ml_dtypes.bfloat16)
    if x.is_complex():
        raise PyascError(op, f"complex torch tensors are not supported ({x.dtype})")
    return x.resolve_conj().resolve_neg().numpy()


def to_pyasc(x, op: str = "tensor"):
    """A pyasc Tensor for ``x``: a Tensor itself, a NumPy array (shared when its dtype is a pyasc
    dtype) or a torch CPU tensor; PyascError for anything else."""
    from .creation import from_any
    from .tensor import Tensor

    if isinstance(x, Tensor):
        return x
    if is_torch_tensor(x):
        a = torch_to_numpy(x, op)
    elif isinstance(x, np.ndarray):
        a = x
    else:
        raise PyascError(op, f"expected a tensor, got {describe(x)}")
    d = dt.from_numpy_dtype(a.dtype)
    if d is not None and a.dtype == d.np_dtype:
        return Tensor(a, d)
    return from_any(a, op=op)


def to_numpy(x) -> np.ndarray:
    """The values of a pyasc Tensor (shared), NumPy array or torch tensor as a NumPy array."""
    from .tensor import Tensor

    if isinstance(x, Tensor):
        return x.numpy()
    if is_torch_tensor(x):
        return torch_to_numpy(x, "to_numpy")
    if isinstance(x, np.ndarray):
        return x
    return np.asarray(x)
