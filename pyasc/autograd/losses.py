"""Loss functions (PyTorch's ``torch.nn.functional``), written with tensor ops so they differentiate
and compile like any program."""

from __future__ import annotations

from .. import dtypes as dt
from ..creation import arange, to_pyasc
from ..errors import PyascError, describe
from ..tensor import Tensor

REDUCTIONS = ("mean", "sum", "none")


def _tensor(x, op: str) -> Tensor:
    return x if isinstance(x, Tensor) else to_pyasc(x, op)


def _reduce(loss: Tensor, reduction: str, op: str) -> Tensor:
    if reduction not in REDUCTIONS:
        raise PyascError(op, f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


def mse_loss(input, target, reduction: str = "mean") -> Tensor:  # noqa: A002 - PyTorch's name
    """The squared error ``(input - target) ** 2``, averaged (``"mean"``), summed or per element."""
    x, y = _tensor(input, "mse_loss"), _tensor(target, "mse_loss")
    d = x - y
    return _reduce(d * d, reduction, "mse_loss")


def cross_entropy(input, target, reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:  # noqa: A002
    """Cross entropy of logits ``input`` (N, C) against class indices ``target`` (N,) (an integer
    tensor) or class probabilities (N, C), as ``torch.nn.functional.cross_entropy``."""
    x, t = _tensor(input, "cross_entropy"), _tensor(target, "cross_entropy")
    if x.ndim != 2:
        raise PyascError("cross_entropy", f"expected logits of shape (N, C), got {list(x.shape)}", shapes=[x.shape])
    n, c = x.shape
    if t.dtype.is_floating_point:
        if t.shape != x.shape:
            raise PyascError("cross_entropy", f"probability targets must have the shape of the logits {list(x.shape)}, "
                             f"got {list(t.shape)}", shapes=[x.shape, t.shape])
        probs = t
    else:
        if t.shape != (n,):
            raise PyascError("cross_entropy", f"class targets must have shape ({n},), got {describe(t)}",
                             shapes=[x.shape, t.shape])
        t = t if t.dtype is dt.int32 else t.to(dt.int32)
        probs = (t.reshape(n, 1) == arange(c, dtype=dt.int32).reshape(1, c)).to(x.dtype)
    if label_smoothing:
        probs = probs * (1.0 - label_smoothing) + label_smoothing / c
    loss = -(probs * x.log_softmax(1)).sum(1)
    return _reduce(loss, reduction, "cross_entropy")
