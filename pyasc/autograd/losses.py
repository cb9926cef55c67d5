"""Loss functions (PyTorch's ``torch.nn.functional``), written with tensor ops so they differentiate
and compile like any program. ``cross_entropy`` is an op of the table (``ops_loss.py``)."""

from __future__ import annotations

from ..creation import to_pyasc
from ..errors import PyascError
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
