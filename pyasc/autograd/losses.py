"""Loss functions (PyTorch's ``torch.nn.functional``), written with tensor ops so they differentiate
and compile like any program. ``cross_entropy`` is an op of the table (``ops_loss.py``)."""

from __future__ import annotations

import numpy as np

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


def _get(name):
    from ..ops import get_op

    return get_op(name)


def binary_cross_entropy(input, target, weight=None, reduction: str = "mean") -> Tensor:  # noqa: A002
    """``-(t log x + (1 - t) log(1 - x))``, each log at least -100 (PyTorch's clamp), times ``weight``."""
    x, t = _tensor(input, "binary_cross_entropy"), _tensor(target, "binary_cross_entropy")
    if x.shape != t.shape:
        raise PyascError("binary_cross_entropy", f"target size {t.shape} must be the same as input size {x.shape}")
    if not x.is_traced and x.numel() and ((x.numpy() < 0) | (x.numpy() > 1)).any():
        raise PyascError("binary_cross_entropy", "all elements of input should be between 0 and 1")
    clamp = _get("clamp")
    loss = -(t * clamp(x.log(), min=-100.0) + (1.0 - t) * clamp((1.0 - x).log(), min=-100.0))
    if weight is not None:
        loss = loss * _tensor(weight, "binary_cross_entropy")
    return _reduce(loss, reduction, "binary_cross_entropy")


def kl_div(input, target, reduction: str = "mean", log_target: bool = False) -> Tensor:  # noqa: A002
    """``target * (log(target) - input)`` (0 where the target is 0), ``input`` log-probabilities; ``batchmean``
    divides the sum by the batch size."""
    x, t = _tensor(input, "kl_div"), _tensor(target, "kl_div")
    if log_target:
        loss = t.exp() * (t - x)
    else:
        positive = t > 0
        loss = _where(positive, t * (_where(positive, t, 1.0).log() - x), 0.0 * x)
    if reduction == "batchmean":
        return loss.sum() * (1.0 / x.shape[0]) if x.ndim else loss.sum()
    return _reduce(loss, reduction, "kl_div")


def nll_loss(input, target, weight=None, ignore_index: int = -100, reduction: str = "mean") -> Tensor:  # noqa: A002
    """``-input[n, target[n]]`` of log-probabilities ``input`` (N, C) or (N, C, d1, ...), each weighted by its
    class's ``weight``; targets equal to ``ignore_index`` count for nothing; ``mean`` divides by the weights'
    sum."""
    x, t = _tensor(input, "nll_loss"), _tensor(target, "nll_loss")
    if x.ndim > 2:
        x = x.movedim(1, -1)
    c = x.shape[-1]
    if t.dtype.is_floating_point or t.shape != x.shape[:-1]:
        raise PyascError("nll_loss", f"target {t.dtype.name}{list(t.shape)} must be class indices of shape "
                         f"{list(x.shape[:-1])}")
    if not t.is_traced and t.numel():
        a = t.numpy()
        bad = (a != ignore_index) & ((a < 0) | (a >= c))
        if bad.any():
            raise PyascError("nll_loss", f"target {int(a[bad][0])} is out of bounds for {c} classes")
    if weight is not None:
        weight = _tensor(weight, "nll_loss")
        if weight.shape != (c,):
            raise PyascError("nll_loss", f"weight must have shape ({c},) for {c} classes, got {weight.shape}")
    hot = t.unsqueeze(-1) == Tensor(np.arange(c, dtype=np.int32))
    picked = _where(hot, x, 0.0).sum(-1)
    w = _where(t != ignore_index, 1.0, 0.0)
    if weight is not None:
        w = w * _where(hot, weight, 0.0).sum(-1)
    loss = -picked * w
    if reduction == "mean":
        return loss.sum() / w.sum()
    return _reduce(loss, reduction, "nll_loss")
