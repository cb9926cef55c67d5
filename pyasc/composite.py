"""Ops defined by decomposition into other pyasc ops (``OpDef``s of kind ``composite``): ``clamp``,
``leaky_relu``, ``norm``, ``dropout`` and ``batch_norm`` (inference, and training with the batch's statistics).

A decomposition runs wherever its parts run: ``clamp`` is ``minimum(maximum(x, lo), hi)`` and
compiles to the device eagerly and inside ``pyasc.jit``; ``batch_norm`` is elementwise arithmetic
on the input and its statistics; ``norm`` is elementwise ops and the device reductions
(``pyasc.sum``/``amax``/``amin``).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import dtypes
from .args import dims_arg
from .creation import generator, to_pyasc
from .errors import PyascError, describe, raise_host_only
from .interop import is_torch_tensor
from .opdef import COMPOSITE, OpDef
from .ops_compare import GE, WHERE
from .ops_elementwise import ABS, ADD, CAST, MAXIMUM, MINIMUM, MUL, NEG, POW, RSQRT, SQRT
from .ops_reduce import AMAX, AMIN, SUM
from .tensor import Tensor


def _as_tensor_arg(x, op):
    if isinstance(x, Tensor):
        return x
    if is_torch_tensor(x) or isinstance(x, np.ndarray):
        return to_pyasc(x, op)
    raise PyascError(op, f"expected a tensor, got {describe(x)}")


def clamp(x, min=None, max=None):  # noqa: A002 - PyTorch's names
    """``min(max(x, min), max)`` with scalar or tensor bounds (either may be None); NaN in ``x``
    propagates and ``min > max`` gives ``max``, as in PyTorch."""
    if min is None and max is None:
        raise PyascError("clamp", "at least one of 'min' or 'max' must not be None",
                         shapes=[getattr(x, "shape", None)])
    out = x
    if min is not None:
        out = MAXIMUM(out, min)
    if max is not None:
        out = MINIMUM(out, max)
    return out


def leaky_relu(x, negative_slope: float = 0.01):
    """``x`` where ``x >= 0``, else ``negative_slope * x`` (PyTorch's ``leaky_relu``); after a matmul it
    is part of the matmul's fused epilogue."""
    if isinstance(negative_slope, bool) or not isinstance(negative_slope, numbers.Real):
        raise PyascError("leaky_relu", f"negative_slope must be a number, got {describe(negative_slope)}",
                         shapes=[getattr(x, "shape", None)])
    return WHERE(GE(x, 0), x, MUL(x, float(negative_slope)))


def norm(x, p=2, dim=None, keepdim: bool = False):
    """The vector p-norm over ``dim`` (all dimensions by default): p = 1, 2, inf or -inf (and
    other positive numbers), as ``torch.linalg.vector_norm``. Floating point only."""
    x = _as_tensor_arg(x, "norm")
    if not x.dtype.is_floating_point:
        raise PyascError("norm", f"expected a floating point tensor, got {x.dtype.name}",
                         shapes=[x.shape], dtypes=[x.dtype.name])
    if p in ("fro",):
        p = 2
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or (p <= 0 and p != -math.inf):
        raise PyascError("norm", f"p must be a positive number, inf or -inf, got {describe(p)}",
                         shapes=[x.shape])
    dims = dims_arg("norm", dim, x.ndim, x.shape)
    if p == 2:
        return SQRT(SUM(MUL(x, x), dim=dims, keepdim=keepdim))
    a = ABS(x)
    if p == math.inf:
        return AMAX(a, dim=dims, keepdim=keepdim)
    if p == -math.inf:
        return AMIN(a, dim=dims, keepdim=keepdim)
    if p == 1:
        return SUM(a, dim=dims, keepdim=keepdim)
    return POW(SUM(POW(a, float(p)), dim=dims, keepdim=keepdim), 1.0 / p)


def dropout(x, p: float = 0.5, training: bool = False):
    """Dropout. pyasc runs inference, so ``training`` defaults to False and the op is the
    identity (PyTorch's eval mode). With ``training=True`` each element is zeroed with
    probability ``p`` and the rest scaled by ``1 / (1 - p)``; the mask is drawn on the host
    (eager only: inside ``pyasc.jit`` a fixed mask would be baked in, so it raises)."""
    x = _as_tensor_arg(x, "dropout")
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
        raise PyascError("dropout", f"probability has to be between 0 and 1, but got {p}", shapes=[x.shape])
    if not training or p == 0.0:
        return x
    if x.is_traced:
        raise_host_only("dropout", [x], "training-mode dropout is")
    if p == 1.0:
        return Tensor(np.zeros(x.shape, x.dtype.np_dtype), x.dtype, device=x.device)
    keep = generator().random(x.shape) >= p
    mask = Tensor((keep / (1.0 - p)).astype(x.dtype.np_dtype), x.dtype, device=x.device)
    return MUL(x, mask)


def _batch_norm_training(x, stats, momentum, eps: float):
    """Batch normalisation with the batch's mean and biased variance over every dimension but 1; the running
    statistics given are updated in place (not recorded for gradients): ``(1 - momentum) * running + momentum *
    batch``, the variance's batch value unbiased (n / (n - 1)), as PyTorch's ``F.batch_norm(training=True)``."""
    c = x.shape[1]
    n = x.numel() // c
    if n <= 1:
        raise PyascError("batch_norm", f"expected more than 1 value per channel when training, got input size "
                         f"{x.shape}", shapes=[x.shape])
    if isinstance(momentum, bool) or not isinstance(momentum, numbers.Real):
        raise PyascError("batch_norm", f"momentum must be a number, got {describe(momentum)}", shapes=[x.shape])
    wide = x.dtype in (dtypes.float16, dtypes.bfloat16)
    xf = CAST(x, dtype=dtypes.float32) if wide else x
    dims = (0, *range(2, x.ndim))
    trailing = (1,) * (x.ndim - 2)
    mean = SUM(xf, dim=dims, keepdim=True) * (1.0 / n)
    centred = ADD(xf, NEG(mean))
    var = SUM(MUL(centred, centred), dim=dims, keepdim=True) * (1.0 / n)
    out = MUL(centred, RSQRT(ADD(var, eps)))
    for name, combine in (("weight", MUL), ("bias", ADD)):
        v = stats[name]
        if v is not None:
            out = combine(out, (CAST(v, dtype=dtypes.float32) if wide else v).reshape(c, *trailing))
    from .autograd.tape import no_grad

    with no_grad():
        for name, batch in (("running_mean", mean), ("running_var", var * (n / (n - 1)))):
            running = stats[name]
            if running is not None:
                running.mul_(1.0 - float(momentum)).add_(CAST(batch.reshape(c), dtype=running.dtype) * float(momentum))
    return CAST(out, dtype=x.dtype) if wide else out


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5):
    """Inference batch normalisation over dimension 1 of an (N, C, ...) input:
    ``(x - mean) / sqrt(var + eps) * weight + bias`` with the running statistics (shape (C,)).
    The statistics are folded into a per-channel scale and shift first, then applied with two
    elementwise ops. As in PyTorch's CPU kernel, a float16/bfloat16 input is computed in float32
    (the statistics folded and applied there) and rounded once. ``training``: the batch's statistics
    (``_batch_norm_training``)."""
    x = _as_tensor_arg(x, "batch_norm")
    if x.ndim < 2:
        raise PyascError("batch_norm", f"expected an input of shape (N, C, ...), got {x.shape}", shapes=[x.shape])
    c = x.shape[1]
    if c == 0:
        raise PyascError("batch_norm", f"the input {x.shape} has no channels (dimension 1 is 0)", shapes=[x.shape])
    stats = {"running_mean": running_mean, "running_var": running_var, "weight": weight, "bias": bias}
    for k, v in list(stats.items()):
        if v is None:
            continue
        v = _as_tensor_arg(v, "batch_norm")
        if v.shape != (c,):
            raise PyascError("batch_norm", f"{k} must have shape ({c},) for input {x.shape}, got {v.shape}",
                             shapes=[x.shape, v.shape])
        stats[k] = v
    if training:
        return _batch_norm_training(x, stats, momentum, float(eps))
    if stats["running_mean"] is None or stats["running_var"] is None:
        raise PyascError("batch_norm", "running_mean and running_var are required in inference mode",
                         shapes=[x.shape])
    wide = x.dtype in (dtypes.float16, dtypes.bfloat16)
    if wide:
        stats = {k: None if v is None else CAST(v, dtype=dtypes.float32) for k, v in stats.items()}
    scale = RSQRT(ADD(stats["running_var"], float(eps)))
    if stats["weight"] is not None:
        scale = MUL(scale, stats["weight"])
    shift = NEG(MUL(stats["running_mean"], scale))
    if stats["bias"] is not None:
        shift = ADD(shift, stats["bias"])
    trailing = (1,) * (x.ndim - 2)
    if trailing:
        scale, shift = scale.reshape(c, *trailing), shift.reshape(c, *trailing)
    if wide:
        return CAST(ADD(MUL(CAST(x, dtype=dtypes.float32), scale), shift), dtype=x.dtype)
    if x.dtype.is_floating_point:     # the result keeps the input's dtype (as torch's mixed batch_norm)
        scale, shift = CAST(scale, dtype=x.dtype), CAST(shift, dtype=x.dtype)
    return ADD(MUL(x, scale), shift)

OPS = [
    OpDef("clamp", decompose=clamp, kind=COMPOSITE),
    OpDef("leaky_relu", decompose=leaky_relu, kind=COMPOSITE, method=False),
    OpDef("norm", decompose=norm, kind=COMPOSITE),
    OpDef("dropout", decompose=dropout, kind=COMPOSITE, method=False),
    OpDef("batch_norm", decompose=batch_norm, kind=COMPOSITE, method=False),
]
