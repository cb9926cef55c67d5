"""Interoperation with NumPy and PyTorch CPU tensors (PyTorch stays optional: it is never
imported here; a torch tensor is recognised by its type).

Wherever pyasc takes a tensor it also takes a ``torch.Tensor`` on the CPU; it is converted with
PyTorch's own dtype mapping onto pyasc's (float64 -> float32, int64/int16/uint8 -> int32; a CPU
tensor of float32/float16/int32/int8/bool shares memory, as ``torch.Tensor.numpy``). This module
recognises and reads torch tensors; ``creation.to_pyasc`` makes pyasc tensors of them.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from .errors import PyascError


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
        return x.float().numpy().astype(ml_dtypes.bfloat16)
    if x.is_complex():
        raise PyascError(op, f"complex torch tensors are not supported ({x.dtype})")
    return x.resolve_conj().resolve_neg().numpy()
