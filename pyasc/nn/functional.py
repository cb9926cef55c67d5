"""``pyasc.nn.functional``: the functional forms of ``torch.nn.functional``.

Every name here is an op of the op table (``pyasc.ops.OPS``) under PyTorch's functional signature;
only ``dropout`` (training by default, as ``F.dropout``), ``softmax``/``log_softmax`` (``dim``
keyword) and ``cross_entropy`` are defined here.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..args import operand, tensor_operand
from ..errors import PyascError
from ..fused import fused_op
from ..ops import OPS
from ..ops_select import pick
from ..tensor import Tensor

relu = OPS["relu"]
gelu = OPS["gelu"]
silu = OPS["silu"]
sigmoid = OPS["sigmoid"]
tanh = OPS["tanh"]
leaky_relu = OPS["leaky_relu"]
softplus = OPS["softplus"]
hardswish = OPS["hardswish"]
mish = OPS["mish"]
layer_norm = OPS["layer_norm"]
rms_norm = OPS["rms_norm"]
batch_norm = OPS["batch_norm"]
linear = OPS["linear"]
conv2d = OPS["conv2d"]
max_pool2d = OPS["max_pool2d"]
avg_pool2d = OPS["avg_pool2d"]
adaptive_avg_pool2d = OPS["adaptive_avg_pool2d"]
logsumexp = OPS["logsumexp"]

_CAST, _WHERE, _EQ, _NE = OPS["cast"], OPS["where"], OPS["eq"], OPS["ne"]
_MUL, _SUB, _DIV, _SUM, _LOG_SOFTMAX = OPS["mul"], OPS["sub"], OPS["div"], OPS["sum"], OPS["log_softmax"]


def _dim_and_dtype(x, dim, dtype):
    x = tensor_operand("softmax", x)
    if dim is None:     # PyTorch's implicit choice
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return (x if dtype is None else _CAST(x, dtype=dtype)), dim


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002 - PyTorch's names
    """softmax of input along dim (cast to dtype first when given)."""
    x, dim = _dim_and_dtype(input, dim, dtype)
    return OPS["softmax"](x, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    """log of the softmax of input along dim."""
    x, dim = _dim_and_dtype(input, dim, dtype)
    return OPS["log_softmax"](x, dim)


def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Dropout with PyTorch's functional default (training=True): elements zeroed with probability p,
    the others scaled by 1 / (1 - p); the identity when training is False."""
    return OPS["dropout"](input, p, training=training)


_REDUCTIONS = ("none", "mean", "sum")


def _cross_entropy_signature(input, target, weight=None, size_average=None, ignore_index=-100,  # noqa: A002
                             reduce=None, reduction="mean", label_smoothing=0.0):
    x, t = tensor_operand("cross_entropy", input), operand("cross_entropy", target)
    shapes = [x.shape, getattr(t, "shape", None)]
    if size_average is not None or reduce is not None:
        raise PyascError("cross_entropy", "size_average and reduce are deprecated: use reduction", shapes=shapes)
    if reduction not in _REDUCTIONS:
        raise PyascError("cross_entropy", f"reduction must be one of {_REDUCTIONS}, got {reduction!r}", shapes=shapes)
    if not x.dtype.is_floating_point or x.ndim not in (1, 2):
        raise PyascError("cross_entropy", f"expects float logits of shape (C,) or (N, C), got {x.dtype.name}"
                         f"{list(x.shape)}", shapes=shapes)
    if not isinstance(t, type(x)):
        raise PyascError("cross_entropy", "the target must be a tensor", shapes=shapes)
    probs = t.dtype.is_floating_point
    if probs and t.shape != x.shape or not probs and (t.dtype is not dt.int32 or t.shape != x.shape[:-1]):
        raise PyascError("cross_entropy", f"target {t.dtype.name}{list(t.shape)} must be class indices of shape "
                         f"{list(x.shape[:-1])} or probabilities of shape {list(x.shape)}", shapes=shapes)
    if weight is not None:
        weight = tensor_operand("cross_entropy", weight)
        if weight.shape != (x.shape[-1],):
            raise PyascError("cross_entropy", f"weight must have shape ({x.shape[-1]},), got {weight.shape}",
                             shapes=shapes)
        if label_smoothing:
            raise PyascError("cross_entropy", "weight together with label_smoothing is not supported",
                             shapes=shapes)
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
    if smoothing:
        smooth = _MUL(_DIV(-_SUM(logp, dim=-1), float(c)), valid)
        loss = loss * (1.0 - smoothing) + smooth * smoothing
    if reduction == "none":
        return _CAST(loss, dtype=x.dtype)
    if reduction == "sum":
        return _CAST(_SUM(loss), dtype=x.dtype)
    return _CAST(_DIV(_SUM(loss), _SUM(w)), dtype=x.dtype)


def _classes(c: int) -> Tensor:
    return Tensor(np.arange(c, dtype=np.int32))


cross_entropy = fused_op("cross_entropy", _cross_entropy, _cross_entropy_signature, method=False)

__all__ = ["adaptive_avg_pool2d", "avg_pool2d", "batch_norm", "conv2d", "cross_entropy", "dropout", "gelu",
           "hardswish", "layer_norm", "leaky_relu", "linear", "log_softmax", "logsumexp", "max_pool2d", "mish",
           "relu", "rms_norm", "sigmoid", "silu", "softmax", "softplus", "tanh"]
