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


def _same_shape(op: str, *tensors) -> list[Tensor]:
    ts = [_tensor(t, op) for t in tensors]
    shape = np.broadcast_shapes(*[t.shape for t in ts]) if ts else ()
    return [t if t.shape == shape else t.broadcast_to(shape) for t in ts]


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, reduction: str = "mean") -> Tensor:
    """``max(0, -y (x1 - x2) + margin)``."""
    x1, x2, y = _same_shape("margin_ranking_loss", input1, input2, target)
    return _reduce(_get("clamp_min")(-y * (x1 - x2) + margin, 0.0), reduction, "margin_ranking_loss")


def soft_margin_loss(input, target, reduction: str = "mean") -> Tensor:  # noqa: A002
    """``log(1 + exp(-y x))``."""
    x, y = _same_shape("soft_margin_loss", input, target)
    return _reduce(_get("log1p")((-y * x).exp()), reduction, "soft_margin_loss")


def hinge_embedding_loss(input, target, margin: float = 1.0, reduction: str = "mean") -> Tensor:  # noqa: A002
    """``x`` where ``y`` is not -1, plus ``max(0, margin - x)`` where ``y`` is not 1 (PyTorch's sum of both)."""
    x, y = _same_shape("hinge_embedding_loss", input, target)
    loss = _where(y != 1, _get("clamp_min")(margin - x, 0.0), 0.0) + _where(y != -1, x, 0.0)
    return _reduce(loss, reduction, "hinge_embedding_loss")


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``y`` is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1 (the cosine over
    dim 1, or dim 0 of 1-d inputs, each squared norm plus 1e-12)."""
    x1, x2, y = (_tensor(t, "cosine_embedding_loss") for t in (input1, input2, target))
    if x1.shape != x2.shape or x1.ndim not in (1, 2) or y.shape != x1.shape[:-1]:
        raise PyascError("cosine_embedding_loss", f"expected inputs of one shape (N, D) or (D,) and a target of "
                         f"shape (N,) or (), got {x1.shape}, {x2.shape} and {y.shape}")
    d = x1.ndim - 1
    cos = (x1 * x2).sum(d) / ((x1 * x1).sum(d) + 1e-12).mul((x2 * x2).sum(d) + 1e-12).sqrt()
    loss = _where(y == 1, 1.0 - cos, 0.0) + _where(y == -1, _get("clamp_min")(cos - margin, 0.0), 0.0)
    return _reduce(loss, reduction, "cosine_embedding_loss")


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dim."""
    a, b = _tensor(x1, "pairwise_distance"), _tensor(x2, "pairwise_distance")
    d = a - b + eps
    if d.ndim == 0:
        d = d.reshape(1)
    return _get("norm")(d, p, -1, keepdim)


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the ``pairwise_distance``; with ``swap``, ``d(a, n)``
    is at most ``d(p, n)``."""
    a, pos, neg = (_tensor(t, "triplet_margin_loss") for t in (anchor, positive, negative))
    if not (a.ndim == pos.ndim == neg.ndim) or a.ndim not in (1, 2):
        raise PyascError("triplet_margin_loss", f"expected anchor, positive and negative of 1 or 2 dims alike, got "
                         f"{a.shape}, {pos.shape} and {neg.shape}")
    d_pos, d_neg = pairwise_distance(a, pos, p, eps), pairwise_distance(a, neg, p, eps)
    if swap:
        d_neg = _get("minimum")(d_neg, pairwise_distance(pos, neg, p, eps))
    return _reduce(_get("clamp_min")(margin + d_pos - d_neg, 0.0), reduction, "triplet_margin_loss")


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False, eps: float = 1e-8,  # noqa: A002
                     reduction: str = "mean") -> Tensor:
    """``exp(x) - t x`` of log-rates ``x`` (``log_input``), else ``x - t log(x + eps)``; with ``full``, plus
    Stirling's ``t log t - t + log(2 pi t) / 2`` where ``t`` > 1."""
    x, t = _same_shape("poisson_nll_loss", input, target)
    loss = x.exp() - t * x if log_input else x - t * (x + eps).log()
    if full:
        safe = _where(t > 1, t, 1.0)
        stirling = safe * safe.log() - safe + 0.5 * (2.0 * np.pi * safe).log()
        loss = loss + _where(t > 1, stirling, 0.0)
    return _reduce(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6,  # noqa: A002
                      reduction: str = "mean") -> Tensor:
    """``(log(v) + (x - t)^2 / v) / 2`` with the variance ``v`` at least ``eps`` (plus ``log(2 pi) / 2`` with
    ``full``); ``var`` has the input's shape, or one dim fewer, or a last dim of 1."""
    x, t, v = (_tensor(a, "gaussian_nll_loss") for a in (input, target, var))
    if v.shape != x.shape:
        if v.ndim == x.ndim - 1 and v.shape == x.shape[:-1]:
            v = v.unsqueeze(-1)
        elif not (v.ndim == x.ndim and v.shape[:-1] == x.shape[:-1] and v.shape[-1] == 1):
            raise PyascError("gaussian_nll_loss", f"var of shape {v.shape} does not fit input of shape {x.shape}")
    if not v.is_traced and v.numel() and (v.numpy() < 0).any():
        raise PyascError("gaussian_nll_loss", "var has negative entry/entries")
    v = _get("clamp_min")(v.detach(), eps) + (v - v.detach())  # clamped without changing the gradient
    loss = 0.5 * (v.log() + (x - t) ** 2 / v)
    if full:
        loss = loss + 0.5 * float(np.log(2 * np.pi))
    return _reduce(loss, reduction, "gaussian_nll_loss")


def multilabel_soft_margin_loss(input, target, weight=None, reduction: str = "mean") -> Tensor:  # noqa: A002
    """``-(y log sigmoid(x) + (1 - y) log sigmoid(-x))`` times ``weight``, averaged over the classes (the last
    dim), then reduced over the batch."""
    x, y = _tensor(input, "multilabel_soft_margin_loss"), _tensor(target, "multilabel_soft_margin_loss")
    if x.shape != y.shape:
        raise PyascError("multilabel_soft_margin_loss", f"target size {y.shape} must be the same as input size "
                         f"{x.shape}")
    logsigmoid = _get("logsigmoid")
    loss = -(y * logsigmoid(x) + (1.0 - y) * logsigmoid(-x))
    if weight is not None:
        loss = loss * _tensor(weight, "multilabel_soft_margin_loss")
    loss = loss.mean(x.ndim - 1) if x.ndim else loss
    return _reduce(loss, reduction, "multilabel_soft_margin_loss")
