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


def _where(condition, x, y):
    from ..ops import get_op

    return get_op("where")(condition, x, y)


def l1_loss(input, target, reduction: str = "mean") -> Tensor:  # noqa: A002
    """The absolute error ``|input - target|``, averaged, summed or per element."""
    x, y = _tensor(input, "l1_loss"), _tensor(target, "l1_loss")
    return _reduce((x - y).abs(), reduction, "l1_loss")


def smooth_l1_loss(input, target, reduction: str = "mean", beta: float = 1.0) -> Tensor:  # noqa: A002
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input - target``)."""
    x, y = _tensor(input, "smooth_l1_loss"), _tensor(target, "smooth_l1_loss")
    d = (x - y).abs()
    if beta == 0:
        return _reduce(d, reduction, "smooth_l1_loss")
    return _reduce(_where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta), reduction, "smooth_l1_loss")


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0) -> Tensor:  # noqa: A002
    """``0.5 d^2`` where ``|d| <= delta``, else ``delta (|d| - 0.5 delta)``."""
    x, y = _tensor(input, "huber_loss"), _tensor(target, "huber_loss")
    d = (x - y).abs()
    return _reduce(_where(d <= delta, d * d * 0.5, (d - 0.5 * delta) * delta), reduction, "huber_loss")


def binary_cross_entropy_with_logits(input, target, reduction: str = "mean") -> Tensor:  # noqa: A002
    """``max(x, 0) - x t + log(1 + exp(-|x|))``: the cross entropy of ``sigmoid(x)`` and ``t``, without overflow."""
    x, t = _tensor(input, "binary_cross_entropy_with_logits"), _tensor(target, "binary_cross_entropy_with_logits")
    from ..ops import get_op

    loss = x.relu() - x * t + get_op("log1p")((-x.abs()).exp())
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")
