"""Losses written with the device ops (``OpDef``s of kind ``composite``, each compiled as one
program: ``fused.py``): ``cross_entropy`` as ``torch.nn.functional.cross_entropy`` (class indices
with ``weight``, ``ignore_index`` and ``label_smoothing``, or class probabilities), computed in
float32 from ``log_softmax``; the target class is selected by comparing with ``0..C-1``.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .args import operand, tensor_operand
from .errors import PyascError
from .fused import fused_op
from .ops_compare import EQ as _EQ
from .ops_compare import NE as _NE
from .ops_compare import WHERE as _WHERE
from .ops_elementwise import BY_NAME as EW
from .ops_elementwise import CAST as _CAST
from .ops_reduce import LOG_SOFTMAX as _LOG_SOFTMAX
from .ops_reduce import SUM as _SUM
from .ops_select import pick
from .tensor import Tensor

_MUL, _DIV = EW["mul"], EW["div"]


_REDUCTIONS = ("none", "mean", "sum")


def _cross_entropy_signature(input, target, weight=None, size_average=None, ignore_index=-100,  # noqa: A002
                             reduce=None, reduction="mean", label_smoothing=0.0):
    x, t = tensor_operand("cross_entropy", input), operand("cross_entropy", target)
    shapes = [x.shape, getattr(t, "shape", None)]
    if size_average is not None or reduce is not None:
        raise PyascError("cross_entropy", "size_average and reduce are deprecated: use reduction", shapes=shapes)
    if reduction not in _REDUCTIONS:
        raise PyascError("cross_entropy", f"reduction must be one of {_REDUCTIONS}, got {reduction!r}", shapes=shapes)
    if not x.dtype.is_floating_point or x.ndim < 1:
        raise PyascError("cross_entropy", f"expects float logits of shape (C,), (N, C) or (N, C, d1, ...), got "
                         f"{x.dtype.name}{list(x.shape)}", shapes=shapes)
    if not isinstance(t, type(x)):
        raise PyascError("cross_entropy", "the target must be a tensor", shapes=shapes)
    if x.ndim > 2:  # (N, C, d1, ...): the classes moved last, each position one more sample
        x = x.movedim(1, -1)
        if t.dtype.is_floating_point and t.ndim == x.ndim:
            t = t.movedim(1, -1)
    probs = t.dtype.is_floating_point
    if probs and t.shape != x.shape or not probs and (t.dtype is not dt.int32 or t.shape != x.shape[:-1]):
        raise PyascError("cross_entropy", f"target {t.dtype.name}{list(t.shape)} must be class indices of shape "
                         f"{list(x.shape[:-1])} or probabilities of shape {list(x.shape)}", shapes=shapes)
    if weight is not None:
        weight = tensor_operand("cross_entropy", weight)
        if weight.shape != (x.shape[-1],):
            raise PyascError("cross_entropy", f"weight must have shape ({x.shape[-1]},), got {weight.shape}",
                             shapes=shapes)
    if not probs and t.is_traced and t.numel() and x.shape[-1] == 0:
        raise PyascError("cross_entropy", "no classes (C = 0): every target is out of bounds", shapes=shapes)
    if not probs and not t.is_traced and t.numel():
        a = t.numpy()
        bad = (a != ignore_index) & ((a < 0) | (a >= x.shape[-1]))
        if bad.any():
            raise PyascError("cross_entropy", f"target {int(a[bad][0])} is out of bounds for {x.shape[-1]} classes",
                             shapes=shapes)
    return [x, t, weight], {"ignore_index": int(ignore_index), "reduction": reduction,
                            "smoothing": float(label_smoothing)}


def _cross_entropy(x, t, weight, ignore_index, reduction, smoothing):
    """The negative log-likelihood of the targets under softmax(x) (PyTorch's cross_entropy)."""
    logp = _LOG_SOFTMAX(_CAST(x, dtype=dt.float32), -1)
    c = x.shape[-1]
    if t.dtype.is_floating_point:
        tp = _CAST(t, dtype=dt.float32)
        if smoothing:
            tp = _MUL(tp, 1.0 - smoothing) + smoothing / c
        w = logp if weight is None else _MUL(logp, _CAST(weight, dtype=dt.float32))
        loss = -_SUM(_MUL(tp, w), dim=-1)
        n = loss.numel()
        out = loss if reduction == "none" else _SUM(loss) if reduction == "sum" else _DIV(_SUM(loss), float(n))
        return _CAST(out, dtype=x.dtype)
    hot = _EQ(t.unsqueeze(-1), _classes(c))
    nll = -pick(hot, logp)
    valid = _WHERE(_NE(t, ignore_index), 1.0, 0.0)
    w = valid if weight is None else _MUL(valid, pick(hot, _CAST(weight, dtype=dt.float32)))
    loss = _MUL(nll, w)
    if smoothing:  # the uniform part, each class weighted (PyTorch's rule)
        spread = logp if weight is None else _MUL(logp, _CAST(weight, dtype=dt.float32))
        smooth = _MUL(_DIV(-_SUM(spread, dim=-1), float(c)), valid)
        loss = loss * (1.0 - smoothing) + smooth * smoothing
    if reduction == "none":
        return _CAST(loss, dtype=x.dtype)
    if reduction == "sum":
        return _CAST(_SUM(loss), dtype=x.dtype)
    return _CAST(_DIV(_SUM(loss), _SUM(w)), dtype=x.dtype)


def _classes(c: int) -> Tensor:
    return Tensor(np.arange(c, dtype=np.int32))


OPS = [fused_op("cross_entropy", _cross_entropy, _cross_entropy_signature, method=False)]
